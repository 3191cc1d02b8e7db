"""The indexes of the Client Brain dashboard's two-part page (brain/client_brain/dashboard.py, issue 17).

- `memoryactivity_tenant_count`: the tenant's counter rows by recorded activity, highest first, so the
  rows with activity are read in page order instead of sorting every row of the tenant.
- `memory_client_brain_page`: the tenant's Client Brain rows (any status) by confidence, highest first
  (NaN and missing first, as PostgreSQL sorts them descending), then id: the rows without activity, in
  page order. Partial, so other write surfaces' rows do not grow it. It carries the status, so the status
  filter and the sum of the current rows' recorded activity read the index alone.

Built CONCURRENTLY, so writes to the big memory table go on while they build: the migration is therefore
not atomic (CREATE INDEX CONCURRENTLY cannot run inside a transaction), and IF NOT EXISTS makes a re-run
after an interruption safe (an interrupted build leaves an invalid index: drop it and migrate again).
"""

from django.db import migrations

PAGE_INDEX = "memory_client_brain_page"
ACTIVITY_INDEX = "memoryactivity_tenant_count"
# dashboard.OTHER_SURFACE_TYPES, spelled out: a migration must not change when the code does.
OTHER_SURFACE_TYPES = "'agent_memory', 'note', 'lesson', 'chat', 'fact'"


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("brain", "0015_client_brain_tally")]

    operations = [
        migrations.RunSQL(
            sql=(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {ACTIVITY_INDEX} ON brain_memoryactivity "
                "(tenant_id, count DESC, memory_id)"
            ),
            reverse_sql=f"DROP INDEX CONCURRENTLY IF EXISTS {ACTIVITY_INDEX}",
        ),
        migrations.RunSQL(
            sql=(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {PAGE_INDEX} ON brain_memory "
                "(tenant_id, confidence DESC, id) INCLUDE (status) "
                f"WHERE scope_kind = 'tenant' AND type NOT IN ({OTHER_SURFACE_TYPES})"
            ),
            reverse_sql=f"DROP INDEX CONCURRENTLY IF EXISTS {PAGE_INDEX}",
        ),
    ]
