"""Reads for tenants, memberships and API keys."""

from django.db import connection
from django.db.models import QuerySet

from config.rawsql import ModelColumns

from .models import ApiKey, Membership, Tenant


def memberships_for_user(user) -> QuerySet[Membership]:
    if not getattr(user, "is_authenticated", False) or not getattr(user, "pk", None):
        return Membership.objects.none()
    # A user's places in every tenant (the switcher's choices): cross-tenant by nature.
    return (
        Membership.objects.all_tenants().filter(user=user).select_related("tenant").order_by("tenant__name")
    )


# Every API request reads its key and the key's tenant: one statement written once (config.rawsql).
_KEY_COLUMNS = ModelColumns(ApiKey, "k")
_TENANT_COLUMNS = ModelColumns(Tenant, "t")
_KEY_WITH_TENANT_SQL = (
    f"SELECT {_KEY_COLUMNS.sql}, {_TENANT_COLUMNS.sql} FROM {ApiKey._meta.db_table} k"
    f" JOIN {Tenant._meta.db_table} t ON t.id = k.tenant_id WHERE k.prefix = %s"
)


def api_key_with_tenant(prefix: str) -> ApiKey | None:
    """The key with this public prefix, its `tenant` loaded (revoked keys included), or None."""
    with connection.cursor() as cursor:
        cursor.execute(_KEY_WITH_TENANT_SQL, [prefix])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(_KEY_COLUMNS)
    key = _KEY_COLUMNS.instance(row[:split], connection.alias)
    key.tenant = _TENANT_COLUMNS.instance(row[split:], connection.alias)
    return key


def api_keys_for_tenant(tenant: Tenant) -> QuerySet[ApiKey]:
    return ApiKey.objects.for_tenant(tenant).select_related("created_by")


def members_for_tenant(tenant: Tenant) -> QuerySet[Membership]:
    return Membership.objects.for_tenant(tenant).select_related("user").order_by("user__username")
