"""The one tenancy layer for web requests: which tenant a request acts in, and with which role.

- Operators sign in with Django auth and act inside one tenant at a time; the session remembers
  which, and `TenantMiddleware` puts it on `request.tenant` / `request.role`.
- API requests authenticate with a tenant's key (see `authentication.py`); DRF resolves the tenant
  from the key through `resolve_api_tenant()`.
Views never pick a tenant from a URL or a payload.
"""

from dataclasses import dataclass
from importlib import import_module

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.shortcuts import redirect
from django.urls import reverse
from django.views import View

from config import rls

from .models import ApiKey, Role, Tenant, role_at_least
from .parents import parent_get
from .selectors import memberships_for_user

SESSION_KEY = "brain_tenant_id"


@dataclass(frozen=True)
class TenantContext:
    tenant: Tenant | None
    role: str | None


def tenant_for_session(request: HttpRequest) -> TenantContext:
    wanted = request.session.get(SESSION_KEY)
    # The chosen tenant becomes the database session's in the same statement (the tenant wall).
    memberships = memberships_for_user(request.user, make_current=True, wanted_tenant_id=wanted)
    if not memberships:
        return TenantContext(None, None)
    chosen = next((m for m in memberships if m.tenant_id == wanted), memberships[0])
    if wanted != chosen.tenant_id:
        request.session[SESSION_KEY] = chosen.tenant_id
    request._brain_memberships = memberships
    return TenantContext(chosen.tenant, chosen.role)


class TenantMiddleware:
    """Sets request.tenant and request.role for signed-in operators (None when they have no tenant), and
    makes the tenant the database session's for the tenant wall (config/rls.py; cleared when the request
    finishes). Staff in the Django admin work across tenants: the audited bypass, for that request only."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        request.tenant, request.role = None, None
        if request.user.is_authenticated:
            if request.user.is_staff and request.path_info.startswith(admin_prefix()):
                with rls.tenant_bypass(
                    f"admin {request.method} {request.path_info} by user {request.user.pk}"
                ):
                    return self.get_response(request)
            context = tenant_for_session(request)
            request.tenant, request.role = context.tenant, context.role
        return self.get_response(request)


def admin_prefix() -> str:
    return reverse("admin:index")  # Django's resolver keeps its reverse table: no cache of our own


def switch_tenant(request: HttpRequest, tenant_id: int) -> bool:
    """Make `tenant_id` the session's tenant if the user belongs to it."""
    if any(m.tenant_id == tenant_id for m in memberships_for_user(request.user)):
        request.session[SESSION_KEY] = tenant_id
        return True
    return False


def resolve_api_tenant(request) -> TenantContext:
    """For DRF requests (after authentication): the key's tenant, or the signed-in user's tenant."""
    if isinstance(request.auth, ApiKey):
        return TenantContext(request.auth.tenant, request.auth.role)
    django_request = getattr(request, "_request", request)
    return TenantContext(getattr(django_request, "tenant", None), getattr(django_request, "role", None))


def tenant_context(request: HttpRequest) -> dict:
    """Template context: the tenant in view and the switcher's choices."""
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {}
    memberships = getattr(request, "_brain_memberships", None)
    if memberships is None:
        memberships = memberships_for_user(request.user)
    role = getattr(request, "role", None)
    nav_items = []
    if getattr(request, "tenant", None) is not None:
        for section in operator_ui_sections():
            item = section.nav_item(request)
            if item:
                nav_items.append(item)
    return {
        "nav_items": nav_items,
        "current_tenant": getattr(request, "tenant", None),
        "current_role": role,
        "tenant_memberships": memberships,
        "can_edit": bool(role) and role_at_least(role, Role.OPERATOR),
        "is_tenant_admin": bool(role) and role_at_least(role, Role.ADMIN),
    }


def operator_ui_sections() -> list:
    """The modules named in OPERATOR_UI_SECTIONS; each has `nav_item(request)` and `home_cards(tenant)`."""
    return [import_module(path) for path in settings.OPERATOR_UI_SECTIONS]


class TenantViewMixin(LoginRequiredMixin):
    """For operator UI views: signed in, inside a tenant, with at least `required_role`.

    Viewers may GET; writes (any other method) need `write_role` (operator by default). The URL's
    parents (`url_parents = {"pk": "agent"}`) are resolved in the tenant before the handler runs and
    handed to it by name (`def get(self, request, agent)`); a missing one and another tenant's are 404.
    """

    required_role: str = Role.VIEWER
    write_role: str = Role.OPERATOR
    url_parents: dict[str, str] = {}

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        if request.tenant is None:
            raise PermissionDenied("You are not a member of any tenant yet; ask an admin to add you.")
        needed = (
            self.required_role
            if request.method in ("GET", "HEAD", "OPTIONS")
            else max(
                self.required_role, self.write_role, key=lambda r: {"viewer": 1, "operator": 2, "admin": 3}[r]
            )
        )
        if not role_at_least(request.role, needed):
            raise PermissionDenied(f"This needs the {needed} role in {request.tenant}.")
        self.tenant = request.tenant
        for url_kwarg, name in self.url_parents.items():
            kwargs[name] = parent_get(name, self.tenant, kwargs.pop(url_kwarg))
        return super().dispatch(request, *args, **kwargs)


class TenantRowActionView(TenantViewMixin, View):
    """An admin's POST on one of the tenant's rows (revoke a key, withdraw an invitation, deactivate a
    webhook): the row is looked up in the tenant (another tenant's is a 404, like a missing one), the
    subclass's `act(row)` runs and returns the message shown, and the page `redirect_to` follows."""

    required_role = Role.ADMIN
    write_role = Role.ADMIN
    model = None
    missing = "No such row."
    redirect_to = ""

    def act(self, row) -> str:
        raise NotImplementedError

    def post(self, request, pk: int):
        row = self.model.objects.for_tenant(request.tenant).filter(pk=pk).first()
        if row is None:
            raise Http404(self.missing)
        messages.success(request, self.act(row))
        return redirect(self.redirect_to)
