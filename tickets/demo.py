"""Demo support tickets for the demo tenants, learned into Client Brain memories through the real pipeline.

`seed_demo(tenant, stdout)` is called by `manage.py seed_demo` for each demo tenant. It is idempotent:
tickets, messages and approvals are keyed by their helpdesk ids, classifications are only added to a
ticket created in this run, and solving an already solved ticket is a re-save (no new learning).
The tickets were written for this project: an outdoor gear retailer ("acme") and a telecom ("globex").
Solving goes through `ticket_transition`, so learning runs exactly as in production: on a Celery worker
when a broker is configured, in-process otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from . import services
from .models import LearningAttempt, Ticket
from .tenancy.models import Tenant


@dataclass(frozen=True)
class DemoTicket:
    external_id: str
    subject: str
    requester: str
    customer_message: str
    reply: str
    category: str
    intent: str
    approvals: list[tuple[str, str, str]] = field(default_factory=list)  # (proposed action, kind, decision)
    note: str = ""


ACME_SIGN_OFF = "\n\nCheers,\nThe Acme Outdoor crew"

ACME_TICKETS = [
    DemoTicket(
        "ACME-1001",
        "Tent pole snapped on the first night",
        "jamie.r@example.com",
        "The main pole of my Ridgeline 2 snapped the first night out. Can I get a replacement?",
        "Hi Jamie,\n\nSo sorry your first night out ended like that! I've sent a replacement pole set by express "
        "courier, no charge, and it should be with you in two working days. "
        "We offer a two-year warranty on all tent poles and frames." + ACME_SIGN_OFF,
        "product_quality",
        "damaged_item",
        [("Send a free replacement pole set by express courier", "replacement", "approved")],
        "Photo of the break received; clearly a material fault.",
    ),
    DemoTicket(
        "ACME-1002",
        "Return a sleeping bag that is too warm",
        "priya.k@example.com",
        "I bought the Summit -10 bag but it's way too warm for summer. Can I return it?",
        "Hi Priya,\n\nNo problem at all! I've emailed a prepaid return label, just pop the bag in the post. "
        "We offer free returns within 60 days on unused gear. The refund lands on your card within five "
        "working days of the bag reaching our warehouse." + ACME_SIGN_OFF,
        "returns",
        "return_request",
        [("Issue a prepaid return label", "return_label", "approved")],
    ),
    DemoTicket(
        "ACME-1003",
        "Where is my order? Hiking boots not arrived",
        "marco.b@example.com",
        "Ordered the Trailblazer boots 8 days ago and tracking hasn't moved since Monday.",
        "Hi Marco,\n\nThanks for your patience! The courier had the parcel stuck at the depot, so I've "
        "escalated it and they've promised delivery tomorrow. Standard shipping usually takes three to five "
        "working days, and we ship every order from our Denver warehouse." + ACME_SIGN_OFF,
        "shipping",
        "delivery_delayed",
        [("Escalate the parcel with the courier", "escalation", "approved")],
    ),
    DemoTicket(
        "ACME-1004",
        "Jacket zip broke after two weeks",
        "sam.o@example.com",
        "The zip on my Stormshell jacket came off the track after two weeks of use.",
        "Hi Sam,\n\nThat's not the quality we stand for! I've arranged a free zip repair: drop the jacket at "
        "any Acme store or send it with the prepaid label attached. We repair zips on all jackets free of "
        "charge for the first year." + ACME_SIGN_OFF,
        "product_quality",
        "damaged_item",
        [
            ("Arrange a free zip repair with a prepaid label", "repair", "approved"),
            ("Refund the full jacket price", "refund", "rejected"),
        ],
    ),
    DemoTicket(
        "ACME-1005",
        "Can I change the size of my order?",
        "lena.w@example.com",
        "I ordered the Trail Runner shoes in 42 but need a 43. It hasn't shipped yet.",
        "Hi Lena,\n\nGood catch! I've updated your order to size 43 before it left the warehouse, so there's "
        "nothing else to do. Orders can be changed until they are packed, usually within two hours."
        + ACME_SIGN_OFF,
        "orders",
        "change_order",
    ),
    DemoTicket(
        "ACME-1006",
        "Stove not lighting - gas canister compatibility",
        "tom.h@example.com",
        "My new Backcountry stove won't light with the canister I had at home.",
        "Hi Tom,\n\nThe Backcountry stove needs a threaded EN417 canister; push-fit ones won't seal. I've "
        "sent a how-to video for checking the thread. Our stores stock EN417 canisters in 230 g and 450 g "
        "sizes." + ACME_SIGN_OFF,
        "product_usage",
        "how_to",
    ),
    DemoTicket(
        "ACME-1007",
        "Double charged for my order",
        "ana.m@example.com",
        "I see two charges of $189 for the same backpack order on my card.",
        "Hi Ana,\n\nSorry for the scare! The second charge was a duplicate authorisation. I've refunded it "
        "straight away, and it will disappear from your statement within three to five working days."
        + ACME_SIGN_OFF,
        "billing",
        "duplicate_charge",
        [("Refund the duplicate charge of $189", "refund", "approved")],
    ),
    DemoTicket(
        "ACME-1008",
        "Backpack hip belt strap torn",
        "kofi.a@example.com",
        "The hip belt strap on my Ascent 45 tore on the second hike.",
        "Hi Kofi,\n\nThat's really annoying mid-trip, sorry! I've shipped a replacement hip belt by express "
        "courier today at no cost. We offer a lifetime warranty on backpack straps and buckles."
        + ACME_SIGN_OFF,
        "product_quality",
        "damaged_item",
        [("Send a free replacement pole set by express courier", "replacement", "approved")],
    ),
]

GLOBEX_SIGN_OFF = "\n\nKind regards,\nGlobex Telecom Customer Care"

GLOBEX_TICKETS = [
    DemoTicket(
        "GLX-2001",
        "Calls dropping every evening at home",
        "r.fischer@example.com",
        "My mobile calls drop every evening between 7 and 9 pm at home.",
        "Dear Mr Fischer,\n\nThank you for reporting this. We regret the inconvenience caused. Our engineers "
        "identified congestion on the cell serving your area, and capacity was increased on Tuesday. "
        "We also credited one month of line rental to your account. Wi-Fi Calling is included at no "
        "extra cost on all Globex plans." + GLOBEX_SIGN_OFF,
        "network",
        "dropped_calls",
        [("Credit one month of line rental", "credit", "approved")],
    ),
    DemoTicket(
        "GLX-2002",
        "Unexpected roaming charges after holiday",
        "m.dubois@example.com",
        "My bill shows 48 euros of roaming charges from my trip to Switzerland.",
        "Dear Ms Dubois,\n\nThank you for contacting us. Switzerland is outside the EU roaming zone, so "
        "those charges were applied correctly. As a gesture of goodwill, we have waived half of the roaming "
        "charges. Our Travel Pass covers 40 countries outside the EU for 5 euros per day." + GLOBEX_SIGN_OFF,
        "billing",
        "roaming_charges",
        [
            ("Waive 50% of the roaming charges as goodwill", "credit", "approved"),
            ("Waive all roaming charges", "credit", "rejected"),
        ],
    ),
    DemoTicket(
        "GLX-2003",
        "Broadband down since this morning",
        "k.nowak@example.com",
        "My fibre broadband has been down since 8 am, the router light is red.",
        "Dear Mr Nowak,\n\nWe apologise for the interruption to your service. A fault on the street cabinet "
        "was repaired at 2 pm and your connection has been restored. Please restart your router if the light "
        "is still red. Our fibre plans include a guaranteed repair within 24 hours." + GLOBEX_SIGN_OFF,
        "network",
        "broadband_outage",
        [("Book an engineer visit to the street cabinet", "engineer_visit", "approved")],
    ),
    DemoTicket(
        "GLX-2004",
        "How do I port my number to Globex?",
        "a.rossi@example.com",
        "I want to move my number from another provider to my new Globex SIM.",
        "Dear Ms Rossi,\n\nThank you for choosing Globex. Please request your PAC code from your current "
        "provider by texting PAC to 65075, then enter it in the Globex app under My SIM. Number transfers "
        "complete within one working day, and we keep your old service active until the transfer completes."
        + GLOBEX_SIGN_OFF,
        "account",
        "port_number",
    ),
    DemoTicket(
        "GLX-2005",
        "Charged after cancelling my contract",
        "j.smith@example.com",
        "I cancelled last month but was still charged 35 pounds this month.",
        "Dear Mr Smith,\n\nWe apologise for this error. Your cancellation was recorded on the 3rd, and the "
        "charge of 35 pounds was taken in error. We have refunded it in full to your card. Cancellations "
        "take effect at the end of the current billing month." + GLOBEX_SIGN_OFF,
        "billing",
        "charged_after_cancellation",
        [("Refund the 35 pound charge in full", "refund", "approved")],
    ),
    DemoTicket(
        "GLX-2006",
        "Phone screen cracked, insurance claim",
        "l.chen@example.com",
        "I dropped my phone and the screen cracked. I have Globex device insurance.",
        "Dear Ms Chen,\n\nThank you for contacting us. Your insurance claim has been approved and a courier "
        "will collect the device tomorrow; it will be returned repaired within five working days. Globex "
        "device insurance covers two screen repairs per year with a 25 pound excess." + GLOBEX_SIGN_OFF,
        "device",
        "insurance_claim",
        [("Approve the screen repair claim under device insurance", "insurance", "approved")],
    ),
    DemoTicket(
        "GLX-2007",
        "Calls dropping in the office basement",
        "p.oduya@example.com",
        "Calls drop whenever I go down to the office basement.",
        "Dear Mr Oduya,\n\nThank you for your message. Indoor coverage below ground is limited, so we have "
        "enabled Wi-Fi Calling on your line and credited one month of line rental as a goodwill gesture. "
        "Wi-Fi Calling is included at no extra cost on all Globex plans." + GLOBEX_SIGN_OFF,
        "network",
        "dropped_calls",
        [("Credit one month of line rental", "credit", "approved")],
    ),
]

DEMO_TICKETS = {"acme": ACME_TICKETS, "globex": GLOBEX_TICKETS}


def _seed_ticket(tenant: Tenant, demo: DemoTicket, at) -> tuple[Ticket, bool]:
    with transaction.atomic():
        ticket, created = services.ticket_upsert(
            tenant=tenant, external_id=demo.external_id, subject=demo.subject, requester=demo.requester
        )
        services.message_add(
            ticket=ticket,
            direction="inbound",
            body=demo.customer_message,
            author=demo.requester,
            sent_at=at,
            external_id=f"{demo.external_id}-m1",
        )
        if demo.note:
            services.message_add(
                ticket=ticket,
                direction="outbound",
                is_note=True,
                body=demo.note,
                author="support agent",
                sent_at=at + timedelta(minutes=20),
                external_id=f"{demo.external_id}-n1",
            )
        services.message_add(
            ticket=ticket,
            direction="outbound",
            body=demo.reply,
            author="support agent",
            sent_at=at + timedelta(minutes=45),
            external_id=f"{demo.external_id}-m2",
        )
        if created:
            services.classification_add(
                ticket=ticket, category=demo.category, intent=demo.intent, confidence=0.9
            )
            for action, kind, decision in demo.approvals:
                services.approval_record(
                    ticket=ticket,
                    proposed_action=action,
                    kind=kind,
                    decision=decision,
                    decided_by="team lead",
                    decided_at=at + timedelta(minutes=30),
                )
            services.ticket_transition(ticket=ticket, status="open")
    # Its own transaction: the learning task is sent when this commits.
    ticket = services.ticket_transition(ticket=ticket, status="solved")
    return ticket, created


def seed_demo(*, tenant: Tenant, stdout) -> None:
    """Create the tenant's demo tickets and solve them (which learns them). Idempotent."""
    tickets = DEMO_TICKETS.get(tenant.slug)
    if not tickets:
        return
    start = timezone.now() - timedelta(days=len(tickets))
    created = 0
    for index, demo in enumerate(tickets):
        _, was_created = _seed_ticket(tenant, demo, start + timedelta(days=index))
        created += was_created
    attempts = LearningAttempt.objects.for_tenant(tenant)
    stdout.write(
        f"  {tenant.name:<20} tickets   {len(tickets)} demo tickets ({created} new), "
        f"{attempts.filter(status='succeeded').count()} learning attempts succeeded, "
        f"{attempts.filter(status='queued').count()} queued"
    )
