"""POST /api/v1/client-brain/context with `ticket_id`: the ticket's subject and latest customer message drive recall."""

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from tests.brain.factories import fact
from tickets import services


def _ticket(tenant, external_id="T-100"):
    ticket, _ = services.ticket_upsert(
        tenant=tenant, external_id=external_id, subject="Question about my tent"
    )
    now = timezone.now()
    services.message_add(
        ticket=ticket,
        direction="inbound",
        body="Do you ship kayaks abroad?",
        sent_at=now - timedelta(hours=2),
    )
    services.message_add(
        ticket=ticket,
        direction="outbound",
        body="Let me check the warranty.",
        sent_at=now - timedelta(hours=1),
    )
    services.message_add(
        ticket=ticket, direction="inbound", body="Also: is the warranty on poles transferable?", sent_at=now
    )
    services.message_add(
        ticket=ticket,
        direction="inbound",
        body="internal: customer is a reseller",
        is_note=True,
        sent_at=now + timedelta(minutes=1),
    )
    return ticket


def test_context_by_ticket_id_reads_the_subject_and_latest_customer_message(api, tenant):
    warranty = fact(tenant, "Pole warranty lasts two years and is transferable.")
    kayaks = fact(tenant, "We ship kayaks only within the country.", confidence=0.9)
    _ticket(tenant)
    response = api.post(reverse("client-brain-context"), {"ticket_id": "T-100"})
    assert response.status_code == 200
    trace = {entry["id"]: entry for entry in response.json()["sections"]["business"]}
    # The latest inbound non-note message (warranty, poles) overlaps; the older one (kayaks) does not count.
    assert trace[warranty.pk]["overlap_words"] and not trace[kayaks.pk]["overlap_words"]
    assert response.json()["memory_ids"][0] == warranty.pk


def test_another_tenants_ticket_answers_like_a_missing_one(api, tenant, other_tenant):
    _ticket(other_tenant, external_id="THEIRS")
    foreign = api.post(reverse("client-brain-context"), {"ticket_id": "THEIRS"})
    missing = api.post(reverse("client-brain-context"), {"ticket_id": "NOPE"})
    assert foreign.status_code == missing.status_code == 404
    assert foreign.json()["error"]["code"] == missing.json()["error"]["code"] == "not_found"
