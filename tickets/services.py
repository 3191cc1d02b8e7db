"""Writes for tickets and their evidence; views, admin, tasks and commands call these.

Tenants, members and keys: tickets.tenancy.services.
"""

import logging
from datetime import timedelta
from functools import partial

from django.db import transaction
from django.utils import timezone

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
        raise ValueError("external_id is required: the helpdesk's id for the ticket.")
    if status is not None and status not in TicketStatus.values:
        raise ValueError(f"status must be one of {', '.join(TicketStatus.values)}")
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
        raise ValueError(f"status must be one of {', '.join(TicketStatus.values)}")
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
    change is committed by then), so `learning_attempt_send` catches an unreachable broker.
    """
    attempt = LearningAttempt.objects.create(
        tenant_id=ticket.tenant_id, ticket=ticket, ticket_external_id=ticket.external_id, trigger=trigger
    )
    transaction.on_commit(
        partial(learning_attempt_send, tenant_id=ticket.tenant_id, ticket_id=ticket.pk, attempt_id=attempt.pk)
    )
    return attempt


def learning_attempt_send(*, tenant_id: int, ticket_id: int, attempt_id: int) -> bool:
    """Send `learn_from_ticket` for a queued attempt. Call outside a transaction (after commit).

    When the broker cannot be reached the attempt stays queued with the error noted, and
    `manage.py learning_requeue` sends it again later; returns whether it was sent.
    """
    from kombu.exceptions import OperationalError

    from .tasks import learn_from_ticket

    try:
        learn_from_ticket.delay(tenant_id, ticket_id, attempt_id=attempt_id)
    except OperationalError as exc:
        logger.warning("learning attempt %s not sent, the broker is unavailable: %s", attempt_id, exc)
        LearningAttempt.objects.for_tenant(tenant_id).filter(
            pk=attempt_id, status=LearningStatus.QUEUED
        ).update(error=f"not sent yet, the broker was unavailable: {exc}"[:2000])
        return False
    return True


def learning_attempts_requeue(*, older_than: timedelta, tenant: Tenant | None = None) -> tuple[int, int]:
    """Send again the attempts still queued after `older_than` (broker outage, lost message).

    Returns (found, sent). Safe to repeat: learning a ticket twice reinforces rather than adds.
    """
    stale = LearningAttempt.objects.all_tenants().filter(
        status=LearningStatus.QUEUED, ticket__isnull=False, created_at__lt=timezone.now() - older_than
    )
    if tenant is not None:
        stale = stale.for_tenant(tenant)
    rows = list(stale.values_list("pk", "tenant_id", "ticket_id"))
    sent = sum(
        learning_attempt_send(tenant_id=tenant_id, ticket_id=ticket_id, attempt_id=pk)
        for pk, tenant_id, ticket_id in rows
    )
    return len(rows), sent


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
        raise ValueError(f"direction must be one of {', '.join(MessageDirection.values)}")
    if not (body or "").strip():
        raise ValueError("body must not be empty.")
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
        raise ValueError("Send a category or an intent (or both).")
    if confidence is not None and not 0.0 <= confidence <= 1.0:
        raise ValueError("confidence must be between 0 and 1.")
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
        raise ValueError(f"decision must be one of {', '.join(ApprovalDecision.values)}")
    if not (proposed_action or "").strip():
        raise ValueError("proposed_action must not be empty.")
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


def learning_attempt_begin(*, tenant_id: int, ticket_id: int, attempt_id: int | None) -> LearningAttempt:
    """Mark the attempt running (creating a manual one when none was queued); counts one more try."""
    attempt = (
        LearningAttempt.objects.for_tenant(tenant_id).filter(pk=attempt_id).first() if attempt_id else None
    )
    if attempt is None:
        ticket = Ticket.objects.for_tenant(tenant_id).filter(pk=ticket_id).first()
        attempt = LearningAttempt.objects.create(
            tenant_id=tenant_id,
            ticket=ticket,
            ticket_external_id=ticket.external_id if ticket else "",
            trigger=LearningTrigger.MANUAL,
        )
    attempt.status = LearningStatus.RUNNING
    attempt.tries += 1
    attempt.started_at = attempt.started_at or timezone.now()
    attempt.save(update_fields=["status", "tries", "started_at"])
    return attempt


def _attempt_finish(attempt: LearningAttempt, status: str, **fields) -> LearningAttempt:
    for name, value in fields.items():
        setattr(attempt, name, value)
    attempt.status = status
    attempt.finished_at = timezone.now()
    attempt.save(update_fields=["status", "finished_at", *fields])
    return attempt


def learning_attempt_run(*, attempt: LearningAttempt, ticket_id: int) -> LearningAttempt:
    """Run one learning attempt: re-read the exact tenant ticket, check it, extract, promote, record.

    Skips (with its reason) when the ticket is missing, no longer terminal, or the configured provider
    needs a key that is unavailable. Raises `ProviderError` on a transient provider failure, leaving
    the attempt running with the error noted, so the task can retry; `learning_attempt_fail` records
    the final failure. Not one transaction: each promote() commits on its own, and a retry reinforces
    what an earlier try already added.
    """
    from brain.api import ProviderError, learn_from_evidence, learning_unusable_reason

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
    try:
        result = learn_from_evidence(evidence)
    except ProviderError as exc:
        attempt.error = str(exc)[:2000]
        attempt.save(update_fields=["error"])
        raise
    return _attempt_finish(
        attempt,
        LearningStatus.SUCCEEDED,
        provider=result.provider,
        candidates=result.candidates,
        added=result.added,
        reinforced=result.reinforced,
        superseded=result.superseded,
        rejected=result.rejected,
        outcomes=[
            {"type": o.type, "key": o.key, "result": o.result, "memory_id": o.memory_id, "reason": o.reason}
            for o in result.outcomes
        ],
        error="",
    )


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
