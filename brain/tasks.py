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
