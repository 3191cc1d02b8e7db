"""Writes for tenants, memberships, invitations and API keys. Views, admin and commands call these."""

import logging
import secrets
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from . import wall
from .models import ApiKey, Invitation, Membership, Role, Tenant, hash_secret

logger = logging.getLogger(__name__)


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


class InvitationClosed(Exception):
    """The invitation was already accepted, declined or revoked, or it expired."""


@transaction.atomic
def invitation_create(
    *, tenant: Tenant, email: str, role: str, invited_by, link_for: Callable[[str], str]
) -> tuple[Invitation, str]:
    """Invite `email` into `tenant` with `role`, and e-mail the invitation after the commit. Returns the
    invitation and its one-time link (`link_for(token)`; the token itself is never stored, only its hash).

    Does the same whether or not an account has this address: nobody becomes a member until they accept.
    A pending invitation of the same address to the same tenant is revoked, so only the newest link works.
    """
    if role not in Role.values:
        raise ValueError(f"role must be one of {', '.join(Role.values)}")
    email = email.strip().lower()
    now = timezone.now()
    Invitation.objects.for_tenant(tenant).filter(
        email=email, accepted_at__isnull=True, declined_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=now)
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        tenant=tenant,
        email=email,
        role=role,
        token_hash=hash_secret(token),
        invited_by=invited_by,
        expires_at=now + timedelta(days=settings.BRAIN_INVITATION_DAYS),
    )
    link = link_for(token)
    transaction.on_commit(lambda: _invitation_mail(invitation, link))
    return invitation, link


def _invitation_mail(invitation: Invitation, link: str) -> None:
    """Send the invitation through Django's e-mail backend; a mail server that fails is logged, not raised
    (the invitation stands, and the admin can invite again)."""
    inviter = invitation.invited_by.username if invitation.invited_by else "An admin"
    body = (
        f"{inviter} invited you to {invitation.tenant.name} on The Brain as {invitation.get_role_display()}.\n\n"
        f"New to The Brain? Set a password through this one-time link:\n{link}\n\n"
        "Already have an account with this address? Sign in and accept the invitation on your Invitations page.\n"
        f"The invitation expires on {invitation.expires_at:%Y-%m-%d %H:%M} UTC. If you did not expect it, ignore it."
    )
    try:
        send_mail(f"Invitation to {invitation.tenant.name} on The Brain", body, None, [invitation.email])
    except OSError:  # SMTPException is an OSError
        logger.exception("invitation %s: the e-mail could not be sent", invitation.pk)


def _lock_pending(invitation: Invitation) -> Invitation:
    locked = (
        Invitation.objects.all_tenants().select_for_update().select_related("tenant").get(pk=invitation.pk)
    )
    if locked.closed or locked.expires_at <= timezone.now():
        raise InvitationClosed("This invitation is no longer open.")
    return locked


@transaction.atomic
def invitation_accept(*, invitation: Invitation, user) -> Membership:
    """`user` accepts: they become a member with the invited role (an existing member keeps their role).
    Single use: raises InvitationClosed when it was already answered, revoked or expired. The caller checks
    that the invitation is addressed to the user (`invitations_pending_for_user`) or that they hold its link.
    Runs as the invitation's tenant (the invited person has none yet)."""
    with wall.tenant_scope(invitation.tenant_id):
        locked = _lock_pending(invitation)
        membership = Membership.objects.for_tenant(locked.tenant).filter(user=user).first()
        if membership is None:
            membership = membership_set(tenant=locked.tenant, user=user, role=locked.role)
        locked.accepted_at, locked.accepted_by = timezone.now(), user
        locked.save(update_fields=["accepted_at", "accepted_by"])
        return membership


@transaction.atomic
def invitation_decline(*, invitation: Invitation) -> None:
    """The invited person says no; the link stops working. Raises InvitationClosed as `invitation_accept`."""
    with wall.tenant_scope(invitation.tenant_id):
        locked = _lock_pending(invitation)
        locked.declined_at = timezone.now()
        locked.save(update_fields=["declined_at"])


@transaction.atomic
def invitation_revoke(*, invitation: Invitation) -> None:
    """An admin withdraws a pending invitation; its link stops working. Revoking twice keeps the first time."""
    if invitation.revoked_at is None and not invitation.closed:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])


@transaction.atomic
def invitation_accept_as_new_user(*, invitation: Invitation, password: str):
    """Create the account of the invited address (its username is the address; so is its e-mail, unless the
    link was shown to the inviting admin) with `password`, and accept for it. Returns the new user, or None when an account already has this address or username:
    that account is never changed through a link; its owner signs in and accepts on the Invitations page."""
    with wall.tenant_scope(invitation.tenant_id):
        locked = _lock_pending(invitation)
    User = get_user_model()
    if (
        User.objects.filter(email__iexact=locked.email).exists()
        or User.objects.filter(username__iexact=locked.email).exists()
    ):
        return None
    # The address is the account's e-mail only when the link reached its owner by e-mail alone: a link shown
    # to the inviting admin proves nothing about the address, so the account could not then claim the
    # address's other invitations (each needs its own link).
    email = "" if settings.BRAIN_INVITATION_LINK_SHOWN else locked.email
    user = User.objects.create_user(username=locked.email, email=email, password=password)
    invitation_accept(invitation=locked, user=user)
    return user
