"""Issue 17: the dashboard's two-part page query and the trigger-kept tally behind its aggregates.

The page (`dashboard_rows`) must give exactly the rows of the one-statement order (`dashboard_ordered`) for
every status filter, family and offset, across the boundary between rows with and without recorded
activity; the aggregates and the histogram, read from the tally, must equal a recount of the rows after any
insert, update, delete or status change.
"""

import math

import pytest
from django.db import connection
from django.test import Client

from brain.client_brain import typed
from brain.client_brain.dashboard import (
    STATUS_FILTERS,
    client_brain_rows,
    client_brain_stats,
    dashboard_ordered,
    dashboard_rows,
    status_condition,
)
from brain.client_brain.insights import confidence_histogram
from brain.client_brain.tally import FUNCTION, TABLE
from brain.models import Memory, MemoryActivity
from tests.conftest import make_member
from tickets.tenancy.models import Role

from ..factories import activity_of, memory, set_activity

CONFIDENCES = [0.9, 0.5, math.nan, None, 0.7, 1.0, math.inf, -0.5, 0.5, 0.0, 1.7, 0.95]
# Lengths prime to the five families, so every family gets every status, confidence and activity.
STATUSES = ["active"] * 3 + ["draft", "stale", "superseded", "archived"]
PAYLOADS = {
    "business": {"fact": "Ships in two days"},
    "voice": {"formality": "formal"},
    "issues": {"pattern": "Late parcel", "best_resolution": "Refund shipping", "frequency": 2},
    "process": {"trigger": "Refund asked", "action": "Check the order"},
    "faq": {"q": "legacy"},
}


def seed(tenant, count=160):
    """`count` Client Brain rows of every family (a legacy one too), every status, NaN / NULL / infinite /
    out-of-range and tied confidences, about a third without activity and many ties in activity; plus an
    agent memory and another surface's tenant-scope row, which the dashboard never shows."""
    families = list(PAYLOADS)
    rows = Memory.objects.bulk_create(
        Memory(tenant=tenant, scope_kind="tenant", type=families[i % 5], payload=PAYLOADS[families[i % 5]],
               text=f"row {i}", confidence=CONFIDENCES[i % len(CONFIDENCES)], status=STATUSES[i % len(STATUSES)])
        for i in range(count)
    )  # fmt: skip
    set_activity(rows, [0 if i % 3 == 0 else 1 + (i // 5) % 3 for i in range(count)])
    memory(tenant, "fact", {"fact": "Another surface"}, activity_count=50)
    agent = Memory.objects.create(
        tenant=tenant, scope_kind="agent", scope_id="1", type="agent_memory", text="A"
    )
    set_activity([agent], [40])
    return rows


def expected(tenant, status, family):
    rows = client_brain_rows(tenant_id=tenant.pk).filter(status_condition(status))
    if family:
        rows = rows.filter(type=family)
    return [(m.id, m.activity_count) for m in dashboard_ordered(rows)]


@pytest.mark.parametrize("status", STATUS_FILTERS)
@pytest.mark.parametrize("family", [None, *typed.FAMILIES])
def test_the_two_part_page_gives_the_one_statement_order_for_every_filter_and_offset(tenant, status, family):
    seed(tenant)
    order = expected(tenant, status, family)
    assert order, "the seed must give every filter rows"
    with_activity = sum(1 for _, count in order if count)
    assert 0 < with_activity < len(order) or status in ("superseded", "archived")
    for limit in (1, 7, 25):
        for offset in range(0, len(order) + limit, limit):
            page = dashboard_rows(
                tenant_id=tenant.pk, status=status, family=family, offset=offset, limit=limit
            )
            assert [(m.id, m.activity_count) for m in page] == order[offset : offset + limit], (offset, limit)


def test_pages_that_straddle_the_boundary_between_rows_with_and_without_activity(tenant):
    seed(tenant)
    order = expected(tenant, "current", None)
    boundary = sum(1 for _, count in order if count)
    for offset in (boundary - 3, boundary - 1, boundary, boundary + 1):
        page = dashboard_rows(tenant_id=tenant.pk, offset=offset, limit=5)
        assert [m.id for m in page] == [i for i, _ in order[offset : offset + 5]]
    assert dashboard_rows(tenant_id=tenant.pk, offset=len(order), limit=5) == []


def test_a_counter_row_of_zero_sorts_with_the_rows_without_activity(tenant):
    """No counter row and a count of 0 are the same: no recorded activity."""
    low = memory(tenant, confidence=0.4)
    high = memory(tenant, confidence=0.8)
    busy = memory(tenant, confidence=0.1, activity_count=1)
    MemoryActivity.objects.create(memory=low, tenant=tenant, count=0, last_at=low.created_at)
    assert [m.id for m in dashboard_rows(tenant_id=tenant.pk, limit=10)] == [busy.id, high.id, low.id]
    assert [i for i, _ in expected(tenant, "current", None)] == [busy.id, high.id, low.id]


def test_the_rest_list_pages_through_the_same_rows_as_the_dashboard(api, tenant):
    seed(tenant)
    for status in STATUS_FILTERS:
        order = [i for i, _ in expected(tenant, status, None)]
        seen = []
        for offset in range(0, len(order) + 40, 40):
            body = api.get(
                "/api/v1/client-brain/memories", {"status": status, "limit": 40, "offset": offset}
            ).json()
            assert body["count"] == len(order)
            seen += [row["id"] for row in body["results"]]
        assert seen == order, status
    body = api.get("/api/v1/client-brain/memories", {"type": "voice", "status": "all", "limit": 200}).json()
    assert [row["id"] for row in body["results"]] == [i for i, _ in expected(tenant, "all", "voice")]


def test_the_dashboard_page_shows_the_two_part_order(tenant):
    seed(tenant, count=260)
    client = Client()
    client.force_login(make_member(tenant, Role.VIEWER))
    order = [i for i, _ in expected(tenant, "current", None)]
    for offset in (0, 100):
        html = client.get("/insights/analytics/client-brain/", {"offset": offset}).content.decode()
        shown = [int(part.split('"')[0]) for part in html.split('<tr data-id="')[1:]]
        assert shown == order[offset : offset + 100]


# --- The tally: counts after every kind of write -----------------------------------------------------------


def recount(tenant):
    """The aggregates and histogram recomputed in Python from every stored row: the oracle for the tally."""
    rows = list(
        Memory.objects.for_tenant(tenant).filter(scope_kind="tenant")
        .exclude(type__in=["agent_memory", "note", "lesson", "chat", "fact"])
    )  # fmt: skip
    retired = ("superseded", "archived")
    current = [m for m in rows if m.status not in retired]

    def figures(some):
        valid = [m.confidence for m in some if m.confidence is not None and 0 <= m.confidence <= 1]
        return {
            "rows": len(some),
            "typed": sum(1 for m in some if typed.is_typed(m.type, m.payload)),
            "average": sum(valid) / len(valid) if valid else None,
            "invalid": len(some) - len(valid),
            "by_type": {f: sum(1 for m in some if m.type == f) for f in typed.FAMILIES},
            "legacy": sum(1 for m in some if m.type not in typed.FAMILIES),
            "activity": sum(activity_of(*some)) if some else 0,
        }

    valid = [m.confidence for m in current if m.confidence is not None and 0 <= m.confidence <= 1]
    bins = [0] * 10
    for value in valid:
        bins[min(int(math.floor(value * 10)), 9)] += 1
    return {
        "stored": figures(rows),
        "by_status": {s: sum(1 for m in rows if (m.status if m.status in retired else "current") == s)
                      for s in ("current", *retired)},
        "current": figures(current),
        "histogram": (bins, len(current) - len(valid)),
    }  # fmt: skip


def tallied(tenant):
    stats = client_brain_stats(tenant_id=tenant.pk)
    return {
        "stored": {
            "rows": stats.stored_rows,
            "typed": stats.typed_rows,
            "average": stats.average_confidence,
            "invalid": stats.invalid_confidence_rows,
            "by_type": stats.by_type,
            "legacy": stats.legacy_type_rows,
            "activity": stats.recorded_activity,
        },
        "by_status": stats.rows_by_status,
        "current": {
            "rows": stats.current.rows,
            "typed": stats.current.typed_rows,
            "average": stats.current.average_confidence,
            "invalid": stats.current.invalid_confidence_rows,
            "by_type": stats.current.by_type,
            "legacy": stats.current.legacy_type_rows,
            "activity": stats.current.recorded_activity,
        },
        "histogram": confidence_histogram(tenant_id=tenant.pk),
    }


def assert_tally_matches(tenant):
    got, want = tallied(tenant), recount(tenant)
    for part in ("stored", "current"):
        assert got[part].pop("average") == pytest.approx(want[part].pop("average"))
    assert got == want


def test_the_tally_follows_inserts_updates_deletes_and_status_changes(tenant, other_tenant):
    rows = seed(tenant)
    seed(other_tenant, count=30)
    assert_tally_matches(tenant)
    memory(tenant, confidence=math.nan)
    Memory.objects.for_tenant(tenant).filter(pk=rows[0].pk).update(confidence=0.15)  # a bin moves
    Memory.objects.for_tenant(tenant).filter(pk__in=[r.pk for r in rows[1:20]]).update(status="archived")
    Memory.objects.for_tenant(tenant).filter(pk=rows[21].pk).update(payload={"fact": "  "})  # no longer typed
    Memory.objects.for_tenant(tenant).filter(pk=rows[22].pk).update(type="voice")  # family and shape
    Memory.objects.for_tenant(tenant).filter(pk=rows[23].pk).update(scope_kind="agent", scope_id="9")
    assert_tally_matches(tenant)
    Memory.objects.for_tenant(tenant).filter(pk__in=[r.pk for r in rows[30:60]]).delete()
    with connection.cursor() as cursor:  # raw SQL, as a bulk tool would write: the trigger sees it too
        cursor.execute("UPDATE brain_memory SET confidence = 'NaN' WHERE id = %s", [rows[70].pk])
        cursor.execute("UPDATE brain_memory SET status = 'active' WHERE id = %s", [rows[8].pk])
    assert_tally_matches(tenant)
    other = tallied(other_tenant)
    assert other["stored"]["rows"] == recount(other_tenant)["stored"]["rows"] == 30


def test_a_write_that_changes_no_counted_column_writes_no_tally_row(tenant):
    row = memory(tenant, confidence=0.8)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT xmin::text FROM {TABLE} WHERE tenant_id = %s", [tenant.pk])
        before = cursor.fetchall()
        cursor.execute(
            "UPDATE brain_memory SET text = 'other', embedding_model = 'x' WHERE id = %s", [row.pk]
        )
        cursor.execute(f"SELECT xmin::text FROM {TABLE} WHERE tenant_id = %s", [tenant.pk])
        assert cursor.fetchall() == before
    assert_tally_matches(tenant)


def test_the_installed_tally_trigger_applies_the_typed_guard_of_the_code(db):
    """The trigger function is compiled from `typed.typed_sql()`: a change of the guard needs a migration that
    runs `tally_install()` again, or typed rows would be counted by the old guard."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", [FUNCTION])
        (source,) = cursor.fetchone()
    assert typed.typed_sql("r") in source
