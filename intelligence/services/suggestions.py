"""Suggested memories from operators' feedback, reviewed by an operator (spec: Feedback Loop, source "suggested").

When an agent's conversations and runs have received `suggestion_feedback_threshold` new ratings (its learning
config; 3 by default) since the last pass, the `suggest_from_feedback` task runs `suggestions_generate`:

1. the agent's ratings inside its learning window (older ones are ignored entirely), each weighed by the
   recency bias (`LearningConfig.recency_weight`: none = 1.0, moderate halves every 30 days, strong every 7);
2. the configured producer (brain's "brain.suggestions.propose": local, or the LLM provider) proposes
   memories from them, each with its evidence;
3. a proposal that repeats a dismissed suggestion (formation's duplicate rule: brain.api.dismissed_duplicate)
   is dropped; every other goes through `promote()` as source=suggested, status=draft, surface "suggestion",
   its evidence (refs, ratings, weights) in the provenance, so the gate, the judge and the backstop apply.

An operator then activates a suggestion (it becomes active; its source stays "suggested"), edits then activates
it, or dismisses it with a reason (it is archived, and it and its near duplicates are never proposed again).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from brain import api as brain_api
from brain.api import MemoryCandidate
from config.celery import task_named

from ..learning import learning_config_for
from ..models import Agent, SuggestionDismissal, SuggestionRun
from ..selectors import dismissed_memory_ids, last_run, new_ratings_count, rated_records

ACTOR = "process:suggestions"
REASON_MAX_CHARS = 500


class SuggestionNotFound(Exception):
    """No suggestion in the queue with that id for this agent (missing, another agent's or tenant's, or already
    activated or dismissed)."""

    def __init__(self, memory_id: int):
        super().__init__(memory_id)
        self.memory_id = memory_id


def _watermark(agent: Agent) -> datetime | None:
    run = last_run(agent)
    return run.feedback_through if run else None


def suggestions_due(agent: Agent) -> bool:
    """Whether the agent has reached its threshold of new ratings since the last suggestion pass."""
    threshold = learning_config_for(agent).suggestion_feedback_threshold
    return new_ratings_count(agent.tenant_id, agent.pk, after=_watermark(agent)) >= threshold


def suggestions_enqueue_if_due(*, tenant_id: int, agent_id: int) -> bool:
    """Called after a rating commits: send the suggestion task when the agent's threshold is reached."""
    from ..selectors import agent_for_tenant

    agent = agent_for_tenant(tenant_id, agent_id)
    if agent is None or not suggestions_due(agent):
        return False
    task_named("intelligence.suggest_from_feedback").delay(tenant_id, agent_id)
    return True


# --- generation ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SuggestionPass:
    """What one pass did: `ran` False when the threshold was not reached (nothing recorded)."""

    ran: bool
    run_id: int | None = None
    producer: str = ""
    considered: int = 0
    outcomes: dict[str, int] | None = None
    memory_ids: tuple[int, ...] = ()


def _evidence(records, config, now, watermark) -> list[brain_api.FeedbackEvidence]:
    return [
        brain_api.FeedbackEvidence(
            ref=r.ref,
            rating=r.rating,
            comment=r.comment,
            weight=config.recency_weight(r.feedback_at, now),
            new=watermark is None or r.feedback_at > watermark,
            rated_at=r.feedback_at.isoformat(),
        )
        for r in records
    ]


def _candidate(agent: Agent, proposal, by_ref: dict[str, Any]) -> MemoryCandidate:
    provenance = []
    for ref in proposal.evidence:
        kind, _, pk = ref.partition(":")
        item = by_ref[ref]
        provenance.append(
            {
                "kind": kind,
                "id": int(pk),
                "rating": item.rating,
                "weight": round(item.weight, 4),
                "rated_at": item.rated_at,
            }
        )
    return MemoryCandidate(
        tenant_id=agent.tenant_id,
        type=brain_api.MemoryType.AGENT_MEMORY.value,
        text=proposal.text,
        surface="suggestion",
        scope_kind="agent",
        scope_id=str(agent.pk),
        status="draft",
        source="suggested",
        category=proposal.category,
        strength=proposal.strength,
        confidence=0.6,
        provenance=provenance,
        actor=ACTOR,
        # The comments are untrusted text: an instruction aimed at the model anywhere in them rejects it.
        source_texts=[by_ref[ref].comment for ref in proposal.evidence],
    )


@transaction.atomic
def suggestions_generate(*, agent: Agent, now: datetime | None = None, force: bool = False) -> SuggestionPass:
    """One suggestion pass over the agent's feedback (module docstring). Skips (ran=False, nothing written)
    below the agent's threshold of new ratings unless `force`. Tenant-scoped by the agent; passes of one
    agent are serialised (row lock on the agent); `now` is the clock (tests drive it)."""
    Agent.objects.for_tenant(agent.tenant_id).select_for_update().filter(pk=agent.pk).first()
    now = now or timezone.now()
    config = learning_config_for(agent)
    watermark = _watermark(agent)
    if (
        not force
        and new_ratings_count(agent.tenant_id, agent.pk, after=watermark)
        < config.suggestion_feedback_threshold
    ):
        return SuggestionPass(ran=False)
    records = rated_records(agent.tenant_id, agent.pk, since=config.window_start(now))
    evidence = _evidence(records, config, now, watermark)
    by_ref = {e.ref: e for e in evidence}
    with brain_api.spend_scope(tenant_id=agent.tenant_id):  # the tenant's daily LLM limits (issue 15)
        proposals, producer = brain_api.suggestions_propose(feedback=evidence)
    dismissed = dismissed_memory_ids(agent)
    outcomes: dict[str, int] = {}
    memory_ids: list[int] = []
    for proposal in proposals:
        repeated = brain_api.dismissed_duplicate(
            tenant_id=agent.tenant_id,
            scope_kind="agent",
            scope_id=str(agent.pk),
            text=proposal.text,
            dismissed_memory_ids=dismissed,
        )
        if repeated is not None:
            outcomes["dismissed_before"] = outcomes.get("dismissed_before", 0) + 1
            continue
        outcome = brain_api.promote(_candidate(agent, proposal, by_ref))
        key = outcome.result if outcome.written else f"rejected:{outcome.reason}"
        outcomes[key] = outcomes.get(key, 0) + 1
        if outcome.written:
            memory_ids.append(outcome.memory_id)
    newest = max(
        (r.feedback_at for r in rated_records(agent.tenant_id, agent.pk, since=watermark)), default=None
    )
    run = SuggestionRun.objects.create(
        tenant_id=agent.tenant_id,
        agent=agent,
        ran_at=now,
        feedback_through=max(filter(None, [newest, watermark]), default=None),
        producer=producer,
        considered=len(evidence),
        outcomes=outcomes,
        memory_ids=memory_ids,
    )
    return SuggestionPass(
        ran=True,
        run_id=run.pk,
        producer=producer,
        considered=len(evidence),
        outcomes=outcomes,
        memory_ids=tuple(memory_ids),
    )


# --- review --------------------------------------------------------------------------------------------


def _require_suggestion(agent: Agent, memory_id: int) -> brain_api.AgentMemoryRecord:
    record = brain_api.agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id)
    if record is None or record.source != "suggested" or record.status != "draft":
        raise SuggestionNotFound(memory_id)
    return record


@transaction.atomic
def suggestion_activate(
    *, agent: Agent, memory_id: int, actor: str, **edits: Any
) -> brain_api.AgentMemoryRecord:
    """Activate a queued suggestion: it becomes active, its source stays "suggested". With `edits` (any of
    `text`, `category`, `strength`, `provider`, `campaign_ids`, `tags`) it is edited first, through the gate
    and the backstop (`GateRejected`, nothing changes). Raises SuggestionNotFound when it is not queued."""
    from .agents import agent_memory_edit, agent_memory_set_status

    _require_suggestion(agent, memory_id)
    edits = {k: v for k, v in edits.items() if v not in (None, "")}
    if edits:
        agent_memory_edit(agent=agent, memory_id=memory_id, actor=actor, **edits)
    agent_memory_set_status(agent=agent, memory_id=memory_id, status="active", actor=actor)
    return brain_api.agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id)


@transaction.atomic
def suggestion_dismiss(*, agent: Agent, memory_id: int, reason: str, actor: str) -> SuggestionDismissal:
    """Dismiss a queued suggestion with a reason (required, at most REASON_MAX_CHARS): it is archived and
    recorded, so neither it nor a near duplicate is proposed again. Raises SuggestionNotFound, ValidationError."""
    from .agents import agent_memory_set_status

    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": "Say why the suggestion is dismissed."})
    if len(reason) > REASON_MAX_CHARS:
        raise ValidationError({"reason": f"At most {REASON_MAX_CHARS} characters."})
    record = _require_suggestion(agent, memory_id)
    agent_memory_set_status(agent=agent, memory_id=memory_id, status="archived", actor=f"{actor} (dismissed)")
    return SuggestionDismissal.objects.create(
        tenant_id=agent.tenant_id,
        agent=agent,
        memory_id=memory_id,
        text=record.text,
        reason=reason,
        actor=actor[:120],
    )
