"""Reads for tenants, memberships, invitations and API keys."""

import logging

from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from config.rawsql import ModelColumns

from . import wall
from .models import ApiKey, Invitation, Membership, Tenant, hash_secret

# A user's places in every tenant (the switcher's choices) are read before a tenant is known: through the
# tenant wall's memberships function (it bypasses the wall for its own read alone), with their tenants.
_MEMBERSHIP_COLUMNS = ModelColumns(Membership, "m")
_MEMBER_TENANT_COLUMNS = ModelColumns(Tenant, "t")
_MEMBERSHIPS_SQL = (
    f"SELECT {_MEMBERSHIP_COLUMNS.sql}, {_MEMBER_TENANT_COLUMNS.sql}{{current}}"
    f" FROM {wall.MEMBERSHIPS_FUNCTION}(%s) m JOIN {Tenant._meta.db_table} t ON t.id = m.tenant_id"
    " ORDER BY t.name, m.id"
)
# The operator UI's tenant: the session's if the user belongs to it, else the first by name; it becomes the
# database session's tenant in the same statement (tickets/tenancy/wall.py).
_CURRENT_SQL = (
    f", set_config('{wall.TENANT_SETTING}', (SELECT m2.tenant_id FROM {wall.MEMBERSHIPS_FUNCTION}(%s) m2"
    f" JOIN {Tenant._meta.db_table} t2 ON t2.id = m2.tenant_id"
    " ORDER BY m2.tenant_id IS NOT DISTINCT FROM %s DESC, t2.name, m2.id LIMIT 1)::text, %s)"
)


def memberships_for_user(
    user, *, make_current: bool = False, wanted_tenant_id: int | None = None
) -> list[Membership]:
    """The user's memberships, their `tenant` loaded, by tenant name: one statement.

    With `make_current`, the membership of `wanted_tenant_id` (or else the first) gives the connection its
    tenant until the request finishes.
    """
    if not getattr(user, "is_authenticated", False) or not getattr(user, "pk", None):
        return []
    if make_current:
        # Transaction-local behind a pooler (tickets/tenancy/pooled.py gives the next transactions the tenant).
        local = wall.pooled(connection)
        sql, params = (
            _MEMBERSHIPS_SQL.format(current=_CURRENT_SQL),
            [user.pk, wanted_tenant_id, local, user.pk],
        )
    else:
        sql, params = _MEMBERSHIPS_SQL.format(current=""), [user.pk]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    split, end = len(_MEMBERSHIP_COLUMNS), len(_MEMBERSHIP_COLUMNS) + len(_MEMBER_TENANT_COLUMNS)
    memberships = []
    for row in rows:
        membership = _MEMBERSHIP_COLUMNS.instance(row[:split], connection.alias)
        membership.tenant = _MEMBER_TENANT_COLUMNS.instance(row[split:end], connection.alias)
        memberships.append(membership)
    if make_current and rows:
        wall.tenant_noted(int(rows[0][end]))
    return memberships


# Every API request reads its key and the key's tenant: one statement written once (config.rawsql). A key
# is found before its tenant is known, so it is read through the tenant wall's one lookup function (it bypasses
# the wall for its own read alone), and the same statement makes the key's tenant the
# session's tenant (tickets/tenancy/wall.py): no round trip of its own.
_KEY_COLUMNS = ModelColumns(ApiKey, "k")
_TENANT_COLUMNS = ModelColumns(Tenant, "t")
_KEY_WITH_TENANT_SQL = (
    f"SELECT {_KEY_COLUMNS.sql}, {_TENANT_COLUMNS.sql},"
    f" set_config('{wall.TENANT_SETTING}', k.tenant_id::text, %s)"
    f" FROM {wall.KEY_LOOKUP_FUNCTION}(%s) k JOIN {Tenant._meta.db_table} t ON t.id = k.tenant_id"
)


def api_key_with_tenant(prefix: str) -> ApiKey | None:
    """The key with this public prefix, its `tenant` loaded (revoked keys included), or None.

    When found, the key's tenant becomes the connection's tenant until the request finishes.
    """
    with connection.cursor() as cursor:
        cursor.execute(_KEY_WITH_TENANT_SQL, [wall.pooled(connection), prefix])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(_KEY_COLUMNS)
    key = _KEY_COLUMNS.instance(row[:split], connection.alias)
    key.tenant = _TENANT_COLUMNS.instance(row[split : split + len(_TENANT_COLUMNS)], connection.alias)
    wall.tenant_noted(key.tenant_id)
    return key


def api_keys_for_tenant(tenant: Tenant) -> QuerySet[ApiKey]:
    return ApiKey.objects.for_tenant(tenant).select_related("created_by")


def members_for_tenant(tenant: Tenant) -> QuerySet[Membership]:
    return Membership.objects.for_tenant(tenant).select_related("user").order_by("user__username")


def _pending(invitations: QuerySet[Invitation]) -> QuerySet[Invitation]:
    """Neither accepted, declined nor revoked, and not expired."""
    return invitations.filter(
        accepted_at__isnull=True,
        declined_at__isnull=True,
        revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    )


def invitations_pending_for_tenant(tenant: Tenant) -> QuerySet[Invitation]:
    return _pending(Invitation.objects.for_tenant(tenant)).select_related("invited_by")


def invitations_pending_for_user(user) -> list[Invitation]:
    """The pending invitations addressed to the user's e-mail address, in every tenant (cross-tenant by
    nature, like the user's memberships: read past the tenant wall, logged); none without an address."""
    email = (getattr(user, "email", "") or "").strip().lower()
    if not getattr(user, "is_authenticated", False) or not email:
        return []
    with wall.tenant_bypass("the signed-in user's invitations", level=logging.DEBUG):
        return list(
            _pending(Invitation.objects.all_tenants().filter(email=email)).select_related(
                "tenant", "invited_by"
            )
        )


def invitation_pending_by_token(token: str) -> Invitation | None:
    """The pending invitation whose one-time link carries `token`, or None (unknown, used, expired)."""
    if not token or len(token) > 200:
        return None
    found = Invitation.objects.all_tenants().filter(token_hash=hash_secret(token))
    # Before any tenant is known (the link is the only credential): read past the wall, logged.
    with wall.tenant_bypass("an invitation link", level=logging.DEBUG):
        return _pending(found).select_related("tenant", "invited_by").first()
