"""Builders for tickets with realistic evidence, shared by the learning tests."""

from tickets import services
from tickets.models import Ticket

FORMAL_REPLY = """Dear Ms Novak,

We apologise for any inconvenience caused by the damaged tent pole. We have dispatched a replacement pole set \
by express courier at no charge, and it should arrive within two working days.
We offer a two-year warranty on all tent poles and frames.
Please do not hesitate to contact us should you require anything further.

Kind regards,
Helena
Acme Outdoor Gear Customer Care"""

CUSTOMER_MESSAGE = "My tent pole snapped on the first night. INBOUND-MARKER order 55512."
NOTE = "NOTE-MARKER: customer seems annoyed, CSAT 2/5, used canned response #12"


def ticket_with_evidence(
    tenant, external_id: str = "T-100", *, reply: str = FORMAL_REPLY, approve: bool = True
) -> Ticket:
    ticket, _ = services.ticket_upsert(
        tenant=tenant, external_id=external_id, subject="Tent pole snapped on first trip", status="open"
    )
    services.classification_add(ticket=ticket, category="product", intent="old_intent")
    services.classification_add(
        ticket=ticket, category="product_quality", intent="damaged_item", confidence=0.92
    )
    services.message_add(ticket=ticket, direction="inbound", body=CUSTOMER_MESSAGE, author="customer")
    services.message_add(
        ticket=ticket, direction="outbound", body="Thanks, we are looking into it. OLD-REPLY-MARKER"
    )
    services.message_add(ticket=ticket, direction="outbound", body=reply, author="Helena")
    services.message_add(ticket=ticket, direction="outbound", body=NOTE, is_note=True, author="Helena")
    if approve:
        services.approval_record(
            ticket=ticket,
            proposed_action="Send a free replacement pole set by express courier",
            kind="replacement",
            decision="approved",
            decided_by="lead@acme.test",
        )
        services.approval_record(
            ticket=ticket,
            proposed_action="Refund the full tent price REJECTED-MARKER",
            kind="refund",
            decision="rejected",
            decided_by="lead@acme.test",
        )
    return ticket
