"""Writes for tenants, memberships and API keys. Views, admin and commands call these."""

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from .models import ApiKey, Membership, Role, Tenant, hash_secret


@transaction.atomic
def tenant_create(*, name: str, slug: str | None = None) -> Tenant:
    return Tenant.objects.create(name=name, slug=slug or slugify(name))


LAST_ADMIN_MESSAGE = "A tenant needs at least one admin; make someone else admin first."


class LastAdminError(ValueError):
    """The change would leave the tenant without an admin (removing or demoting its last one)."""


def _is_last_admin(membership: Membership) -> bool:
    others = (
        Membership.objects.for_tenant(membership.tenant_id)
        .select_for_update()
        .filter(role=Role.ADMIN)
        .exclude(pk=membership.pk)
    )
    return membership.role == Role.ADMIN and not others.exists()


@transaction.atomic
def membership_set(*, tenant: Tenant, user, role: str) -> Membership:
    """Add `user` to `tenant` with `role`, or change the role of an existing member. Idempotent. Raises
    LastAdminError when it would demote the tenant's last admin."""
    if role not in Role.values:
        raise ValueError(f"role must be one of {', '.join(Role.values)}")
    membership, created = Membership.objects.for_tenant(tenant).get_or_create(
        tenant=tenant, user=user, defaults={"role": role}
    )
    if not created and membership.role != role and _is_last_admin(membership):
        raise LastAdminError(LAST_ADMIN_MESSAGE)
    if not created and membership.role != role:
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def membership_remove(*, membership: Membership) -> None:
    """Remove a member. Raises LastAdminError for the tenant's last admin."""
    if _is_last_admin(membership):
        raise LastAdminError(LAST_ADMIN_MESSAGE)
    membership.delete()


def user_get_or_create(*, username: str, password: str | None = None, email: str = "") -> tuple:
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username, defaults={"email": email})
    if created and password:
        user.set_password(password)
        user.save(update_fields=["password"])
    return user, created


@transaction.atomic
def api_key_create(
    *, tenant: Tenant, name: str, role: str = Role.OPERATOR, created_by=None
) -> tuple[ApiKey, str]:
    """Create a key and return it with the full secret, which is never retrievable again."""
    if role not in (Role.OPERATOR, Role.VIEWER):
        raise ValueError("An API key's role is operator or viewer.")
    prefix, secret, full_key = ApiKey.generate()
    key = ApiKey.objects.create(
        tenant=tenant,
        name=name,
        prefix=prefix,
        secret_hash=hash_secret(secret),
        role=role,
        created_by=created_by,
    )
    return key, full_key


@transaction.atomic
def api_key_revoke(*, key: ApiKey) -> ApiKey:
    """Revoke a key; its next request answers 401. Revoking twice keeps the first time."""
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
    return key
