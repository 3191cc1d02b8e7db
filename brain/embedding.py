"""The embedding pipeline: memories get their vectors off the request path, after commit, in batches.

Why asynchronous: a model call costs tens of milliseconds per text (seconds when the model first loads)
and an embeddings endpoint may be down; a write surface (promote, an operator edit) must neither wait for
that nor fail because of it. Writers call `embedding_enqueue(tenant_id=..., memory_ids=[...])` inside
their transaction; the Celery task `brain.tasks.embed_memories` runs once it commits.

Which rows get a vector (`memories_embed`):
- rows with no embedding, or one from another model (`embedding_model` is not the configured embedder's
  name);
- rows whose text changed since they were embedded: the named rows are re-embedded and a vector is written
  only when it moved, so a writer needs no bookkeeping beyond enqueueing, and a re-run writes nothing.
The UPDATE that stores a vector also checks the row still holds the text that was embedded, so a vector
never lands on a row whose text changed meanwhile (that change enqueued its own run).

Routine embedding records nothing in `MemoryHistory` and leaves `updated_at` alone: it is not a change
of the memory. The text embedded is the memory's `text`, or its `key` when the text is blank; rows with
neither are left without a vector.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.db.models import Q

from brain.embedders import Embedder, embed_queries, get_embedder
from brain.models import Memory

# Cosine distance under which a recomputed vector counts as "the same": float noise from batch shapes
# is around 1e-12; a one-character edit moves a vector by far more than this.
UNCHANGED_DISTANCE = 1e-6
# Ids per Celery message: a bulk import enqueues several small tasks rather than one huge one.
ENQUEUE_CHUNK = 500


@dataclass(frozen=True)
class _Row:
    id: int
    tenant_id: int
    key: str
    text: str


def memory_embedding_text(*, key: str, text: str) -> str:
    """The text a memory is embedded from: its rendered text, or its key when the text is blank."""
    return text.strip() or key.strip()


def current_embedding_model() -> str:
    """The name stored in `Memory.embedding_model` by the configured embedder."""
    return get_embedder().name


def embed_text_now(text: str) -> list[float]:
    """A vector for one text, synchronously, through the query cache (formation's duplicate backstop).

    Comparable with stored vectors whose `embedding_model` is `current_embedding_model()`. A caller that
    stores it on a row must also store that model name. Blank text raises `EmbedderInputError`.
    """
    return embed_texts_now([text])[0]


def embed_texts_now(texts: list[str]) -> list[list[float]]:
    """`embed_text_now` for several texts, in order: the ones no cache holds go to the embedder in one call
    (formation embeds all of a ticket's candidates so)."""
    return embed_queries(list(texts))


def embedding_enqueue(*, tenant_id: int, memory_ids: Iterable[int]) -> None:
    """Embed these rows of the tenant in Celery once the current transaction commits (at once outside one).

    Safe to call for rows that may not need it: the task skips rows whose vector is current.
    """
    from config.celery import enqueue_after_commit

    ids = sorted({int(memory_id) for memory_id in memory_ids})
    for start in range(0, len(ids), ENQUEUE_CHUNK):
        enqueue_after_commit("brain.embed_memories", tenant_id, ids[start : start + ENQUEUE_CHUNK])


def memories_embed(*, tenant_id: int, memory_ids: Sequence[int], batch_size: int | None = None) -> int:
    """Embed the tenant's rows among `memory_ids` that lack a current vector; returns how many were written.

    Idempotent (a re-run writes nothing new); ids of other tenants or of deleted rows are ignored. Each batch
    is one UPDATE, committed on its own in autocommit (the task's case): embedding is slow, and no
    transaction should stay open around a model call. Raises `EmbedderError` (`TransientEmbedderError` when a retry may help).
    """
    rows = [
        _Row(*values)
        for values in Memory.objects.for_tenant(tenant_id)
        .filter(id__in=list(memory_ids))
        .order_by("id")
        .values_list("id", "tenant_id", "key", "text")
    ]
    embedder = get_embedder()
    size = batch_size or settings.BRAIN_EMBED_BATCH_SIZE
    return sum(
        _embed_and_store(embedder, rows[start : start + size], only_if_moved=True)
        for start in range(0, len(rows), size)
    )


def memories_needing_embedding(*, tenant_id: int | None, model: str, after_id: int = 0, force: bool = False):
    """Rows (of one tenant, or of all with `tenant_id=None`) whose vector is missing or from another model.

    With `force`, every row. Ordered by id from `after_id`, so a backfill can resume where it stopped.
    """
    queryset = Memory.objects.all_tenants() if tenant_id is None else Memory.objects.for_tenant(tenant_id)
    queryset = queryset.filter(id__gt=after_id)
    if not force:
        queryset = queryset.filter(Q(embedding__isnull=True) | ~Q(embedding_model=model))
    return queryset.order_by("id")


def memories_reembed_batch(
    *, tenant_id: int | None, after_id: int, batch_size: int, force: bool = False
) -> tuple[int, int, int]:
    """One step of a backfill: embed the next `batch_size` rows needing it after `after_id`, commit.

    Returns (rows seen, rows written, last id seen); rows seen is 0 when nothing is left. With `force`,
    every row is re-embedded and written whatever its current vector (a model switch under the same name).
    """
    embedder = get_embedder()
    rows = [
        _Row(*values)
        for values in memories_needing_embedding(
            tenant_id=tenant_id, model=embedder.name, after_id=after_id, force=force
        ).values_list("id", "tenant_id", "key", "text")[:batch_size]
    ]
    if not rows:
        return 0, 0, after_id
    written = _embed_and_store(embedder, rows, only_if_moved=not force)
    return len(rows), written, rows[-1].id


def _embed_and_store(embedder: Embedder, rows: list[_Row], *, only_if_moved: bool) -> int:
    rows = [row for row in rows if memory_embedding_text(key=row.key, text=row.text)]
    if not rows:
        return 0
    vectors = embedder.embed([memory_embedding_text(key=row.key, text=row.text) for row in rows])
    literals = ["[" + ",".join(f"{x:.8g}" for x in vector) + "]" for vector in vectors]
    moved = (
        "AND (m.embedding IS NULL OR m.embedding_model <> %s OR (m.embedding <=> u.embedding) > %s)"
        if only_if_moved
        else ""
    )
    table = Memory._meta.db_table
    # One statement per batch: it commits on its own (autocommit) or with the caller's transaction.
    sql = f"""
        UPDATE {table} AS m
           SET embedding = u.embedding, embedding_model = %s
          FROM (SELECT id, tenant_id, key, text, embedding::vector AS embedding
                  FROM unnest(%s::bigint[], %s::bigint[], %s::text[], %s::text[], %s::text[])
                       AS t(id, tenant_id, key, text, embedding)) AS u
         WHERE m.id = u.id AND m.tenant_id = u.tenant_id
           AND m.key = u.key AND m.text = u.text
           {moved}
    """
    params: list = [
        embedder.name,
        [row.id for row in rows],
        [row.tenant_id for row in rows],
        [row.key for row in rows],
        [row.text for row in rows],
        literals,
    ]
    if only_if_moved:
        params += [embedder.name, UNCHANGED_DISTANCE]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount
