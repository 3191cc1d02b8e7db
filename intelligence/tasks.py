"""Intelligence's Celery tasks. Thin: ids plus the tenant id in, one service call, retries here.

Why asynchronous:
- extraction from an approved or rejected action goes through promote(), whose judge may call an LLM provider
  (seconds, and a provider that can fail transiently) — not on an operator's click;
- outcome evaluation waits for each agent's "evaluate outcomes after" delay: a periodic (beat) task judges the
  runs that matured since the last pass;
- a suggestion pass reads an agent's feedback, asks the producer (an LLM call when one is configured) and
  promotes each proposal (embedding, judge): too slow for the request that rated a conversation. It is
  enqueued after that rating commits, and only when the agent's threshold of new ratings is reached.
All are idempotent (a decided action is extracted once; a run's outcome is evaluated once; a second suggestion
delivery finds no new ratings past the first pass's watermark).
"""

from django.db import OperationalError

from brain.api import ProviderError
from config.celery import app

from .services import runs


@app.task(
    name="intelligence.extract_from_decision",
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    max_retries=5,
)
def extract_from_decision(tenant_id: int, action_id: int) -> str:
    """What an approved or rejected proposed action teaches, through promote(); returns promote's result."""
    outcome = runs.proposed_action_extract(tenant_id=tenant_id, action_id=action_id)
    return outcome.result if outcome else "nothing_pending"


@app.task(name="intelligence.evaluate_matured_outcomes")
def evaluate_matured_outcomes() -> int:
    """Judge the recorded outcomes of runs whose delay has passed; returns how many were judged."""
    return len(runs.runs_evaluate_matured())


@app.task(
    name="intelligence.suggest_from_feedback",
    autoretry_for=(OperationalError, ProviderError),
    retry_backoff=10,
    max_retries=3,
)
def suggest_from_feedback(tenant_id: int, agent_id: int) -> dict:
    """Run one suggestion pass for the tenant's agent (a no-op when it is gone or below its threshold)."""
    from .selectors import agent_for_tenant
    from .services import suggestions_generate

    agent = agent_for_tenant(tenant_id, agent_id)
    if agent is None:
        return {"ran": False, "reason": "agent_missing"}
    result = suggestions_generate(agent=agent)
    return {"ran": result.ran, "run_id": result.run_id, "outcomes": result.outcomes or {}}
