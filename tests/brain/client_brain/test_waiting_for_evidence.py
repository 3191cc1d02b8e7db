"""Issue 26, section 2: the Client Brain dashboard shows the policy rows held as drafts "waiting for evidence",
with how many different customers' tickets have taught each so far."""

from django.test import Client
from django.urls import reverse

from brain.api import learn_from_evidence
from brain.client_brain.waiting import waiting_for_evidence
from brain.models import Memory
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .test_held_policies import PLAIN_GRANT, UNLISTED_GRANTS, UNREAD_GRANT, provider_learns, solved


def test_the_dashboard_shows_the_rows_waiting_for_evidence_with_their_count(tenant):
    for n, customer in enumerate(["a@example.com", "b@example.com", "b@example.com"], start=1):
        learn_from_evidence(solved(tenant, PLAIN_GRANT, ticket_id=n, customer=customer))
    waiting = waiting_for_evidence(tenant_id=tenant.pk)
    (row,) = waiting.rows
    assert (waiting.total, row.customers, row.tickets, row.needed) == (1, 2, 3, 3)

    client = Client()
    client.force_login(make_member(tenant, Role.VIEWER))
    page = client.get(reverse("client-brain-dashboard")).content.decode()
    assert 'data-testid="waiting-for-evidence"' in page
    assert "Refunds are unlimited for every order." in page
    assert "2 of 3 customers (3 tickets)" in page
    assert row.why == "gives money: Refunds (unlimited)"
    assert '<td data-testid="waiting-why">gives money: Refunds (unlimited)</td>' in page


def test_a_row_that_negates_a_memory_in_use_says_which(tenant):
    """Why a row waits: a negation of a standing fact names the fact it contradicts."""
    standing = "We offer a two-year warranty on all laptops."
    for n, customer in enumerate(["a@x.test", "b@x.test", "c@x.test"], start=1):
        learn_from_evidence(solved(tenant, standing, ticket_id=n, customer=customer, subject="Question"))
    learn_from_evidence(
        solved(
            tenant,
            "We no longer offer a warranty on laptops.",
            ticket_id=9,
            customer="m@x.test",
            subject="Question",
        )
    )
    (row,) = waiting_for_evidence(tenant_id=tenant.pk).rows
    standing_id = Memory.objects.for_tenant(tenant).get(text=standing).pk
    assert row.why == f"contradicts #{standing_id}: {standing}"


def test_a_row_in_a_language_the_grant_check_cannot_read_says_so(settings, tenant):
    provider_learns(settings, tenant, [UNREAD_GRANT])
    (row,) = waiting_for_evidence(tenant_id=tenant.pk).rows
    assert (row.text, row.why) == (UNREAD_GRANT, "written in Turkish, which the grant check does not read")


def test_a_row_the_grant_model_holds_says_so(settings, tenant):
    provider_learns(settings, tenant, [UNLISTED_GRANTS[2]])
    (row,) = waiting_for_evidence(tenant_id=tenant.pk).rows
    assert row.text == UNLISTED_GRANTS[2]
    assert row.why.startswith("reads as a grant of money, credit, access or data (the grant model's score 0.")


def test_the_reason_is_the_one_recorded_when_the_row_was_held(settings, tenant, monkeypatch, tmp_path):
    """The dashboard reads why a row waits from its history, as formation decided it: no model runs in the
    request, and the reason stays what was decided whatever weights the process holds now."""
    from brain.formation import grants_model

    provider_learns(settings, tenant, [UNLISTED_GRANTS[2]])
    monkeypatch.setattr(grants_model, "MODEL_PATH", tmp_path / "missing.npz")
    grants_model.model.cache_clear()
    grants_model.grant_score.cache_clear()
    try:
        (row,) = waiting_for_evidence(tenant_id=tenant.pk).rows
        assert row.why.startswith(
            "reads as a grant of money, credit, access or data (the grant model's score 0."
        )
    finally:
        grants_model.model.cache_clear()
        grants_model.grant_score.cache_clear()


def test_the_dashboard_says_nothing_of_evidence_when_nothing_waits(tenant):
    learn_from_evidence(
        solved(tenant, "Our support hours are 9-5 on weekdays.", ticket_id=1, customer="a@x.test")
    )
    assert waiting_for_evidence(tenant_id=tenant.pk).total == 0
