"""Reads for tenants, memberships, invitations and API keys."""

from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from config.rawsql import ModelColumns

from .models import ApiKey, Invitation, Membership, Tenant, hash_secret


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


def invitations_pending_for_user(user) -> QuerySet[Invitation]:
    """The pending invitations addressed to the user's e-mail address, in every tenant (cross-tenant by
    nature, like the user's memberships); none for a user without an address."""
    email = (getattr(user, "email", "") or "").strip().lower()
    if not getattr(user, "is_authenticated", False) or not email:
        return Invitation.objects.none()
    return _pending(Invitation.objects.all_tenants().filter(email=email)).select_related(
        "tenant", "invited_by"
    )


def invitation_pending_by_token(token: str) -> Invitation | None:
    """The pending invitation whose one-time link carries `token`, or None (unknown, used, expired)."""
    if not token or len(token) > 200:
        return None
    found = Invitation.objects.all_tenants().filter(token_hash=hash_secret(token))
    return _pending(found).select_related("tenant", "invited_by").first()
