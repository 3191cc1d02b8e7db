"""Recorded activity: one counter row per memory in `brain_memoryactivity` (see `MemoryActivity`).

Counting activity touches only the narrow counter table, never the memory row, so recall does not
rewrite the memory's index entries (HNSW, GIN) on every selection. Reads join the counter and take a
missing row as 0 (`activity_count_expression()`).
"""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import F, IntegerField, Value
from django.db.models.functions import Coalesce

from brain.models import Memory, MemoryActivity

# One statement, race-free: concurrent recalls of the same memory serialize on its counter row.
# The tenant is compared as bigint (the column's type), so the tenant-led indexes are usable.
RECORD_ACTIVITY_SQL = f"""
INSERT INTO {MemoryActivity._meta.db_table} (memory_id, tenant_id, count, last_at)
SELECT m.id, m.tenant_id, 1, now()
FROM {Memory._meta.db_table} m
WHERE m.tenant_id = %s::bigint AND m.id = ANY(%s::bigint[])
ON CONFLICT (memory_id) DO UPDATE
SET count = {MemoryActivity._meta.db_table}.count + 1, last_at = excluded.last_at
"""


# One statement: its own transaction, or part of the caller's (no savepoint: a round trip saved on the
# runtime's request path).
@transaction.atomic(savepoint=False)
def memories_record_activity(*, tenant_id: int, memory_ids: list[int]) -> None:
    """Count one recorded activity for each of the tenant's memories in `memory_ids`.

    Tenant-scoped: ids of other tenants' memories (or of no memory) are ignored. A repeated id counts
    once. Not idempotent: each call adds one. Runs in (or as) one transaction.
    """
    statement = record_activity_statement(tenant_id=tenant_id, memory_ids=memory_ids)
    if statement is None:
        return
    with connection.cursor() as cursor:
        cursor.execute(*statement)


def record_activity_statement(*, tenant_id: int, memory_ids: list[int]) -> tuple[str, list] | None:
    """The statement `memories_record_activity` runs, with its parameters (None when there is nothing to
    count), for a caller that runs it inside a statement of its own (a WITH clause of the runtime context
    call's one write: issue 30)."""
    ids = sorted(set(memory_ids))  # sorted: concurrent callers lock counter rows in the same order
    if not ids:
        return None
    return RECORD_ACTIVITY_SQL.strip(), [tenant_id, ids]


def activity_count_expression():
    """The memory's recorded activity for annotations on Memory querysets: its counter, 0 when absent."""
    return Coalesce(F("activity__count"), Value(0), output_field=IntegerField())


def activity_counts(*, tenant_id: int, memory_ids: list[int]) -> dict[int, int]:
    """Recorded activity of each given memory of the tenant (0 when it has none)."""
    counts = dict(
        MemoryActivity.objects.for_tenant(tenant_id)
        .filter(memory_id__in=memory_ids)
        .values_list("memory_id", "count")
    )
    return {memory_id: counts.get(memory_id, 0) for memory_id in memory_ids}
