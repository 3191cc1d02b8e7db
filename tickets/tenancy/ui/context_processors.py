"""The template context every operator page gets: the tenant in view, the caller's role and the navigation."""

from django.http import HttpRequest

from ..models import Role, role_at_least
from ..selectors import memberships_for_user
from .sections import operator_ui_sections


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
