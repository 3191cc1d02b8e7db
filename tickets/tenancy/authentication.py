"""API-key authentication (`Authorization: Bearer brn_<prefix>_<secret>`), the tenant a DRF request acts in,
and per-key throttling."""

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from .models import ApiKey, Tenant
from .selectors import api_key_with_tenant

LAST_USED_RESOLUTION = timedelta(minutes=1)  # don't write on every request


class ApiKeyPrincipal:
    """The `request.user` of a request made with an API key: authenticated, not a Django user."""

    is_authenticated = True
    is_active = True
    is_staff = False
    is_superuser = False
    is_anonymous = False
    pk = None
    id = None

    def __init__(self, key: ApiKey):
        self.key = key
        self.username = f"api-key:{key.prefix}"

    def __str__(self) -> str:
        return self.username


class ApiKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        parts = header.split()
        if parts[0].lower() != self.keyword.lower():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Send the key as 'Authorization: Bearer <key>'.")
        parsed = ApiKey.parse(parts[1])
        if parsed is None:
            raise exceptions.AuthenticationFailed(
                "That is not a Brain API key (they look like brn_<prefix>_<secret>)."
            )
        prefix, secret = parsed
        key = api_key_with_tenant(prefix)
        if key is None or not key.matches(secret):
            raise exceptions.AuthenticationFailed("Invalid API key.")
        if key.revoked_at is not None:
            raise exceptions.AuthenticationFailed("This API key has been revoked.")
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at > LAST_USED_RESOLUTION:
            ApiKey.objects.for_tenant(key.tenant_id).filter(pk=key.pk).update(last_used_at=now)
            key.last_used_at = now
        return ApiKeyPrincipal(key), key

    def authenticate_header(self, request) -> str:
        return self.keyword


@dataclass(frozen=True)
class RequestTenant:
    """The tenant a request acts in and the caller's role there (both None outside any tenant)."""

    tenant: Tenant | None
    role: str | None


def resolve_api_tenant(request) -> RequestTenant:
    """For DRF requests (after authentication): the key's tenant, or the signed-in user's tenant."""
    if isinstance(request.auth, ApiKey):
        return RequestTenant(request.auth.tenant, request.auth.role)
    django_request = getattr(request, "_request", request)
    return RequestTenant(getattr(django_request, "tenant", None), getattr(django_request, "role", None))


class ApiKeyRateThrottle(SimpleRateThrottle):
    """Throttles per API key (and per user for session requests); BRAIN_API_THROTTLE_RATE sets the rate.

    Counts atomically: a window opens at a caller's first request and lasts the rate's period; each request
    increments the window's counter in the cache (`incr` is atomic in Redis and in the local-memory cache),
    and the request is let through only if its own number is within the rate. So however many clients
    share a key at once, no more than the rate gets through in a window. (DRF's own throttle reads a
    history, appends and writes it back: concurrent requests overwrite each other's counts.)
    """

    scope = "api_key"

    def get_rate(self) -> str:
        # Read at construction, not at import: the rate is a setting that a deployment (or a test) sets.
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiKey):
            ident = f"key:{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"anon:{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        return self._count_request() <= self.num_requests

    def _count_request(self) -> int:
        """This request's number in the caller's current window (opening the window if there is none)."""
        for _ in range(3):  # the window may expire between add() and incr(): open a new one
            if self.cache.add(self.key, 0, self.duration):
                self.cache.set(f"{self.key}:opened", self.now, self.duration)
            try:
                return self.cache.incr(self.key)
            except ValueError:
                continue
        return self.num_requests + 1  # the cache keeps losing the counter: refuse rather than let through

    def wait(self) -> float:
        opened = self.cache.get(f"{self.key}:opened", self.now)
        return max(0.0, opened + self.duration - self.now)
