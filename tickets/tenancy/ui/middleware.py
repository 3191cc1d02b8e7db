"""Which tenant an operator UI request acts in, and with which role.

Operators sign in with Django auth and act inside one tenant at a time; the session remembers which, and
`TenantMiddleware` puts it on `request.tenant` / `request.role`. (API requests authenticate with a tenant's
key: `authentication.resolve_api_tenant()`.) Views never pick a tenant from a URL or a payload.
"""

from django.http import HttpRequest
from django.urls import reverse

from .. import wall
from ..authentication import RequestTenant
from ..selectors import memberships_for_user

SESSION_KEY = "brain_tenant_id"


def tenant_for_session(request: HttpRequest) -> RequestTenant:
    wanted = request.session.get(SESSION_KEY)
    # The chosen tenant becomes the database session's in the same statement (the tenant wall).
    memberships = memberships_for_user(request.user, make_current=True, wanted_tenant_id=wanted)
    if not memberships:
        return RequestTenant(None, None)
    chosen = next((m for m in memberships if m.tenant_id == wanted), memberships[0])
    if wanted != chosen.tenant_id:
        request.session[SESSION_KEY] = chosen.tenant_id
    request._brain_memberships = memberships
    return RequestTenant(chosen.tenant, chosen.role)


class TenantMiddleware:
    """Sets request.tenant and request.role for signed-in operators (None when they have no tenant), and
    makes the tenant the database session's for the tenant wall (tickets/tenancy/wall.py; cleared when the
    request finishes). Staff in the Django admin work across tenants: the audited bypass, for that request
    only."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        request.tenant, request.role = None, None
        if request.user.is_authenticated:
            if request.user.is_staff and request.path_info.startswith(admin_prefix()):
                with wall.tenant_bypass(
                    f"admin {request.method} {request.path_info} by user {request.user.pk}"
                ):
                    return self.get_response(request)
            acting = tenant_for_session(request)
            request.tenant, request.role = acting.tenant, acting.role
        return self.get_response(request)


def admin_prefix() -> str:
    return reverse("admin:index")  # Django's resolver keeps its reverse table: no cache of our own


def switch_tenant(request: HttpRequest, tenant_id: int) -> bool:
    """Make `tenant_id` the session's tenant if the user belongs to it."""
    if any(m.tenant_id == tenant_id for m in memberships_for_user(request.user)):
        request.session[SESSION_KEY] = tenant_id
        return True
    return False
