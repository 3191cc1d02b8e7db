"""Each large tenant's vectors in an HNSW graph of their own, in place of the one graph of every tenant's
(issue 31, brain.search.graphs). The graphs are built first, concurrently (writes go on), one tenant at a time
with progress; then the shared graph is dropped. Resumable: run again after an interruption, it drops the
interrupted build and goes on with the tenants left."""

import sys

from django.db import migrations


def build_tenant_graphs(apps, schema_editor):
    from brain.search.graphs import sync_graphs
    from brain.search.types import recall_settings

    sync_graphs(
        min_rows=int(recall_settings()["TENANT_GRAPH_MIN_ROWS"]),
        owner=schema_editor.connection.connection,
        say=lambda line: print(line, file=sys.stderr) if line.startswith("  [") else None,
    )


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY runs outside a transaction

    dependencies = [("brain", "0022_issue_text_without_count")]

    operations = [
        migrations.RunPython(build_tenant_graphs, migrations.RunPython.noop, atomic=False),
        migrations.RemoveIndex(model_name="memory", name="memory_embedding_hnsw"),
    ]
