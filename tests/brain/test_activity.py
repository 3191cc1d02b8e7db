"""Recorded activity lives in its own counter table (MemoryActivity), not on the memory row; a recording is a
pending row (PendingActivity) that a drain adds to the counters exactly once."""

from django.db import connection

from brain.activity import activity_counts, activity_drain, memories_record_activity
from brain.models import Memory, MemoryActivity, PendingActivity
from tests.brain.factories import fact


def xmin(memory: Memory) -> str:
    """The row version's creating transaction: it changes whenever the row is rewritten."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT xmin::text FROM brain_memory WHERE id = %s", [memory.pk])
        return cursor.fetchone()[0]


def test_recording_activity_counts_one_per_call_for_each_memory(tenant):
    first, second = fact(tenant, "Refunds take 5 days"), fact(tenant, "Store opens at 9")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[first.pk, second.pk])
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[first.pk])
    assert activity_counts(tenant_id=tenant.pk, memory_ids=[first.pk, second.pk]) == {
        first.pk: 2,
        second.pk: 1,
    }


def test_a_repeated_id_counts_once_per_call(tenant):
    row = fact(tenant, "Refunds take 5 days")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk, row.pk, row.pk])
    assert activity_counts(tenant_id=tenant.pk, memory_ids=[row.pk]) == {row.pk: 1}


def test_other_tenants_memories_and_unknown_ids_are_not_counted(tenant, other_tenant):
    theirs = fact(other_tenant, "Their discount code")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[theirs.pk, 10**12])
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[])
    assert PendingActivity.objects.all_tenants().count() == 1  # the empty call records nothing
    assert activity_drain(tenant_id=tenant.pk) == 1
    assert activity_drain(tenant_id=other_tenant.pk) == 0
    assert not MemoryActivity.objects.all_tenants().exists()


def test_the_counter_row_carries_the_memorys_tenant(tenant):
    row = fact(tenant, "Refunds take 5 days")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    assert activity_drain(tenant_id=tenant.pk) == 1
    counter = MemoryActivity.objects.for_tenant(tenant).get()
    assert counter.memory_id == row.pk and counter.count == 1 and counter.last_at is not None


def test_counting_activity_does_not_rewrite_the_memory_row(tenant):
    row = fact(tenant, "Refunds take 5 days")
    before = xmin(row)
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    assert xmin(row) == before


def test_a_memory_without_a_counter_row_has_no_activity(tenant):
    row = fact(tenant, "Refunds take 5 days")
    assert activity_counts(tenant_id=tenant.pk, memory_ids=[row.pk]) == {row.pk: 0}


def test_deleting_a_memory_deletes_its_counter(tenant):
    row = fact(tenant, "Refunds take 5 days")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    activity_drain(tenant_id=tenant.pk)
    row.delete()
    assert not MemoryActivity.objects.all_tenants().exists()


BEFORE = [("brain", "0006_trigram_operator_cost")]
AFTER = [("brain", "0007_memory_activity")]


def migrate(targets) -> None:
    """Migrations run as the schema's owner, and the tenant wall is put back as `migrate` does."""
    from django.db.migrations.executor import MigrationExecutor

    from config.db_backend.base import migration_role
    from tickets.tenancy.wall import wall_install

    with migration_role(connection):
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(targets)
        wall_install(connection)


def test_the_migration_moves_recorded_activity_into_the_counter_table(transactional_db, tenant):
    from django.db.migrations.executor import MigrationExecutor

    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    migrate(BEFORE)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                """INSERT INTO brain_memory (tenant_id, scope_kind, scope_id, type, key, payload, text,
                  confidence, status, strength, category, source, surface, provider, campaign_ids, tags,
                  activity_count, frequency, provenance, embedding_model, created_at, updated_at)
                SELECT %s, 'tenant', '', 'business', '', '{}', 'Fact ' || n, 0.8, 'active', '', '',
                  'derived', 'import', '', '{}', '{}', n, 1, '[]', '', now(), now()
                FROM unnest(ARRAY[0, 3, 7]) n RETURNING id, activity_count""",
                [tenant.pk],
            )
            counts = dict(cursor.fetchall())
        migrate(AFTER)
        moved = dict(MemoryActivity.objects.for_tenant(tenant).values_list("memory_id", "count"))
        assert moved == {memory_id: n for memory_id, n in counts.items() if n}
        with connection.cursor() as cursor:
            columns = [c.name for c in connection.introspection.get_table_description(cursor, "brain_memory")]
        assert "activity_count" not in columns
        assert "memory_tenant_activity" not in connection.introspection.get_constraints(
            connection.cursor(), "brain_memory"
        )
    finally:
        migrate(leaves)


def test_reversing_the_pending_activity_migration_adds_what_is_pending_to_the_counters(
    transactional_db, tenant
):
    from django.db.migrations.executor import MigrationExecutor

    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    row = fact(tenant, "Refunds take 5 days")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    try:
        migrate([("brain", "0024_brainnode_memory_unique_in_tenant")])
        assert dict(MemoryActivity.objects.for_tenant(tenant).values_list("memory_id", "count")) == {
            row.pk: 2
        }
    finally:
        migrate(leaves)
