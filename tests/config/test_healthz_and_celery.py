"""/healthz, enqueue-after-commit, and a real Celery worker round trip on the local broker."""

import pytest
from django.db import transaction

from config.celery import app, enqueue_after_commit, ping, use_broker


def test_healthz_reports_database_and_broker(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["database"] == "ok"
    assert body["broker"].startswith("eager")


def test_healthz_reports_an_unreachable_broker(client, db, settings):
    use_broker("redis://127.0.0.1:1/0")
    try:
        response = client.get("/healthz")
    finally:
        use_broker(None)
    assert response.status_code == 503
    assert response.json()["broker"].startswith("error")


CALLS: list[str] = []


@app.task(name="tests.record_call")
def record_call(label: str) -> None:  # eager only: records in this process
    CALLS.append(label)


@pytest.mark.django_db(transaction=True)
def test_tasks_are_enqueued_only_after_commit():
    CALLS.clear()
    with transaction.atomic():
        enqueue_after_commit("tests.record_call", "committed")
        assert CALLS == []
    assert CALLS == ["committed"]


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_transaction_enqueues_nothing():
    CALLS.clear()
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue_after_commit("tests.record_call", "rolled back")
        raise RuntimeError("roll back")
    assert CALLS == []


def test_a_service_finds_every_apps_task_by_name_in_a_process_that_imported_none():
    """Services send tasks by name (no service imports a tasks module: that closed import circles); a web
    process has imported no tasks module, so the name must still resolve."""
    import subprocess
    import sys

    script = (
        "import django, sys; django.setup(); from config.celery import task_named; "
        "assert 'tickets.tasks' not in sys.modules; "
        "print(task_named('tickets.learn_from_ticket').name, task_named('intelligence.suggest_from_feedback').name,"
        " task_named('brain.embed_memories').name)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "tickets.learn_from_ticket",
        "intelligence.suggest_from_feedback",
        "brain.embed_memories",
    ]


@pytest.mark.worker
def test_a_real_worker_runs_a_task_against_the_test_database(celery_worker):
    from django.db import connection

    result = ping.delay().get(timeout=30)
    assert result["pong"] is True
    assert result["database"] == connection.settings_dict["NAME"]
    assert result["pid"] == celery_worker.pid


@pytest.mark.worker
def test_a_worker_keeps_its_connection_across_tasks_but_not_their_tenant(celery_worker, tenant):
    """Celery's Django fixup closed the connection around every task (a new PostgreSQL backend per learning
    task); kept now, it must not carry a tenant's task's tenant into the next task, and a connection lost
    between tasks is replaced."""
    from django.db import connection

    from tickets.tasks import learn_from_ticket

    first = ping.delay().get(timeout=30)
    learn_from_ticket.delay(tenant.pk, 10**9)  # runs as the tenant (no such ticket: nothing to learn)
    second = ping.delay().get(timeout=30)  # one worker process, one task at a time: after it
    assert second["backend_pid"] == first["backend_pid"]
    assert second["tenant_setting"] == ""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [first["backend_pid"]])
    third = ping.delay().get(timeout=30)
    assert third["pong"] is True and third["backend_pid"] != first["backend_pid"]
