"""Intelligence's Celery tasks. Thin: ids plus the tenant id in, one service call, retries here.

Why asynchronous: extraction goes through promote(), whose judge may call an LLM provider (seconds, and a
provider that can fail transiently) — not on an operator's click. Outcome evaluation waits for each agent's
"evaluate outcomes after" delay: a periodic (beat) task judges the runs that matured since the last pass.
Both are idempotent (a decided action is extracted once; a run's outcome is evaluated once).
"""

from django.db import OperationalError

from config.celery import app

from . import runs


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
