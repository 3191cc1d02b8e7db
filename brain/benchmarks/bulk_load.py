"""Loading benchmark data fast: COPY into the memory table, bypassing promote() (benchmarks only).

Not part of `brain.api` (the facade exports nothing for benchmarks): benchmarks import this module directly.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from django.db import connection, transaction
from django.db.models import NOT_PROVIDED
from django.utils import timezone
from psycopg.types.json import Jsonb

from brain.models import Memory


def memories_bulk_load_for_benchmark(*, tenant_id: int, rows, stdout=None, batch_size: int = 20_000) -> int:
    """Load many memory rows with COPY, bypassing promote(): for benchmarks that need 100k rows in seconds.

    Each row is a dict of Memory field values (`scope_kind`, `scope_id`, `type`, `text`, and any of `payload`,
    `status`, `strength`, `category`, `source`, `provider`, `campaign_ids`, `tags`, `confidence`...); other
    fields take their model defaults. The rows get no embeddings and no history. Never use this for product
    data: it skips the gate, the judge and the duplicate backstop.
    """
    fields = [
        f
        for f in Memory._meta.concrete_fields
        if not f.primary_key and not getattr(f, "generated", False) and f.name not in ("tenant", "embedding")
    ]
    columns = ", ".join(["tenant_id", *(f.column for f in fields)])
    now = timezone.now()
    defaults = {}
    for f in fields:
        if f.name in ("created_at", "updated_at"):
            defaults[f.name] = now
        elif f.default is not NOT_PROVIDED:
            defaults[f.name] = f.default() if callable(f.default) else f.default
        else:
            defaults[f.name] = None
    defaults["surface"] = "import"
    json_fields = {f.name for f in fields if f.get_internal_type() == "JSONField"}
    loaded = 0
    batch: list[tuple] = []

    def flush():
        nonlocal loaded
        # PostgreSQL refuses COPY into a table under row-level security: COPY into a scratch table, then
        # one INSERT ... SELECT, which the tenant wall checks like any insert.
        with copy_into("brain_memory", columns) as copy:
            for values in batch:
                copy.write_row(values)
        loaded += len(batch)
        batch.clear()
        if stdout is not None:
            stdout.write(f"  loaded {loaded} rows")

    for row in rows:
        values = [tenant_id]
        for f in fields:
            value = row.get(f.name, defaults[f.name])
            values.append(Jsonb(value) if f.name in json_fields else value)
        batch.append(tuple(values))
        if len(batch) >= batch_size:
            flush()
    if batch:
        flush()
    return loaded


def loaded_rows_count(*, tenant_id: int, types: list[str]) -> int:
    """How many of the tenant's rows of `types` the loader wrote (surface `import`): a benchmark reusing its
    tenant compares this with what it loads, whatever else its runs wrote through the product since."""
    return Memory.objects.for_tenant(tenant_id).filter(type__in=types, surface="import").count()


def embed_loaded_rows_for_benchmark(
    *, tenant_id: int, types: list[str], stdout=None, batch_size: int = 256
) -> int:
    """Give the tenant's rows of `types` that lack a vector of the configured embedder theirs, through the
    product's own pipeline (`brain.embedding.memories_embed`, what runs after every memory write's commit):
    bulk-loaded rows get none, and a benchmark whose calls read vectors must not measure rows without them.
    Returns how many rows were embedded; a second run embeds none."""
    from brain.embedding import current_embedding_model, memories_embed, memories_needing_embedding

    ids = list(
        memories_needing_embedding(tenant_id=tenant_id, model=current_embedding_model())
        .filter(type__in=types)
        .values_list("id", flat=True)
    )
    started, written = time.perf_counter(), 0
    for number, start in enumerate(range(0, len(ids), batch_size), 1):
        written += memories_embed(tenant_id=tenant_id, memory_ids=ids[start : start + batch_size])
        if stdout is not None and (number % 8 == 0 or start + batch_size >= len(ids)):
            done = min(start + batch_size, len(ids))
            stdout.write(f"  embedded {done} of {len(ids)} rows ({time.perf_counter() - started:.0f} s)")
    return written


@contextmanager
def copy_into(table: str, columns: str):
    """A COPY ... FROM STDIN writer for `table` (comma-separated `columns`), in its own transaction.

    PostgreSQL refuses COPY into a table under row-level security (the tenant wall): the rows go into a
    scratch table, then into `table` with one INSERT ... SELECT, which the wall checks like any insert.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMP TABLE bulk_rows ON COMMIT DROP AS SELECT {columns} FROM {table} WITH NO DATA"
        )
        with cursor.cursor.copy(f"COPY bulk_rows ({columns}) FROM STDIN") as copy:
            yield copy
        cursor.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM bulk_rows")
        cursor.execute("DROP TABLE bulk_rows")  # inside a test's transaction the commit comes later
