"""Issue 26, section 2: the Client Brain dashboard shows the policy rows held as drafts "waiting for evidence",
with how many different customers' tickets have taught each so far."""

from django.test import Client
from django.urls import reverse

from brain.api import learn_from_evidence
from brain.client_brain.waiting import waiting_for_evidence
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .test_held_policies import PLAIN_GRANT, solved


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


def test_the_dashboard_says_nothing_of_evidence_when_nothing_waits(tenant):
    learn_from_evidence(
        solved(tenant, "Our support hours are 9-5 on weekdays.", ticket_id=1, customer="a@x.test")
    )
    assert waiting_for_evidence(tenant_id=tenant.pk).total == 0
