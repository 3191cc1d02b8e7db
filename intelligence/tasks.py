"""The Intelligence app's Celery tasks. Thin: ids plus the tenant id in, one service, retries here.

Why asynchronous: a suggestion pass reads an agent's feedback, asks the producer (an LLM call when one is
configured) and promotes each proposal (embedding, judge): too slow for the request that rated a conversation.
It is enqueued after that rating commits, and only when the agent's threshold of new ratings is reached.
"""

from django.db import OperationalError

from brain.api import ProviderError
from config.celery import app


@app.task(
    name="intelligence.suggest_from_feedback",
    autoretry_for=(OperationalError, ProviderError),
    retry_backoff=10,
    max_retries=3,
)
def suggest_from_feedback(tenant_id: int, agent_id: int) -> dict:
    """Run one suggestion pass for the tenant's agent (a no-op when it is gone or below its threshold).

    Idempotent: a second delivery finds no new ratings past the first pass's watermark and does nothing.
    """
    from .selectors import agent_for_tenant
    from .suggestions import suggestions_generate

    agent = agent_for_tenant(tenant_id, agent_id)
    if agent is None:
        return {"ran": False, "reason": "agent_missing"}
    result = suggestions_generate(agent=agent)
    return {"ran": result.ran, "run_id": result.run_id, "outcomes": result.outcomes or {}}
