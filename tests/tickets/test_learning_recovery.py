"""Workers recover by themselves (issue 15, findings 3 and 4): a broker outage never turns a committed status
change into a 500; an attempt has a lease, and the requeue service (beat, `learning_requeue`) re-sends attempts
whose lease ran out and attempts a broker outage left queued; an attempt is learned once however often its
message is delivered."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from brain.models import Memory, MemoryHistory
from config.celery import app, use_broker
from tickets import services
from tickets.models import LearningAttempt, LearningStatus
from tickets.tasks import learn_from_ticket, requeue_learning_attempts

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
        response = api.post(
            f"/api/v1/tickets/{ticket.external_id}/status", {"status": "solved"}, format="json"
        )
    assert response.status_code == 200, response.content[:300]
    assert response.json()["status"] == "solved"
    attempt = LearningAttempt.objects.for_tenant(tenant).get()
    assert attempt.status == LearningStatus.QUEUED and "broker was unavailable" in attempt.error


# --- Finding 4: a lease per attempt; the requeue re-sends what a killed worker left running ------------------


def _solved_attempt(tenant, django_capture_on_commit_callbacks, external_id="T-100"):
    ticket = ticket_with_evidence(tenant, external_id)
    with django_capture_on_commit_callbacks(execute=True):
        services.ticket_transition(ticket=ticket, status="solved")
    return ticket, LearningAttempt.objects.for_tenant(tenant).get(ticket=ticket)


def _as_if_killed(attempt, *, lease_ran_out: bool, keep_outcomes: bool = True):
    """Put the attempt where a worker SIGKILLed mid-try leaves it: running, its lease live or run out."""
    now = timezone.now()
    LearningAttempt.objects.all_tenants().filter(pk=attempt.pk).update(
        status=LearningStatus.RUNNING,
        finished_at=None,
        lease_expires_at=now + (timedelta(seconds=-1) if lease_ran_out else timedelta(minutes=5)),
        **({} if keep_outcomes else {"outcomes": [], "added": 0}),
    )


def test_a_running_attempt_whose_worker_died_is_sent_again_once_its_lease_has_passed(
    tenant, django_capture_on_commit_callbacks
):
    ticket, attempt = _solved_attempt(tenant, django_capture_on_commit_callbacks)
    Memory.objects.for_tenant(tenant).delete()
    _as_if_killed(attempt, lease_ran_out=False, keep_outcomes=False)
    assert services.learning_attempts_requeue().found == 0  # its lease is live: the worker may be busy
    _as_if_killed(attempt, lease_ran_out=True, keep_outcomes=False)
    result = services.learning_attempts_requeue()
    assert (result.found, result.sent, result.expired_leases) == (1, 1, 1)
    attempt.refresh_from_db()
    assert (
        attempt.status == LearningStatus.SUCCEEDED and attempt.added > 0 and attempt.lease_expires_at is None
    )
    assert attempt.tries == 2


def test_a_second_delivery_of_an_attempt_that_is_running_or_finished_does_nothing(
    tenant, django_capture_on_commit_callbacks
):
    ticket, attempt = _solved_attempt(tenant, django_capture_on_commit_callbacks)
    history = MemoryHistory.objects.for_tenant(tenant).count()
    finished = learn_from_ticket.apply(args=(tenant.pk, ticket.pk), kwargs={"attempt_id": attempt.pk}).get()
    assert finished["status"] == "not_taken"
    _as_if_killed(attempt, lease_ran_out=False)
    running = learn_from_ticket.apply(args=(tenant.pk, ticket.pk), kwargs={"attempt_id": attempt.pk}).get()
    assert running["status"] == "not_taken"
    attempt.refresh_from_db()
    assert attempt.tries == 1 and MemoryHistory.objects.for_tenant(tenant).count() == history


def test_a_try_killed_after_its_writes_is_run_again_without_writing_anything_twice(
    tenant, django_capture_on_commit_callbacks
):
    ticket, attempt = _solved_attempt(tenant, django_capture_on_commit_callbacks)
    written = list(MemoryHistory.objects.for_tenant(tenant).values_list("pk", flat=True))
    added = attempt.added
    _as_if_killed(attempt, lease_ran_out=True)  # every candidate committed with its record; then killed
    assert services.learning_attempts_requeue().sent == 1
    attempt.refresh_from_db()
    assert attempt.status == LearningStatus.SUCCEEDED and attempt.added == added > 0
    assert list(MemoryHistory.objects.for_tenant(tenant).values_list("pk", flat=True)) == written


def test_a_try_that_lost_its_lease_to_another_delivery_writes_nothing_more(
    tenant, django_capture_on_commit_callbacks
):
    ticket, attempt = _solved_attempt(tenant, django_capture_on_commit_callbacks)
    _as_if_killed(attempt, lease_ran_out=True, keep_outcomes=False)
    stale = LearningAttempt.objects.for_tenant(tenant).get(pk=attempt.pk)
    stale.tries = 0  # an older try, overtaken: the attempt's tries moved on
    history = MemoryHistory.objects.for_tenant(tenant).count()
    with pytest.raises(services.LeaseLost):
        services.learning_attempt_run(attempt=stale, ticket_id=ticket.pk)
    assert MemoryHistory.objects.for_tenant(tenant).count() == history


def test_beat_runs_the_requeue_task_and_learning_requeue_uses_the_same_service(
    tenant, settings, django_capture_on_commit_callbacks
):
    from config.celery import app

    schedule = {entry["task"]: entry for entry in app.conf.beat_schedule.values()}
    assert schedule["tickets.requeue_learning_attempts"]["schedule"] == settings.BRAIN_LEARNING_REQUEUE_EVERY
    # Redis redelivers unacknowledged messages after its visibility timeout: longer than a try's lease.
    assert app.conf.broker_transport_options["visibility_timeout"] >= settings.BRAIN_LEARNING_LEASE
    ticket, attempt = _solved_attempt(tenant, django_capture_on_commit_callbacks)
    _as_if_killed(attempt, lease_ran_out=True, keep_outcomes=False)
    assert requeue_learning_attempts.apply().get() == {"found": 1, "sent": 1}
    _as_if_killed(attempt, lease_ran_out=True, keep_outcomes=False)
    out = StringIO()
    call_command("learning_requeue", stdout=out)
    assert "1 learning attempt(s) due (1 lease ran out, 0 queued, 0 budget back); 1 sent." in out.getvalue()
