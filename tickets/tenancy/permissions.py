"""The one DRF permission: a tenant must be resolved, and the caller's role must suffice."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from .authentication import resolve_api_tenant
from .models import Role, role_at_least


class TenantRolePermission(BasePermission):
    """Reads need viewer, writes operator; a view sets `read_role` / `write_role` to ask for more.

    The tenancy base (drf.py) has resolved `request.tenant` and `request.role` in `initial()`; a DRF
    view outside that base (none today) gets the same answer from the key or the session.
    """

    message = "You do not have the role this needs in this tenant."

    def has_permission(self, request, view) -> bool:
        if not request.user or not request.user.is_authenticated:
            return False
        tenant, role = getattr(view, "tenant", None), getattr(request, "role", None)
        if tenant is None:
            acting = resolve_api_tenant(request)
            tenant, role = acting.tenant, acting.role
        if tenant is None:
            self.message = "You are not a member of any tenant."
            return False
        needed = (
            getattr(view, "read_role", Role.VIEWER)
            if request.method in SAFE_METHODS
            else getattr(view, "write_role", Role.OPERATOR)
        )
        if not role_at_least(role, needed):
            self.message = f"This needs the {needed} role; yours is {role}."
            return False
        return True
