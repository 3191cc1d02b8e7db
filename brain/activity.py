"""Recorded activity: one counter row per memory in `brain_memoryactivity` (see `MemoryActivity`).

Counting activity touches only the narrow counter table, never the memory row, so recall does not
rewrite the memory's index entries (HNSW, GIN) on every selection. Reads join the counter and take a
missing row as 0 (`activity_count_expression()`).

Recording is an insert, counting is a drain (issue 30, section 0). A call that puts memories in a prompt
inserts one `PendingActivity` row listing them: no row lock, where the counter upsert it replaces locked
the same counter rows as every concurrent call of the tenant (its brand memories are the same for every
conversation) and held them until its commit. `activity_drain()` deletes a tenant's pending rows and adds
them to the counters in the same statement (in batches of DRAIN_BATCH), so a pending row is counted exactly
once: a drain that fails or is interrupted deletes nothing it has not counted, and a concurrent drain skips the
rows another holds.
Every read of counts drains the tenant first (`activity_counts`, the Client Brain dashboard and its REST
list; a read never waits on another drain: what that one holds shows once it commits), except on a read
replica, which shows the counts as of the primary's last drain; beat's `brain.drain_activity` drains every
tenant every `BRAIN_ACTIVITY_DRAIN_EVERY` seconds.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import F, IntegerField, Value
from django.db.models.functions import Coalesce

from brain.models import Memory, MemoryActivity, PendingActivity
from tickets.tenancy import replicas, wall

PENDING = PendingActivity._meta.db_table
COUNTERS = MemoryActivity._meta.db_table

# The tenant is compared as bigint (the column's type), so the tenant-led indexes are usable.
RECORD_ACTIVITY_SQL = (
    f"INSERT INTO {PENDING} (tenant_id, memory_ids, at) VALUES (%s::bigint, %s::bigint[], now())"
)

# Pending rows added to the counters per statement: a backlog (beat stopped for hours) is drained in short
# transactions that hold the counter rows' locks briefly.
DRAIN_BATCH = 10_000

# One statement: the pending rows it deletes are the ones it counts. A concurrent drain skips the rows this one
# holds and takes the next. Ids of another tenant's memory, or of a memory deleted since, find no memory row
# and count nothing. Counter rows are locked in id order, so two drains cannot deadlock.
DRAIN_SQL = f"""
WITH drained AS (
    DELETE FROM {PENDING} WHERE id IN (
        SELECT id FROM {PENDING} WHERE tenant_id = %s::bigint ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED
    ) RETURNING memory_ids, at
), counted AS (
    SELECT m.id, m.tenant_id, count(*) AS n, max(drained.at) AS last_at
    FROM drained CROSS JOIN LATERAL unnest(drained.memory_ids) AS recorded(id)
    JOIN {Memory._meta.db_table} m ON m.id = recorded.id AND m.tenant_id = %s::bigint
    GROUP BY m.id, m.tenant_id
), added AS (
    INSERT INTO {COUNTERS} (memory_id, tenant_id, count, last_at)
    SELECT id, tenant_id, n, last_at FROM counted ORDER BY id
    ON CONFLICT (memory_id) DO UPDATE
    SET count = {COUNTERS}.count + excluded.count, last_at = greatest({COUNTERS}.last_at, excluded.last_at)
)
SELECT count(*) FROM drained
"""


# One statement: its own transaction, or part of the caller's (no savepoint: a round trip saved on the
# runtime's request path).
@transaction.atomic(savepoint=False)
def memories_record_activity(*, tenant_id: int, memory_ids: list[int]) -> None:
    """Record one activity for each of the tenant's memories in `memory_ids` (counted at the next drain).

    Tenant-scoped: ids of other tenants' memories (or of no memory) are never counted. A repeated id counts
    once. Not idempotent: each call adds one. Runs in (or as) one transaction.
    """
    statement = record_activity_statement(tenant_id=tenant_id, memory_ids=memory_ids)
    if statement is None:
        return
    with connection.cursor() as cursor:
        cursor.execute(*statement)


def record_activity_statement(*, tenant_id: int, memory_ids: list[int]) -> tuple[str, list] | None:
    """The statement `memories_record_activity` runs, with its parameters (None when there is nothing to
    record), for a caller that runs it inside a statement of its own (a WITH clause of the runtime context
    call's one write: issue 30)."""
    ids = sorted(set(memory_ids))
    if not ids:
        return None
    return RECORD_ACTIVITY_SQL, [tenant_id, ids]


def activity_drain(*, tenant_id: int) -> int:
    """Add the tenant's recorded activity to its counters; returns how many recordings were added.

    On a read replica (inside `replicas.replica_block`) nothing is drained: the standby cannot write, and a
    page read there shows the counts as of the primary's last drain."""
    if replicas.in_replica_block():
        return 0
    added = 0
    with connection.cursor() as cursor:
        while True:  # each batch its own statement (and its own transaction, outside the caller's)
            cursor.execute(DRAIN_SQL, [tenant_id, DRAIN_BATCH, tenant_id])
            batch = cursor.fetchone()[0]
            added += batch
            if batch < DRAIN_BATCH:
                return added


def activity_drain_all() -> dict[int, int]:
    """Drain every tenant with recorded activity pending (beat's `brain.drain_activity`): {tenant id: added}.
    The tenants are found under the wall's logged bypass; each is drained under its own tenant."""
    with wall.tenant_bypass("activity drain: tenants with recorded activity pending"):
        tenant_ids = sorted(
            PendingActivity.objects.all_tenants().order_by().values_list("tenant_id", flat=True).distinct()
        )
    drained = {}
    for tenant_id in tenant_ids:
        with wall.tenant_scope(tenant_id):
            drained[tenant_id] = activity_drain(tenant_id=tenant_id)
    return drained


def activity_count_expression():
    """The memory's recorded activity for annotations on Memory querysets: its counter, 0 when absent (the
    caller drains the tenant first)."""
    return Coalesce(F("activity__count"), Value(0), output_field=IntegerField())


def activity_counts(*, tenant_id: int, memory_ids: list[int]) -> dict[int, int]:
    """Recorded activity of each given memory of the tenant (0 when it has none), the tenant drained first."""
    activity_drain(tenant_id=tenant_id)
    counts = dict(
        MemoryActivity.objects.for_tenant(tenant_id)
        .filter(memory_id__in=memory_ids)
        .values_list("memory_id", "count")
    )
    return {memory_id: counts.get(memory_id, 0) for memory_id in memory_ids}
