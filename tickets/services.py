"""Writes for tickets and their evidence; views, admin, tasks and commands call these.

Tenants, members and keys: tickets.tenancy.services.
"""

import logging
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from config.celery import task_named

from .errors import TicketInputError
from .models import (
    Approval,
    ApprovalDecision,
    Classification,
    LearningAttempt,
    LearningSkipReason,
    LearningStatus,
    LearningTrigger,
    Message,
    MessageDirection,
    Ticket,
    TicketStatus,
    is_terminal,
)
from .tenancy.models import Tenant

logger = logging.getLogger(__name__)


# --- Tickets, their evidence, and the learning trigger ------------------------------------------------


@transaction.atomic
def ticket_upsert(
    *,
    tenant: Tenant,
    external_id: str,
    subject: str | None = None,
    requester: str | None = None,
    status: str | None = None,
) -> tuple[Ticket, bool]:
    """Create or update the tenant's ticket with this external id. Idempotent; returns (ticket, created).

    A status goes through `ticket_transition`, so an upsert that solves a ticket triggers learning
    exactly like an explicit status change does.
    """
    external_id = (external_id or "").strip()
    if not external_id:
        raise TicketInputError("external_id is required: the helpdesk's id for the ticket.")
    if status is not None and status not in TicketStatus.values:
        raise TicketInputError(f"status must be one of {', '.join(TicketStatus.values)}")
    values = {"subject": subject, "requester": requester}
    ticket, created = Ticket.objects.for_tenant(tenant).get_or_create(
        tenant=tenant,
        external_id=external_id,
        defaults={
            **{k: v for k, v in values.items() if v is not None},
            "status": TicketStatus.NEW,
        },
    )
    if not created:
        changed = [k for k, v in values.items() if v is not None and getattr(ticket, k) != v]
        for name in changed:
            setattr(ticket, name, values[name])
        if changed:
            ticket.save(update_fields=[*changed, "updated_at"])
    if status is not None:
        ticket = ticket_transition(ticket=ticket, status=status)
    return ticket, created


@transaction.atomic
def ticket_transition(*, ticket: Ticket, status: str) -> Ticket:
    """Set the ticket's status. Learning is requested only when it NEWLY enters a terminal state.

    Not on a re-save of the same status, not terminal → terminal; a reopened ticket that is solved
    again does trigger again. The row is locked (select_for_update) so two concurrent transitions see
    each other's result and trigger once. The learning task is enqueued after commit, with a queued
    LearningAttempt recorded in the same transaction.
    """
    if status not in TicketStatus.values:
        raise TicketInputError(f"status must be one of {', '.join(TicketStatus.values)}")
    locked = Ticket.objects.for_tenant(ticket.tenant_id).select_for_update().get(pk=ticket.pk)
    previous = locked.status
    if previous == status:
        return locked
    locked.status = status
    locked.status_changed_at = timezone.now()
    locked.save(update_fields=["status", "status_changed_at", "updated_at"])
    if is_terminal(status) and not is_terminal(previous):
        learning_request(ticket=locked, trigger=LearningTrigger.TERMINAL_TRANSITION)
    return locked


@transaction.atomic
def learning_request(*, ticket: Ticket, trigger: str = LearningTrigger.MANUAL) -> LearningAttempt:
    """Record a queued learning attempt for `ticket` and send `learn_from_ticket` after commit.

    Not `enqueue_after_commit`: the send must not raise into the request that changed the status (the
    change is committed by then), so `learning_attempt_send` catches an unreachable broker. The attempt is
    queued under a lease: if no worker has taken it by then, the requeue task sends it again.
    """
    attempt = LearningAttempt.objects.create(
        tenant_id=ticket.tenant_id,
        ticket=ticket,
        ticket_external_id=ticket.external_id,
        trigger=trigger,
        lease_expires_at=_lease_from_now(settings.BRAIN_LEARNING_QUEUE_LEASE),
    )
    transaction.on_commit(
        partial(learning_attempt_send, tenant_id=ticket.tenant_id, ticket_id=ticket.pk, attempt_id=attempt.pk)
    )
    return attempt


def _lease_from_now(seconds: float):
    return timezone.now() + timedelta(seconds=seconds)


def learning_attempt_send(*, tenant_id: int, ticket_id: int, attempt_id: int) -> bool:
    """Send `learn_from_ticket` for a queued attempt. Call outside a transaction (after commit).

    When the broker cannot be reached the attempt stays queued with the error noted and no lease, so the
    requeue task (beat) or `manage.py learning_requeue` sends it again later; returns whether it was sent.
    Never raises: it runs after the status change committed, and nothing may turn that into a 500.
    """
    try:
        task_named("tickets.learn_from_ticket").delay(tenant_id, ticket_id, attempt_id=attempt_id)
    except Exception as exc:  # kombu's OperationalError, a result backend's RuntimeError, a socket error...
        logger.warning("learning attempt %s not sent, the broker is unavailable: %r", attempt_id, exc)
        LearningAttempt.objects.for_tenant(tenant_id).filter(
            pk=attempt_id, status=LearningStatus.QUEUED
        ).update(error=f"not sent yet, the broker was unavailable: {exc}"[:2000], lease_expires_at=None)
        return False
    return True


@dataclass(frozen=True)
class RequeueResult:
    """One pass of the requeue: attempts found due, and how many of them were sent."""

    found: int
    sent: int
    expired_leases: int  # running attempts whose worker died (lease ran out)
    unsent: int  # queued attempts never sent (broker outage) or waiting past their lease
    budget_resumed: int  # skipped for an exhausted daily budget on an earlier day


def _due_attempts(now, older_than: timedelta | None):
    """The attempts a requeue pass sends again, across tenants (a maintenance sweep, like the admin's)."""
    unfinished = Q(status__in=[LearningStatus.QUEUED, LearningStatus.RUNNING]) & (
        Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now)
    )
    if older_than is not None:
        unfinished |= Q(status=LearningStatus.QUEUED, created_at__lt=now - older_than)
    # Resume the next day: skipped because the tenant's daily LLM budget was spent, on an earlier day.
    start_of_today = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    budget = Q(
        status=LearningStatus.SKIPPED,
        skip_reason=LearningSkipReason.BUDGET_EXHAUSTED,
        finished_at__lt=start_of_today,
    )
    return LearningAttempt.objects.all_tenants().filter(unfinished | budget, ticket__isnull=False)


def learning_attempts_requeue(
    *, older_than: timedelta | None = None, tenant: Tenant | None = None, limit: int = 1000
) -> RequeueResult:
    """Send again every attempt that is due: its lease ran out (a killed worker, a lost message), it was
    never sent (a broker outage), or it waited for tomorrow's budget. With `older_than`, also attempts
    queued for longer than that, whatever their lease. The periodic task and `learning_requeue` call this.

    Each due attempt is first put back to queued under a fresh lease by a conditional update, so two
    passes running at once send it once; a worker still holding a message for it finds it taken or finished
    and does nothing (`learning_attempt_claim`). Safe to repeat.
    """
    now = timezone.now()
    due = _due_attempts(now, older_than)
    if tenant is not None:
        due = due.for_tenant(tenant)
    rows = list(
        due.order_by("lease_expires_at", "id").values_list("pk", "tenant_id", "ticket_id", "status")[:limit]
    )
    counts = {LearningStatus.RUNNING: 0, LearningStatus.QUEUED: 0, LearningStatus.SKIPPED: 0}
    sent = found = 0
    lease = _lease_from_now(settings.BRAIN_LEARNING_QUEUE_LEASE)
    for pk, tenant_id, ticket_id, status in rows:
        taken = (
            _due_attempts(now, older_than)
            .filter(pk=pk, status=status)
            .update(status=LearningStatus.QUEUED, skip_reason="", finished_at=None, lease_expires_at=lease)
        )
        if not taken:  # a worker took it, or another pass did, since the read
            continue
        found += 1
        counts[status] += 1
        sent += learning_attempt_send(tenant_id=tenant_id, ticket_id=ticket_id, attempt_id=pk)
    return RequeueResult(
        found=found,
        sent=sent,
        expired_leases=counts[LearningStatus.RUNNING],
        unsent=counts[LearningStatus.QUEUED],
        budget_resumed=counts[LearningStatus.SKIPPED],
    )


@transaction.atomic
def message_add(
    *,
    ticket: Ticket,
    direction: str,
    body: str,
    is_note: bool = False,
    author: str = "",
    sent_at=None,
    external_id: str = "",
) -> tuple[Message, bool]:
    """Add a message to the ticket; returns (message, created). With an external id, idempotent."""
    if direction not in MessageDirection.values:
        raise TicketInputError(f"direction must be one of {', '.join(MessageDirection.values)}")
    if not (body or "").strip():
        raise TicketInputError("body must not be empty.")
    fields = {
        "direction": direction,
        "body": body,
        "is_note": is_note,
        "author": author,
        "sent_at": sent_at or timezone.now(),
    }
    if external_id:
        message, created = Message.objects.for_tenant(ticket.tenant_id).get_or_create(
            tenant_id=ticket.tenant_id, ticket=ticket, external_id=external_id, defaults=fields
        )
    else:
        message, created = Message.objects.create(tenant_id=ticket.tenant_id, ticket=ticket, **fields), True
    if created:
        ticket.save(update_fields=["updated_at"])
    return message, created


@transaction.atomic
def classification_add(
    *,
    ticket: Ticket,
    category: str = "",
    intent: str = "",
    labels: list[str] | None = None,
    confidence: float | None = None,
) -> Classification:
    """Record a classification of the ticket. The latest one is the one learning reads."""
    if not (category or intent):
        raise TicketInputError("Send a category or an intent (or both).")
    if confidence is not None and not 0.0 <= confidence <= 1.0:
        raise TicketInputError("confidence must be between 0 and 1.")
    return Classification.objects.create(
        tenant_id=ticket.tenant_id,
        ticket=ticket,
        category=category,
        intent=intent,
        labels=list(labels or []),
        confidence=confidence,
    )


@transaction.atomic
def approval_record(
    *,
    ticket: Ticket,
    proposed_action: str,
    decision: str,
    kind: str = "",
    decided_by: str = "",
    decided_at=None,
) -> Approval:
    """Record approval evidence: a proposed action on the ticket, approved or rejected, by whom, when."""
    if decision not in ApprovalDecision.values:
        raise TicketInputError(f"decision must be one of {', '.join(ApprovalDecision.values)}")
    if not (proposed_action or "").strip():
        raise TicketInputError("proposed_action must not be empty.")
    return Approval.objects.create(
        tenant_id=ticket.tenant_id,
        ticket=ticket,
        proposed_action=proposed_action,
        kind=kind,
        decision=decision,
        decided_by=decided_by,
        decided_at=decided_at or timezone.now(),
    )


# --- The learning attempt (run by the learn_from_ticket task) -----------------------------------------


class LeaseLost(Exception):
    """Another delivery of the same attempt took it over (this one outlived its lease): stop, write nothing."""


def learning_attempt_claim(
    *, tenant_id: int, ticket_id: int, attempt_id: int | None
) -> LearningAttempt | None:
    """Take the attempt's lease and mark it running; counts one more try. None: not this delivery's to run.

    A message may be delivered more than once (Redis's visibility timeout, RabbitMQ after a killed worker,
    the requeue task's re-send): only a queued attempt, or a running one whose lease ran out, is taken, in
    one conditional update, so two deliveries never run it at once and a finished attempt is never run
    again. `tries` is the fencing token: every later write of this run checks it is still the latest try.
    Without an attempt id (a manual run) a new attempt is created and taken.
    """
    if attempt_id is None:
        ticket = Ticket.objects.for_tenant(tenant_id).filter(pk=ticket_id).first()
        attempt_id = LearningAttempt.objects.create(
            tenant_id=tenant_id,
            ticket=ticket,
            ticket_external_id=ticket.external_id if ticket else "",
            trigger=LearningTrigger.MANUAL,
        ).pk
    now = timezone.now()
    claimable = Q(status=LearningStatus.QUEUED) | Q(
        Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now), status=LearningStatus.RUNNING
    )
    attempts = LearningAttempt.objects.for_tenant(tenant_id)
    taken = attempts.filter(claimable, pk=attempt_id).update(
        status=LearningStatus.RUNNING,
        tries=F("tries") + 1,
        started_at=Coalesce("started_at", now),
        lease_expires_at=now + timedelta(seconds=settings.BRAIN_LEARNING_LEASE),
    )
    return attempts.get(pk=attempt_id) if taken else None


def _fenced(attempt: LearningAttempt):
    """The attempt's row, only while this run's try is the latest and still running."""
    return LearningAttempt.objects.for_tenant(attempt.tenant_id).filter(
        pk=attempt.pk, tries=attempt.tries, status=LearningStatus.RUNNING
    )


def _attempt_finish(attempt: LearningAttempt, status: str, **fields) -> LearningAttempt:
    for name, value in fields.items():
        setattr(attempt, name, value)
    attempt.status = status
    attempt.finished_at = timezone.now()
    attempt.lease_expires_at = None
    if not _fenced(attempt).update(
        status=status, finished_at=attempt.finished_at, lease_expires_at=None, **fields
    ):
        logger.warning(
            "learning attempt %s: try %s lost its lease; its result is not recorded",
            attempt.pk,
            attempt.tries,
        )
        attempt.refresh_from_db()
    return attempt


def _attempt_succeed(attempt: LearningAttempt, *, provider: str, candidates: int) -> LearningAttempt:
    counts = Counter(o["result"] for o in attempt.outcomes)
    return _attempt_finish(
        attempt,
        LearningStatus.SUCCEEDED,
        skip_reason="",
        provider=provider,
        candidates=candidates,
        added=counts["added"],
        reinforced=counts["reinforced"],
        superseded=counts["superseded"],
        rejected=counts["rejected"],
        outcomes=attempt.outcomes,
        error="",
    )


class _AttemptLedger:
    """The attempt's record of promoted candidates (`outcomes`), written in the candidates' transaction; the
    attempt succeeds in that same write (`finished`), so its result commits with its candidates."""

    def __init__(self, attempt: LearningAttempt):
        self.attempt = attempt
        self.finished = False

    def claim(self, identities: list[str]) -> set[str]:
        row = _fenced(self.attempt).select_for_update().values_list("outcomes", flat=True).first()
        if row is None:
            raise LeaseLost(f"learning attempt {self.attempt.pk}: try {self.attempt.tries} lost its lease")
        self.attempt.outcomes = list(row)
        done = {o.get("candidate") for o in self.attempt.outcomes}
        return {identity for identity in identities if identity not in done}

    def record(self, outcomes, *, provider: str, candidates: int) -> None:
        self.attempt.outcomes += [
            {
                "candidate": identity,
                "type": outcome.type,
                "key": outcome.key,
                "result": outcome.result,
                "memory_id": outcome.memory_id,
                "reason": outcome.reason,
            }
            for identity, outcome in outcomes
        ]
        # The row is locked since `claim` (fenced there): this write cannot miss it.
        _attempt_succeed(self.attempt, provider=provider, candidates=candidates)
        self.finished = True


def learning_attempt_run(*, attempt: LearningAttempt, ticket_id: int) -> LearningAttempt:
    """Run one learning attempt: re-read the exact tenant ticket, check it, extract, promote, record.

    Skips (with its reason) when the ticket is missing, no longer terminal, the configured provider
    needs a key that is unavailable, or the tenant's daily LLM budget is spent. Raises `ProviderError` on
    a transient provider failure, leaving the attempt running with the error noted, so the task can
    retry; `learning_attempt_fail` records the final failure. The ticket's candidates commit together with
    their record in the attempt's ledger (the write that also closes the attempt as succeeded), so a try
    that dies half-way and a later try of the same attempt write each candidate once. Raises `LeaseLost`
    when another try took the attempt over.
    """
    from brain.api import (
        BudgetExhausted,
        ProviderError,
        learn_from_evidence,
        learning_unusable_reason,
        spend_scope,
    )

    from .selectors import ticket_evidence

    ticket = Ticket.objects.for_tenant(attempt.tenant_id).filter(pk=ticket_id).first()
    if ticket is None:
        return _attempt_finish(attempt, LearningStatus.SKIPPED, skip_reason=LearningSkipReason.TICKET_MISSING)
    if not ticket.is_terminal:
        return _attempt_finish(attempt, LearningStatus.SKIPPED, skip_reason=LearningSkipReason.NOT_TERMINAL)
    unusable = learning_unusable_reason()
    if unusable:
        reason = (
            unusable if unusable in LearningSkipReason.values else LearningSkipReason.PROVIDER_KEY_MISSING
        )
        return _attempt_finish(attempt, LearningStatus.SKIPPED, skip_reason=reason)
    evidence = ticket_evidence(ticket=ticket)
    if evidence.latest_reply is None and evidence.classification is None and not evidence.approvals:
        return _attempt_finish(attempt, LearningStatus.SKIPPED, skip_reason=LearningSkipReason.NO_EVIDENCE)
    ledger = _AttemptLedger(attempt)
    try:
        with spend_scope(tenant_id=attempt.tenant_id):
            result = learn_from_evidence(evidence, ledger)
    except BudgetExhausted as exc:
        return _attempt_finish(
            attempt,
            LearningStatus.SKIPPED,
            skip_reason=LearningSkipReason.BUDGET_EXHAUSTED,
            error=str(exc)[:2000],
        )
    except ProviderError as exc:
        attempt.error = str(exc)[:2000]
        _fenced(attempt).update(error=attempt.error)
        raise
    if ledger.finished:  # closed with its candidates' transaction
        return attempt
    return _attempt_succeed(attempt, provider=result.provider, candidates=result.candidates)


def learning_attempt_retry_later(*, attempt: LearningAttempt, countdown: float) -> LearningAttempt:
    """Put the attempt back to queued for a retry in `countdown` seconds, its lease covering the wait."""
    attempt.status = LearningStatus.QUEUED
    attempt.lease_expires_at = _lease_from_now(countdown + settings.BRAIN_LEARNING_LEASE)
    _fenced(attempt).update(status=attempt.status, lease_expires_at=attempt.lease_expires_at)
    return attempt


def learning_attempt_fail(*, attempt: LearningAttempt, error: str) -> LearningAttempt:
    """Record that the attempt failed for good (retries exhausted, or an unexpected error); the tenant's
    webhooks hear of it (learning.attempt_failed) after the commit."""
    from .webhooks.models import WebhookEndpoint, WebhookEvent
    from .webhooks.services import webhook_event_publish

    attempt = _attempt_finish(attempt, LearningStatus.FAILED, error=error[:2000])
    data = {
        "attempt_id": attempt.pk,
        "ticket_external_id": attempt.ticket_external_id,
        "trigger": attempt.trigger,
        "error": attempt.error,
    }
    if WebhookEndpoint.objects.for_tenant(attempt.tenant_id).filter(is_active=True).exists():
        transaction.on_commit(
            lambda: webhook_event_publish(
                tenant_id=attempt.tenant_id, event=WebhookEvent.LEARNING_ATTEMPT_FAILED, data=data
            )
        )
    return attempt
