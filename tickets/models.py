"""The helpdesk's models: tickets, their messages, classifications, approvals and learning attempts.

The tenant and its members and keys are in `tickets.tenancy.models` (the ground floor).
"""

from django.db import models

from .tenancy.managers import TenantScopedManager
from .tenancy.models import Tenant

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
    # The tenant's daily LLM allowance is spent; the requeue sends the attempt again the next day.
    BUDGET_EXHAUSTED = "budget_exhausted", "Daily LLM budget exhausted"


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
    # The lease: a queued attempt's message is expected to reach a worker, and a running attempt to finish,
    # before this moment; past it, the requeue task sends it again. Null: queued but not sent (broker down),
    # due at once; or finished.
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    objects = TenantScopedManager()

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "-created_at", "-id"], name="learning_tenant_created"),
            models.Index(fields=["tenant", "status", "skip_reason"], name="learning_tenant_status"),
            models.Index(fields=["tenant", "ticket"], name="learning_tenant_ticket"),
            # The requeue sweep reads the unfinished attempts of every tenant by lease: a small partial index
            # (finished attempts are most rows). Sharded by tenant, each shard runs the sweep on its own rows.
            models.Index(
                fields=["lease_expires_at"],
                condition=models.Q(status__in=["queued", "running"]),
                name="learning_unfinished_lease",
            ),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        reason = f" ({self.skip_reason})" if self.skip_reason else ""
        return f"learning #{self.ticket_external_id}: {self.status}{reason}"
