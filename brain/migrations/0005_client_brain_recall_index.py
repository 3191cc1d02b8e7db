"""The Client Brain recall index: live tenant-scope rows of the four families in fallback-tier order.

Serves the fallback tier (the first 200 by confidence, newest, id) as a short index walk, and lets the
keyword tier walk the same order when the ticket's words are common (the trigram index serves rare
words). Partial, so other write surfaces' rows do not grow it. Raw SQL on purpose: a partial index
with a type list is recall's concern, not the model's (models.py stays the table's shape).
"""

from django.db import migrations

INDEX = "memory_client_brain_recall"


class Migration(migrations.Migration):
    dependencies = [("brain", "0004_agentmemory")]

    operations = [
        migrations.RunSQL(
            sql=(
                f"CREATE INDEX IF NOT EXISTS {INDEX} ON brain_memory "
                "(tenant_id, confidence DESC, created_at DESC, id DESC) "
                "WHERE scope_kind = 'tenant' AND status = 'active' "
                "AND type IN ('business', 'voice', 'issues', 'process')"
            ),
            reverse_sql=f"DROP INDEX IF EXISTS {INDEX}",
        )
    ]
