"""Reads for tickets and the evidence learning reads (tenants, members and keys: tickets.tenancy.selectors)."""

from datetime import date
from typing import TYPE_CHECKING

from .models import Approval, Classification, Message, MessageDirection, Ticket
from .tenancy.models import Tenant

if TYPE_CHECKING:
    from brain.api import TicketEvidence


def ticket_get(*, tenant: Tenant | int, external_id: str) -> Ticket | None:
    """The tenant's ticket with this helpdesk id, or None (another tenant's ticket is None too)."""
    return Ticket.objects.for_tenant(tenant).filter(external_id=external_id).first()


def ticket_recall_text(*, tenant_id: int, ticket_id: str) -> dict[str, str] | None:
    """What Client Brain recall reads of a ticket: its subject and latest customer (inbound, non-note) message.

    Registered by name ("ticket_recall_text", TicketsConfig.ready()), so `brain` reaches it without importing
    tickets.
    None for a missing ticket and for another tenant's alike.
    """
    ticket = ticket_get(tenant=tenant_id, external_id=ticket_id)
    if ticket is None:
        return None
    latest = (
        Message.objects.for_tenant(tenant_id)
        .filter(ticket=ticket, direction=MessageDirection.INBOUND, is_note=False)
        .order_by("-sent_at", "-id")
        .values_list("body", flat=True)
        .first()
    )
    return {"subject": ticket.subject, "latest_customer_message": latest or ""}


def ticket_evidence(*, ticket: Ticket) -> "TicketEvidence":
    """The evidence bundle Client Brain learns from, and nothing else (spec: Memory extraction).

    The ticket itself, its latest classification, its latest outbound non-note message, and its
    approval evidence. Knowledge-base content, CSAT ratings, canned responses and generic response
    ratings are not direct training sources, so this bundle has no field that could carry them; inbound
    messages and internal notes are left out too.
    """
    from brain.api import TicketEvidence  # brain's public module; imported late to keep app loading light

    tenant_id = ticket.tenant_id
    classification = (
        Classification.objects.for_tenant(tenant_id)
        .filter(ticket=ticket)
        .order_by("-created_at", "-id")
        .first()
    )
    reply = (
        Message.objects.for_tenant(tenant_id)
        .filter(ticket=ticket, direction=MessageDirection.OUTBOUND, is_note=False)
        .order_by("-sent_at", "-id")
        .first()
    )
    approvals = Approval.objects.for_tenant(tenant_id).filter(ticket=ticket).order_by("decided_at", "id")
    return TicketEvidence(
        tenant_id=tenant_id,
        ticket_id=ticket.pk,
        external_id=ticket.external_id,
        subject=ticket.subject,
        status=ticket.status,
        customer=ticket.requester,
        classification=(
            {
                "category": classification.category,
                "intent": classification.intent,
                "labels": list(classification.labels or []),
                "confidence": classification.confidence,
            }
            if classification
            else None
        ),
        latest_reply=(
            {"body": reply.body, "author": reply.author, "sent_at": reply.sent_at.isoformat()}
            if reply
            else None
        ),
        approvals=[
            {
                "proposed_action": a.proposed_action,
                "kind": a.kind,
                "decision": a.decision,
                "decided_by": a.decided_by,
                "decided_at": a.decided_at.isoformat(),
            }
            for a in approvals
        ],
    )


# --- The operator UI's Learning page and charts (reads of learning attempts, tenant first) ---------------


def learning_attempts_recent(*, tenant: Tenant | int, ticket_external_id: str = "", limit: int = 50):
    """The tenant's newest learning attempts (one ticket's when `ticket_external_id` is given)."""
    from .models import LearningAttempt

    attempts = LearningAttempt.objects.for_tenant(tenant)
    if ticket_external_id:
        attempts = attempts.filter(ticket_external_id=ticket_external_id)
    return attempts.order_by("-created_at", "-id")[:limit]


LEARNED_OUTCOMES = ("added", "reinforced", "superseded", "rejected")


def learned_per_day(*, tenant: Tenant | int, days: int = 14) -> list[tuple[date, dict[str, int]]]:
    """For each of the last `days` days (oldest first, today last): the memories learning added, reinforced,
    superseded and rejected, summed from the learning attempts created that day. One grouped statement."""
    from datetime import timedelta

    from django.db.models import Sum
    from django.db.models.functions import TruncDate
    from django.utils import timezone

    from .models import LearningAttempt

    today = timezone.localdate()
    first = today - timedelta(days=days - 1)
    rows = (
        LearningAttempt.objects.for_tenant(tenant)
        .filter(created_at__date__gte=first)
        .annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(**{name: Sum(name) for name in LEARNED_OUTCOMES})
    )
    by_day = {row["day"]: {name: row[name] or 0 for name in LEARNED_OUTCOMES} for row in rows}
    return [(first + timedelta(days=i), by_day.get(first + timedelta(days=i), {})) for i in range(days)]
