"""Tenants, roles, memberships, API keys and invitations: the ground floor every app stands on.

Models of the tenancy app (app_label "tenancy"); their tables keep the names they had as models of the
`tickets` app (`db_table`), so moving them was a state-only migration.
"""

import hashlib
import hmac
import secrets

from django.conf import settings
from django.db import models

from .managers import TenantScopedManager


class Tenant(models.Model):
    """A business. Everything the Brain stores belongs to exactly one tenant."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    # Per-tenant overrides of product settings (e.g. Client Brain prompt caps), validated by services.
    settings = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "tickets_tenant"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    ADMIN = "admin", "Admin"
    OPERATOR = "operator", "Operator"
    VIEWER = "viewer", "Viewer"


ROLE_RANK = {Role.VIEWER: 1, Role.OPERATOR: 2, Role.ADMIN: 3}


def role_at_least(role: str, required: str) -> bool:
    return ROLE_RANK.get(role, 0) >= ROLE_RANK[required]


class Membership(models.Model):
    """A user's place in a tenant: viewers read, operators edit, admins manage members and keys."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.OPERATOR)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        db_table = "tickets_membership"
        constraints = [
            models.UniqueConstraint(fields=["tenant", "user"], name="membership_unique_user_per_tenant")
        ]
        indexes = [models.Index(fields=["tenant", "role"], name="membership_tenant_role")]
        ordering = ["tenant_id", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} in {self.tenant} ({self.role})"


KEY_PREFIX = "brn"
API_KEY_ROLES = [(Role.OPERATOR.value, "Operator"), (Role.VIEWER.value, "Viewer")]


def hash_secret(secret: str) -> str:
    """Keys are 256-bit random tokens, so a fast digest suffices (no dictionary to guess from)."""
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiKey(models.Model):
    """A tenant's key for agents and the helpdesk. Only a hash of the secret is stored.

    The full key is `brn_<prefix>_<secret>`; the prefix is public (shown in lists, used for lookup),
    the secret is shown once at creation and never again.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True, editable=False)
    secret_hash = models.CharField(max_length=64, editable=False)
    role = models.CharField(
        max_length=16,
        choices=API_KEY_ROLES,
        default=Role.OPERATOR,
        help_text="Keys never carry the admin role: managing members and keys needs a signed-in admin.",
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = TenantScopedManager()

    class Meta:
        db_table = "tickets_apikey"
        indexes = [models.Index(fields=["tenant", "revoked_at"], name="apikey_tenant_revoked")]
        ordering = ["-created_at"]
        verbose_name, verbose_name_plural = "API key", "API keys"

    def __str__(self) -> str:
        return f"{self.name} ({KEY_PREFIX}_{self.prefix}_…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @staticmethod
    def generate() -> tuple[str, str, str]:
        """Returns (prefix, secret, full key)."""
        prefix = secrets.token_hex(4)
        secret = secrets.token_urlsafe(32)
        return prefix, secret, f"{KEY_PREFIX}_{prefix}_{secret}"

    def matches(self, secret: str) -> bool:
        return hmac.compare_digest(self.secret_hash, hash_secret(secret))

    @staticmethod
    def parse(raw: str) -> tuple[str, str] | None:
        parts = raw.strip().split("_", 2)
        if len(parts) != 3 or parts[0] != KEY_PREFIX or not parts[1] or not parts[2]:
            return None
        return parts[1], parts[2]


class Invitation(models.Model):
    """An admin's invitation of an e-mail address into a tenant with a role; a membership exists only once
    the invited person accepts (an existing user on their Invitations page, a new one by setting a password
    through the one-time link). Only a hash of the link's token is stored. Pending while none of accepted,
    declined or revoked is set and `expires_at` is in the future."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField(help_text="Stored lower-cased; matched against a user's e-mail address.")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.OPERATOR)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    declined_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = TenantScopedManager()

    class Meta:
        db_table = "tickets_invitation"
        indexes = [
            models.Index(fields=["tenant", "email"], name="invitation_tenant_email"),
            models.Index(fields=["email"], name="invitation_email"),
        ]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.email} to {self.tenant} ({self.role})"

    @property
    def closed(self) -> bool:
        return bool(self.accepted_at or self.declined_at or self.revoked_at)
