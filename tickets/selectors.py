"""Reads for tenants, memberships and API keys."""

from django.db.models import QuerySet

from .models import ApiKey, Membership, Tenant


def memberships_for_user(user) -> QuerySet[Membership]:
    if not getattr(user, "is_authenticated", False) or not getattr(user, "pk", None):
        return Membership.objects.none()
    return Membership.objects.filter(user=user).select_related("tenant").order_by("tenant__name")


def api_keys_for_tenant(tenant: Tenant) -> QuerySet[ApiKey]:
    return ApiKey.objects.for_tenant(tenant).select_related("created_by")


def members_for_tenant(tenant: Tenant) -> QuerySet[Membership]:
    return Membership.objects.for_tenant(tenant).select_related("user").order_by("user__username")
