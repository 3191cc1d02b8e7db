"""Recording activity inserts a pending row; a drain adds the tenant's pending rows to the counters, each once
(brain/activity.py, issue 30 section 0: the context call's counter upserts moved off the request)."""

import threading

import pytest
from django.db import connection, connections, transaction
from django.urls import reverse

from brain.activity import activity_drain, activity_drain_all, memories_record_activity
from brain.models import MemoryActivity, PendingActivity
from brain.tasks import drain_activity
from tests.brain.factories import activity_of, fact
from tests.intelligence.factories import make_agent
from tickets.tenancy import wall


def counters(tenant) -> dict[int, int]:
    return dict(MemoryActivity.objects.for_tenant(tenant).values_list("memory_id", "count"))


@pytest.mark.django_db
def test_a_recording_waits_as_a_pending_row_until_a_drain_counts_it_once(tenant):
    first, second = fact(tenant, "Refunds take 5 days"), fact(tenant, "Store opens at 9")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[second.pk, first.pk, first.pk])
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[first.pk])
    assert counters(tenant) == {}
    assert sorted(PendingActivity.objects.for_tenant(tenant).values_list("memory_ids", flat=True)) == [
        [first.pk],
        sorted([first.pk, second.pk]),
    ]
    assert activity_drain(tenant_id=tenant.pk) == 2
    assert counters(tenant) == {first.pk: 2, second.pk: 1}
    assert not PendingActivity.objects.for_tenant(tenant).exists()
    assert activity_drain(tenant_id=tenant.pk) == 0
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[second.pk])
    assert activity_drain(tenant_id=tenant.pk) == 1
    assert counters(tenant) == {first.pk: 2, second.pk: 2}


@pytest.mark.django_db
def test_a_drain_keeps_the_latest_time_a_memory_was_recorded(tenant):
    row = fact(tenant, "Refunds take 5 days")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    PendingActivity.objects.for_tenant(tenant).update(at="2026-01-02T03:04:05Z")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    latest = PendingActivity.objects.for_tenant(tenant).latest("id").at
    activity_drain(tenant_id=tenant.pk)
    assert MemoryActivity.objects.for_tenant(tenant).get().last_at == latest


@pytest.mark.django_db
def test_a_drain_that_fails_loses_no_recording(tenant):
    row = fact(tenant, "Refunds take 5 days")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    with pytest.raises(RuntimeError), transaction.atomic():
        assert activity_drain(tenant_id=tenant.pk) == 1
        raise RuntimeError("the worker died before its commit")
    assert counters(tenant) == {}
    assert activity_of(row) == [1]  # a read drains the tenant first
    assert activity_of(row) == [1]


@pytest.mark.django_db
def test_a_drain_counts_only_its_own_tenants_recordings(tenant, other_tenant):
    ours, theirs = fact(tenant, "Refunds take 5 days"), fact(other_tenant, "Their discount code")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[ours.pk])
    memories_record_activity(tenant_id=other_tenant.pk, memory_ids=[theirs.pk])
    assert activity_drain(tenant_id=tenant.pk) == 1
    assert counters(tenant) == {ours.pk: 1} and counters(other_tenant) == {}
    assert PendingActivity.objects.for_tenant(other_tenant).count() == 1
    assert activity_drain_all() == {other_tenant.pk: 1}
    assert counters(other_tenant) == {theirs.pk: 1}


@pytest.mark.django_db(transaction=True)
def test_drains_running_at_once_beside_new_recordings_count_each_recording_exactly_once(tenant, monkeypatch):
    """Four threads drain, in batches of 7, while a fifth records: every recording ends in the counters once,
    none twice."""
    import brain.activity

    monkeypatch.setattr(brain.activity, "DRAIN_BATCH", 7)
    rows = [fact(tenant, f"Fact number {n}") for n in range(5)]
    ids = [r.pk for r in rows]
    recordings, drains = 120, 4
    start = threading.Barrier(drains + 1)
    errors: list[BaseException] = []

    def run(work):
        try:
            with wall.tenant_scope(tenant.pk):
                start.wait()
                work()
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)
        finally:
            connections.close_all()

    def record():
        for n in range(recordings):
            memories_record_activity(tenant_id=tenant.pk, memory_ids=ids[: 1 + n % len(ids)])

    def drain():
        for _ in range(40):
            activity_drain(tenant_id=tenant.pk)

    threads = [threading.Thread(target=run, args=(record,))]
    threads += [threading.Thread(target=run, args=(drain,)) for _ in range(drains)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    expected = {
        memory_id: sum(1 for n in range(recordings) if i < 1 + n % len(ids))
        for i, memory_id in enumerate(ids)
    }
    assert dict(zip(ids, activity_of(*rows), strict=True)) == expected


@pytest.mark.django_db(transaction=True)
def test_beat_drains_every_tenant_through_a_real_worker(celery_worker, tenant, other_tenant, settings):
    from config.celery import app

    schedule = {entry["task"]: entry for entry in app.conf.beat_schedule.values()}
    assert schedule["brain.drain_activity"]["schedule"] == settings.BRAIN_ACTIVITY_DRAIN_EVERY
    ours, theirs = fact(tenant, "Refunds take 5 days"), fact(other_tenant, "Their discount code")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[ours.pk])
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[ours.pk])
    memories_record_activity(tenant_id=other_tenant.pk, memory_ids=[theirs.pk])
    assert drain_activity.delay().get(timeout=60) == {str(tenant.pk): 2, str(other_tenant.pk): 1}
    assert counters(tenant) == {ours.pk: 2} and counters(other_tenant) == {theirs.pk: 1}
    assert not PendingActivity.objects.all_tenants().exists()


@pytest.mark.django_db(transaction=True)
def test_the_context_call_waits_on_no_counter_row_another_transaction_holds(api, tenant):
    """Issue 30, section 0: every context call of a tenant upserted the counter rows of the same brand
    memories and held their locks until its commit, so concurrent calls queued on them. A transaction holding
    one of those rows now delays no call (here: a lock timeout of 1 s would fail the call)."""
    agent = make_agent(tenant)
    row = fact(tenant, "Acme ships refurbished laptops from Lyon within two days.")
    url = reverse("agent-context", kwargs={"agent_pk": agent.pk})
    body = {"conversation": "Where do refurbished laptops ship from?"}
    assert row.pk in api.post(url, body, format="json").json()["injected_memory_ids"]
    assert activity_of(row) == [1]  # the counter row exists (drained)
    locked, release = threading.Event(), threading.Event()

    def hold_the_counter_row():
        try:
            with wall.tenant_scope(tenant.pk), transaction.atomic():
                list(MemoryActivity.objects.for_tenant(tenant).select_for_update().filter(memory_id=row.pk))
                locked.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold_the_counter_row)
    holder.start()
    try:
        assert locked.wait(timeout=30)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '1s'")
        response = api.post(url, body, format="json")
        assert response.status_code == 200, response.content
    finally:
        release.set()
        holder.join(timeout=30)
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    assert activity_of(row) == [2]


@pytest.mark.django_db
def test_a_backlog_is_drained_in_batches_and_all_of_it_is_counted(tenant, monkeypatch):
    import brain.activity

    monkeypatch.setattr(brain.activity, "DRAIN_BATCH", 2)
    row = fact(tenant, "Refunds take 5 days")
    for _ in range(5):
        memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    assert activity_drain(tenant_id=tenant.pk) == 5
    assert counters(tenant) == {row.pk: 5} and not PendingActivity.objects.for_tenant(tenant).exists()
