"""Tickets in the admin: a status change made there is a ticket_transition; learning attempts are read-only."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tickets.models import LearningAttempt, Ticket

from .learning_helpers import ticket_with_evidence


@pytest.fixture
def staff_client(client, db):
    client.force_login(
        get_user_model().objects.create_superuser("staff", "staff@example.com", "pw-for-tests-1")
    )
    return client


def test_solving_a_ticket_in_the_admin_requests_learning(
    staff_client, tenant, django_capture_on_commit_callbacks
):
    ticket = ticket_with_evidence(tenant)
    url = reverse("admin:tickets_ticket_change", args=[ticket.pk])
    form = {
        "subject": ticket.subject,
        "status": "solved",
        "requester": "",
        **{f"{prefix}-{field}": value for prefix in ("classifications", "messages", "approvals", "learning_attempts")
           for field, value in (("TOTAL_FORMS", "0"), ("INITIAL_FORMS", "0"))},
    }  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = staff_client.post(url, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert len(callbacks) == 1
    assert Ticket.objects.all_tenants().get(pk=ticket.pk).status == "solved"
    attempt = LearningAttempt.objects.for_tenant(tenant).get()
    assert attempt.status == "succeeded"
    page = staff_client.get(reverse("admin:tickets_learningattempt_change", args=[attempt.pk]))
    assert page.status_code == 200 and b"succeeded" in page.content
    listing = staff_client.get(
        reverse("admin:tickets_learningattempt_changelist"), {"status__exact": "succeeded"}
    )
    assert b"T-100" in listing.content
