"""Reads for tenants, memberships and API keys."""

import logging

from django.db import connection
from django.db.models import QuerySet

from config import rls
from config.rawsql import ModelColumns

from .models import ApiKey, Membership, Tenant


def memberships_for_user(user) -> list[Membership]:
    if not getattr(user, "is_authenticated", False) or not getattr(user, "pk", None):
        return []
    # A user's places in every tenant (the switcher's choices): cross-tenant by nature, so read before a
    # tenant is known, through the tenant wall's audited bypass.
    with rls.tenant_bypass(f"memberships of user {user.pk}", level=logging.DEBUG):
        return list(
            Membership.objects.all_tenants()
            .filter(user=user)
            .select_related("tenant")
            .order_by("tenant__name")
        )


# Every API request reads its key and the key's tenant: one statement written once (config.rawsql). A key
# is found before its tenant is known, so it is read through the tenant wall's one lookup function (it bypasses
# the wall for its own read alone), and the same statement makes the key's tenant the
# session's tenant (config/rls.py): no round trip of its own.
_KEY_COLUMNS = ModelColumns(ApiKey, "k")
_TENANT_COLUMNS = ModelColumns(Tenant, "t")
_KEY_WITH_TENANT_SQL = (
    f"SELECT {_KEY_COLUMNS.sql}, {_TENANT_COLUMNS.sql},"
    f" set_config('{rls.TENANT_SETTING}', k.tenant_id::text, false)"
    f" FROM {rls.KEY_LOOKUP_FUNCTION}(%s) k JOIN {Tenant._meta.db_table} t ON t.id = k.tenant_id"
)


def api_key_with_tenant(prefix: str) -> ApiKey | None:
    """The key with this public prefix, its `tenant` loaded (revoked keys included), or None.

    When found, the key's tenant becomes the connection's tenant until the request finishes.
    """
    with connection.cursor() as cursor:
        cursor.execute(_KEY_WITH_TENANT_SQL, [prefix])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(_KEY_COLUMNS)
    key = _KEY_COLUMNS.instance(row[:split], connection.alias)
    key.tenant = _TENANT_COLUMNS.instance(row[split : split + len(_TENANT_COLUMNS)], connection.alias)
    rls.tenant_noted(key.tenant_id)
    return key


def api_keys_for_tenant(tenant: Tenant) -> QuerySet[ApiKey]:
    return ApiKey.objects.for_tenant(tenant).select_related("created_by")


def members_for_tenant(tenant: Tenant) -> QuerySet[Membership]:
    return Membership.objects.for_tenant(tenant).select_related("user").order_by("user__username")
