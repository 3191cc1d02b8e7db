"""Workers recover by themselves (issue 15, findings 3 and 4): a broker outage never turns a committed status
change into a 500; an attempt has a lease, and the requeue service (beat, `learning_requeue`) re-sends attempts
whose lease ran out and attempts a broker outage left queued; an attempt is learned once however often its
message is delivered."""

from datetime import timedelta

import pytest
from django.utils import timezone

from config.celery import app, use_broker
from tickets.models import LearningAttempt, LearningStatus

from .learning_helpers import ticket_with_evidence

DOWN = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def broker_down():
    """This process's Celery app points at a broker (and a Redis result backend) that is down."""
    previous = (None if app.conf.task_always_eager else app.conf.broker_url, app.conf.result_backend)
    use_broker(DOWN, DOWN)
    yield
    use_broker(*previous)


def test_a_broker_and_result_backend_down_at_start_never_turn_a_committed_status_change_into_a_500(
    api, tenant, broker_down, django_capture_on_commit_callbacks
):
    ticket = ticket_with_evidence(tenant)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/v1/tickets/{ticket.external_id}/status", {"status": "solved"}, format="json")
    assert response.status_code == 200, response.content[:300]
    assert response.json()["status"] == "solved"
    attempt = LearningAttempt.objects.for_tenant(tenant).get()
    assert attempt.status == LearningStatus.QUEUED and "broker was unavailable" in attempt.error
