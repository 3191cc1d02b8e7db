"""The brain's Celery tasks. Thin: they take ids plus the tenant id, call one service, and own retries.

Why asynchronous: see each service's module (embedding: brain/embedding.py). Every task here is
idempotent, so a retry or a redelivery after a lost worker does no harm.
"""

from django.db import OperationalError

from brain.embedders import TransientEmbedderError
from brain.embedding import memories_embed
from config.celery import app


@app.task(
    name="brain.embed_memories",
    autoretry_for=(TransientEmbedderError, OperationalError),
    retry_backoff=2,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=6,
)
def embed_memories(tenant_id: int, memory_ids: list[int]) -> int:
    """Embed the tenant's rows among `memory_ids` that lack a current vector; returns how many were written."""
    return memories_embed(tenant_id=tenant_id, memory_ids=memory_ids)


@app.task(name="brain.sync_memory_graphs", autoretry_for=(OperationalError,), retry_backoff=60, max_retries=3)
def sync_memory_graphs() -> dict:
    """Build the graphs of tenants that grew past TENANT_GRAPH_MIN_ROWS, drop those of tenants that shrank
    (brain.search.graphs); a cross-tenant task, under the wall's logged bypass."""
    from brain.search.graphs import sync_graphs
    from brain.search.types import recall_settings

    plan = sync_graphs(min_rows=int(recall_settings()["TENANT_GRAPH_MIN_ROWS"]))
    return {"built": sorted(plan.build), "dropped": list(plan.drop), "redone": list(plan.invalid)}


@app.task(name="brain.drain_activity", autoretry_for=(OperationalError,), retry_backoff=5, max_retries=3)
def drain_activity() -> dict:
    """Add every tenant's recorded activity to its counters (brain.activity): {tenant id: recordings added}.
    Safe to run at any time, twice at once included: each recording is counted once."""
    from brain.activity import activity_drain_all

    return {str(tenant_id): added for tenant_id, added in activity_drain_all().items()}
