"""Tenants, memberships and API keys (tickets, messages and approvals join them later)."""

import hashlib
import hmac
import secrets

from django.conf import settings
from django.db import models

from config.tenancy import TenantScopedManager


class Tenant(models.Model):
    """A business. Everything the Brain stores belongs to exactly one tenant."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    # Per-tenant overrides of product settings (e.g. Client Brain prompt caps), validated by services.
    settings = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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
        indexes = [models.Index(fields=["tenant", "revoked_at"], name="apikey_tenant_revoked")]
        ordering = ["-created_at"]

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


# --- Tickets and their evidence (Client Brain learning, spec: client_brain.txt) -----------------------


class TicketStatus(models.TextChoices):
    NEW = "new", "New"
    OPEN = "open", "Open"
    PENDING = "pending", "Pending"
    SOLVED = "solved", "Solved"
    CLOSED = "closed", "Closed"
    RESOLVED = "resolved", "Resolved"


# The supported terminal states: newly entering one of them can start a learning attempt.
TERMINAL_STATUSES = frozenset({TicketStatus.SOLVED, TicketStatus.CLOSED, TicketStatus.RESOLVED})


def is_terminal(status: str) -> bool:
    return status in TERMINAL_STATUSES


class Ticket(models.Model):
    """A helpdesk ticket, identified by the helpdesk's own id (`external_id`, unique per tenant)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="tickets")
    external_id = models.CharField(max_length=128)
    subject = models.CharField(max_length=500, blank=True, default="")
    status = models.CharField(max_length=16, choices=TicketStatus.choices, default=TicketStatus.NEW)
    requester = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    status_changed_at = models.DateTimeField(null=True, blank=True)

    objects = TenantScopedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "external_id"], name="ticket_unique_external_id")
        ]
        indexes = [
            models.Index(fields=["tenant", "status", "-updated_at"], name="ticket_tenant_status"),
            models.Index(fields=["tenant", "-updated_at", "-id"], name="ticket_tenant_updated"),
        ]
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.external_id} {self.subject[:60]}"

    @property
    def is_terminal(self) -> bool:
        return is_terminal(self.status)


class MessageDirection(models.TextChoices):
    INBOUND = "inbound", "Inbound (customer)"
    OUTBOUND = "outbound", "Outbound (agent)"


class Message(models.Model):
    """One message on a ticket. Notes are internal and never count as the reply sent to the customer."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="messages")
    # The helpdesk's id; optional, but when given a repeated add is idempotent.
    external_id = models.CharField(max_length=128, blank=True, default="")
    direction = models.CharField(max_length=16, choices=MessageDirection.choices)
    is_note = models.BooleanField(default=False)
    author = models.CharField(max_length=255, blank=True, default="")
    body = models.TextField()
    sent_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "ticket", "external_id"],
                condition=~models.Q(external_id=""),
                name="message_unique_external_id",
            )
        ]
        indexes = [
            models.Index(
                fields=["tenant", "ticket", "direction", "-sent_at"], name="message_tenant_ticket_dir"
            ),
        ]
        ordering = ["sent_at", "id"]

    def __str__(self) -> str:
        return f"{self.direction}{' note' if self.is_note else ''} on {self.ticket_id}: {self.body[:40]}"


class Classification(models.Model):
    """A classification of a ticket (by the helpdesk or a classifier). The latest one counts."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="classifications")
    category = models.CharField(max_length=120, blank=True, default="")
    intent = models.CharField(max_length=120, blank=True, default="")
    labels = models.JSONField(default=list, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "ticket", "-created_at", "-id"], name="classif_tenant_ticket"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.category}/{self.intent} on {self.ticket_id}"


class ApprovalDecision(models.TextChoices):
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class Approval(models.Model):
    """Approval evidence: a proposed action on a ticket, approved or rejected, by whom, when."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="approvals")
    proposed_action = models.TextField()
    # What sort of action it was (refund, replacement, escalation, reply...), as the helpdesk names it.
    kind = models.CharField(max_length=64, blank=True, default="")
    decision = models.CharField(max_length=16, choices=ApprovalDecision.choices)
    decided_by = models.CharField(max_length=255, blank=True, default="")
    decided_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "ticket", "-decided_at"], name="approval_tenant_ticket"),
        ]
        ordering = ["-decided_at", "-id"]

    def __str__(self) -> str:
        return f"{self.decision}: {self.proposed_action[:60]}"


class LearningStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    SKIPPED = "skipped", "Skipped"
    FAILED = "failed", "Failed"


class LearningSkipReason(models.TextChoices):
    TICKET_MISSING = "ticket_missing", "Ticket missing"
    NOT_TERMINAL = "not_terminal", "No longer terminal"
    PROVIDER_KEY_MISSING = "provider_key_missing", "Provider key missing"
    NO_EVIDENCE = "no_evidence", "No usable evidence"


class LearningTrigger(models.TextChoices):
    TERMINAL_TRANSITION = "terminal_transition", "Ticket entered a terminal state"
    MANUAL = "manual", "Requested manually"


class LearningAttempt(models.Model):
    """One attempt to learn from one ticket: its outcome, skip reason and what promote() did.

    The ticket link is SET_NULL so the record outlives a deleted ticket; `ticket_external_id` keeps
    which ticket it was.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="learning_attempts")
    ticket = models.ForeignKey(
        Ticket, null=True, blank=True, on_delete=models.SET_NULL, related_name="learning_attempts"
    )
    ticket_external_id = models.CharField(max_length=128, blank=True, default="")
    trigger = models.CharField(
        max_length=24, choices=LearningTrigger.choices, default=LearningTrigger.TERMINAL_TRANSITION
    )
    status = models.CharField(max_length=16, choices=LearningStatus.choices, default=LearningStatus.QUEUED)
    skip_reason = models.CharField(max_length=32, choices=LearningSkipReason.choices, blank=True, default="")
    provider = models.CharField(max_length=32, blank=True, default="")
    tries = models.PositiveSmallIntegerField(default=0)
    candidates = models.PositiveIntegerField(default=0)
    added = models.PositiveIntegerField(default=0)
    reinforced = models.PositiveIntegerField(default=0)
    superseded = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    # Per candidate: type, result, memory id, reason (what promote() decided).
    outcomes = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = TenantScopedManager()

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "-created_at", "-id"], name="learning_tenant_created"),
            models.Index(fields=["tenant", "status", "skip_reason"], name="learning_tenant_status"),
            models.Index(fields=["tenant", "ticket"], name="learning_tenant_ticket"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        reason = f" ({self.skip_reason})" if self.skip_reason else ""
        return f"learning #{self.ticket_external_id}: {self.status}{reason}"
