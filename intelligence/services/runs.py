"""Conversations and runs as records (issue 14, section 1), what learning makes of an operator's decision on a
proposed action (section 4: approved / rejected), matured outcomes and evaluator verdicts (sections 4, 5).

- The runtime context call opens or continues a Conversation (knowledge agents) or an AgentRun (action
  agents) keyed by the caller's `conversation_id` / `run_id` (unique per tenant and agent; a call without
  one opens a new record each time), and links the trace: a conversation gets a turn per call, a run lists
  every trace in `trace_ids`.
- An approval extracts a pattern (`heuristic`, category `preference`: what this tenant's operators accept),
  a rejection what to avoid (`correction`): `source=derived`, `status=draft`, through `promote()` (gate,
  judge, backstop), in a Celery task after commit — unless the agent's setting is off, or the run is older
  than the agent's learning window (then nothing is extracted, and the action says why).
- Evaluating an outcome: an action run's recorded `outcome` (success / failure, posted by the agent or the
  helpdesk) becomes a `pass` / `fail` verdict through `brain.api.apply_evaluator_verdict` — the function
  `POST /api/v1/verdicts` calls — once the agent's "evaluate outcomes after" delay has passed since the action
  was approved (the latest approval of the run's actions; a run with none approved counts from its response,
  when its actions were executed, else from its start): the delay gives the action time to produce its outcome.
  A beat task picks the matured runs; before the delay nothing is judged. Every verdict names the
  judged record (`trace:` / `run:` / `conversation:<pk>`) and, for each of its context traces (`trace:<pk>`,
  the same name in every record), the memories it injected: brain spends one delta per trace and memory, so
  a trace judged alone, through its run and through its conversation moves a memory once (issue 26).
- The learning window bounds verdicts as it bounds feedback and extraction (issue 27): a trace older than the
  agent's window is left out of any verdict, and a verdict on a record whose traces are all older is not applied
  at all (`ignored`: "outside_learning_window"; an outcome so judged leaves the queue and says so).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from brain import api as brain_api
from brain.api import MemoryCandidate, PromoteOutcome
from config.celery import enqueue_after_commit

from .. import selectors
from ..learning import EVALUATE_AFTER_HOURS_CHOICES, LEARNING_CONFIG_DEFAULTS, learning_config_for
from ..models import (
    Agent,
    AgentKind,
    AgentRun,
    ContextTrace,
    Conversation,
    ConversationTurn,
    ProposedAction,
    ProposedActionStatus,
    RunOutcome,
)
from .agents import ContextRequest, agent_context_assemble
from .context_store import context_store

RECOMMENDATION_MAX_CHARS = 700
REASON_MAX_CHARS = 2000
OUTCOME_VERDICT_KEY = "outcome"
OUTCOME_VERDICTS = {RunOutcome.SUCCESS: "pass", RunOutcome.FAILURE: "fail"}
OUTSIDE_LEARNING_WINDOW = "outside_learning_window"


class ActionAlreadyDecided(Exception):
    def __init__(self, action: ProposedAction):
        super().__init__(f"proposed action {action.pk} was already {action.status}")
        self.action = action


class OutcomeAlreadyEvaluated(Exception):
    def __init__(self, run_id: int):
        super().__init__(f"run {run_id}'s outcome was already evaluated")
        self.run_id = run_id


# --- Section 1: records ---------------------------------------------------------------------------------


class RecordOfOtherKind(ValidationError):
    """A conversation id for an action agent, or a run id for a knowledge agent: the record asked for conflicts
    with the agent's kind (what is stored), not with the request's shape. REST answers it 409."""


def _check_record_keys(agent: Agent, conversation_id: str, run_id: str) -> None:
    if agent.kind == AgentKind.ACTION and conversation_id:
        raise RecordOfOtherKind(
            {"conversation_id": "This is an action agent: send run_id, not conversation_id."}
        )
    if agent.kind == AgentKind.KNOWLEDGE and run_id:
        raise RecordOfOtherKind({"run_id": "This is a knowledge agent: send conversation_id, not run_id."})


def agent_context_open(*, agent: Agent, request: ContextRequest, conversation_id: str = "", run_id: str = ""):
    """The runtime context call: assemble (reads only), then store the trace, open or continue the agent's
    record for the caller's id — idempotent per (tenant, agent, caller's id) — and count the brand memories'
    activity in one statement (`context_store`: committed before the answer, all or nothing).

    Returns (assembly, inactive counts, trace, RecordRef). Raises ValidationError, before anything is
    written, when the id does not fit the agent's kind (a run_id for a knowledge agent, a conversation_id
    for an action agent)."""
    conversation_id, run_id = (conversation_id or "").strip(), (run_id or "").strip()
    _check_record_keys(agent, conversation_id, run_id)
    assembly, inactive = agent_context_assemble(agent=agent, request=request)
    trace, record = context_store(
        agent=agent,
        request=request,
        assembly=assembly,
        inactive=inactive,
        external_id=run_id if agent.kind == AgentKind.ACTION else conversation_id,
    )
    return assembly, inactive, trace, record


@transaction.atomic
def conversation_message_add(
    *, conversation: Conversation, text: str, trace_id: int | None = None
) -> ConversationTurn:
    """Store the agent's response for a turn: the turn served by `trace_id`, else the latest turn still
    without a response, else a new turn without a trace. Re-posting to a trace's turn replaces its text."""
    turns = selectors.conversation_turns(conversation).select_for_update()
    if trace_id is not None:
        turn = turns.filter(context_trace_id=trace_id).first()
        if turn is None:
            raise ValidationError({"trace_id": "This trace did not serve a turn of this conversation."})
    else:
        turn = turns.filter(response_text="").order_by("-created_at", "-id").first()
        if turn is None:
            turn = ConversationTurn(tenant_id=conversation.tenant_id, conversation=conversation)
    turn.response_text = text
    turn.responded_at = timezone.now()
    turn.save()
    return turn


def _action_identity(action_type: str, payload, recommendation: str) -> tuple:
    return (
        action_type,
        repr(sorted(payload.items())) if isinstance(payload, dict) else repr(payload),
        recommendation,
    )


@transaction.atomic
def run_response_record(*, run: AgentRun, text: str, proposed_actions: list[dict] | None = None) -> AgentRun:
    """Store the run's response and the actions it proposes (each {"type", "payload", "recommendation"}).
    Re-posting replaces the text; an action identical to one the run already has is not added twice."""
    run = AgentRun.objects.for_tenant(run.tenant_id).select_for_update().get(pk=run.pk)
    run.response_text = text
    run.responded_at = timezone.now()
    run.save(update_fields=["response_text", "responded_at"])
    existing = {
        _action_identity(a.action_type, a.payload, a.recommendation) for a in selectors.run_actions(run)
    }
    for item in proposed_actions or []:
        identity = _action_identity(item["type"], item.get("payload") or {}, item.get("recommendation", ""))
        if identity in existing:
            continue
        existing.add(identity)
        ProposedAction.objects.create(
            tenant_id=run.tenant_id,
            run=run,
            action_type=item["type"],
            payload=item.get("payload") or {},
            recommendation=item.get("recommendation", ""),
        )
    return run


# --- Section 4: approvals and rejections teach ------------------------------------------------------------


def _extraction_plan(action: ProposedAction, run: AgentRun, now: datetime) -> dict:
    config = learning_config_for(run.agent)
    enabled = (
        config.learn_from_approved_actions
        if action.status == ProposedActionStatus.APPROVED
        else config.learn_from_rejected_recommendations
    )
    if not enabled:
        return {"result": "skipped", "reason": "setting_off"}
    if not config.in_window(run.created_at, now):
        return {"result": "skipped", "reason": "outside_learning_window"}
    return {"result": "pending", "reason": ""}


@transaction.atomic
def proposed_action_decide(
    *, action: ProposedAction, decision: str, actor: str, reason: str = "", now: datetime | None = None
) -> ProposedAction:
    """Approve or reject a proposed action, once (ActionAlreadyDecided after that), with an optional reason.
    When the agent learns from this kind of decision and the run is inside its learning window, extraction
    is enqueued after commit (`intelligence.extract_from_decision`); `action.extraction` says what happens."""
    if decision not in (ProposedActionStatus.APPROVED, ProposedActionStatus.REJECTED):
        raise ValidationError({"decision": "Choose approved or rejected."})
    if len(reason) > REASON_MAX_CHARS:
        raise ValidationError({"reason": f"Keep the reason under {REASON_MAX_CHARS} characters."})
    action = ProposedAction.objects.for_tenant(action.tenant_id).select_for_update().get(pk=action.pk)
    if action.status != ProposedActionStatus.PROPOSED:
        raise ActionAlreadyDecided(action)
    run = AgentRun.objects.for_tenant(action.tenant_id).select_related("agent").get(pk=action.run_id)
    now = now or timezone.now()
    action.status, action.reason, action.decided_by, action.decided_at = (
        decision,
        reason.strip(),
        actor[:120],
        now,
    )
    action.extraction = _extraction_plan(action, run, now)
    action.save(update_fields=["status", "reason", "decided_by", "decided_at", "extraction"])
    if action.extraction["result"] == "pending":
        enqueue_after_commit("intelligence.extract_from_decision", action.tenant_id, action.pk)
    return action


def _decision_candidate(action: ProposedAction, run: AgentRun) -> MemoryCandidate:
    recommendation = " ".join((action.recommendation or "").split())[:RECOMMENDATION_MAX_CHARS]
    label = action.action_type.replace("_", " ")
    if action.status == ProposedActionStatus.APPROVED:
        text = f"Operators approve this {label} action: {recommendation}"
        strength, category = brain_api.MemoryStrength.HEURISTIC, brain_api.MemoryCategory.PREFERENCE
    else:
        text = f"Avoid recommending this {label} action, which an operator rejected: {recommendation}"
        strength, category = brain_api.MemoryStrength.HEURISTIC, brain_api.MemoryCategory.CORRECTION
    if action.reason:
        text += f" Reason given: {' '.join(action.reason.split())[:200]}"
    return MemoryCandidate(
        tenant_id=run.tenant_id,
        type=brain_api.MemoryType.AGENT_MEMORY.value,
        surface="operator",
        scope_kind="agent",
        scope_id=str(run.agent_id),
        status=brain_api.MemoryStatus.DRAFT.value,
        source=brain_api.MemorySource.DERIVED.value,
        strength=strength.value,
        category=category.value,
        provider=run.provider,
        text=text,
        actor=f"process:learn_from_{action.status}",
        provenance=[
            {"kind": "run", "id": str(run.pk), "proposed_action": action.pk, "decision": action.status}
        ],
        injected_memory_ids=[
            i for t in selectors.traces_by_ids(run.tenant_id, run.trace_ids) for i in t.injected_memory_ids
        ],
        source_texts=[action.recommendation, action.reason],
    )


@transaction.atomic
def proposed_action_extract(*, tenant_id: int, action_id: int) -> PromoteOutcome | None:
    """Extract what a decided action teaches through promote() (idempotent: only a pending extraction runs).
    The setting and the window are read again: a change since the decision is honoured."""
    action = ProposedAction.objects.for_tenant(tenant_id).select_for_update().filter(pk=action_id).first()
    if action is None or action.extraction.get("result") != "pending":
        return None
    run = AgentRun.objects.for_tenant(tenant_id).select_related("agent").get(pk=action.run_id)
    plan = _extraction_plan(action, run, timezone.now())
    if plan["result"] != "pending":
        action.extraction = plan
        action.save(update_fields=["extraction"])
        return None
    outcome = brain_api.promote(_decision_candidate(action, run))
    action.extraction = {"result": outcome.result, "reason": outcome.reason, "memory_id": outcome.memory_id}
    action.save(update_fields=["extraction"])
    return outcome


# --- Sections 4 and 5: outcomes and verdicts --------------------------------------------------------------


@transaction.atomic
def run_outcome_record(*, run: AgentRun, outcome: str) -> AgentRun:
    """Record a run's outcome (success / failure); it may change until it has been evaluated."""
    if outcome not in RunOutcome.values:
        raise ValidationError({"outcome": "Choose success or failure."})
    run = AgentRun.objects.for_tenant(run.tenant_id).select_for_update().get(pk=run.pk)
    if run.outcome_evaluated_at is not None:
        raise OutcomeAlreadyEvaluated(run.pk)
    run.outcome, run.outcome_at = outcome, timezone.now()
    run.save(update_fields=["outcome", "outcome_at"])
    return run


def _trace_ref(trace_id: int) -> str:
    """The name of one context trace in every verdict (brain spends its one delta per memory under this name,
    whether the trace is judged alone or through its run or conversation)."""
    return f"trace:{trace_id}"


def verdict_apply(
    *,
    tenant_id: int,
    verdict: str,
    actor: str,
    response_text: str = "",
    verdict_key: str = "",
    trace: ContextTrace | None = None,
    run: AgentRun | None = None,
    conversation: Conversation | None = None,
    now: datetime | None = None,
) -> brain_api.VerdictResult:
    """Resolve what was judged — one trace, or every trace of a run / conversation — into plain values and
    apply the verdict through brain: the judged record's ref and, per underlying trace, the memories it
    injected, so that a trace moves a memory by at most one delta whichever records it is judged through.
    Traces older than the agent's learning window are left out; when every trace (or, without traces, the
    record itself) is older, nothing is applied or recorded and the result says `ignored`. Without
    `response_text`, a run's or conversation's stored responses are read for citations. Idempotent per
    (judged record, verdict key)."""
    if trace is not None:
        ref, traces, stored, record = _trace_ref(trace.pk), [trace], "", trace
    elif run is not None:
        ref, traces, stored, record = (
            f"run:{run.pk}",
            selectors.traces_by_ids(tenant_id, run.trace_ids),
            run.response_text,
            run,
        )
    elif conversation is not None:
        turns = list(selectors.conversation_turns(conversation).select_related("context_trace"))
        traces = [t.context_trace for t in turns if t.context_trace is not None]
        ref, stored, record = (
            f"conversation:{conversation.pk}",
            "\n".join(t.response_text for t in turns),
            conversation,
        )
    else:
        raise ValidationError("Name the trace, run or conversation the verdict is about.")
    now = now or timezone.now()
    start = learning_config_for(record.agent).window_start(now)
    if start is not None:
        recent = [t for t in traces if t.created_at >= start]
        if not recent and (traces or record.created_at < start):
            return brain_api.VerdictResult(
                applied=False, judged=ref, verdict=verdict, verdict_key=verdict_key, applied_at=now,
                injected_memory_ids=(), cited_memory_ids=(), cited_not_injected=(),
                ignored=OUTSIDE_LEARNING_WINDOW,
            )  # fmt: skip
        traces = recent
    return brain_api.apply_evaluator_verdict(
        tenant_id=tenant_id,
        judged=ref,
        verdict=verdict,
        response_text=response_text or stored,
        injected_by_trace={_trace_ref(t.pk): t.injected_memory_ids for t in traces},
        verdict_key=verdict_key,
        actor=actor,
    )


def _evaluation_clock(run: AgentRun) -> datetime:
    """When the delay before judging a run's outcome starts: its action's approval (the latest, if several),
    else its response (when an action agent's actions are executed), else its start."""
    approvals = [
        a.decided_at
        for a in selectors.run_actions(run)
        if a.status == ProposedActionStatus.APPROVED and a.decided_at is not None
    ]
    return max(approvals, default=None) or run.responded_at or run.created_at


@transaction.atomic
def run_outcome_evaluate(*, tenant_id: int, run_id: int, now: datetime | None = None) -> bool:
    """Judge one run's recorded outcome if its delay has passed since its clock (`_evaluation_clock`);
    returns whether it was evaluated now — applied, or ignored as older than the agent's learning window
    (`outcome_evaluation` says which)."""
    now = now or timezone.now()
    run = (
        AgentRun.objects.for_tenant(tenant_id)
        .select_for_update(skip_locked=True, of=("self",))
        .select_related("agent")
        .filter(pk=run_id, outcome_evaluated_at__isnull=True)
        .exclude(outcome="")
        .first()
    )
    if run is None or _evaluation_clock(run) + learning_config_for(run.agent).evaluate_after > now:
        return False
    result = verdict_apply(
        tenant_id=tenant_id,
        run=run,
        verdict=OUTCOME_VERDICTS[run.outcome],
        verdict_key=OUTCOME_VERDICT_KEY,
        actor="process:outcome_evaluation",
        now=now,
    )
    run.outcome_evaluated_at = now
    run.outcome_evaluation = (
        {"result": "ignored", "reason": result.ignored} if result.ignored else {"result": "applied"}
    )
    run.save(update_fields=["outcome_evaluated_at", "outcome_evaluation"])
    return True


SHORTEST_DELAY = timedelta(hours=min(hours for hours, _ in EVALUATE_AFTER_HOURS_CHOICES))


def runs_evaluate_matured(*, now: datetime | None = None, limit: int = 500) -> list[int]:
    """Judge every run whose outcome is recorded and whose agent's delay has passed (oldest first, at most
    `limit`); returns the ids judged. Runs not yet mature are left for a later pass."""
    now = now or timezone.now()
    # A prefilter only, so that runs of agents with a longer delay, or approved late, do not fill every batch:
    # the one accessor (`learning_config_for` and `_evaluation_clock`, in run_outcome_evaluate) decides.
    runs, agents, actions = AgentRun._meta.db_table, Agent._meta.db_table, ProposedAction._meta.db_table
    matured = RawSQL(
        f"COALESCE((SELECT max(pa.decided_at) FROM {actions} pa WHERE pa.run_id = {runs}.id"
        f" AND pa.status = %s), {runs}.responded_at, {runs}.created_at)"
        f" + make_interval(hours => COALESCE((SELECT (a.learning_config->>'evaluate_after_hours')::int"
        f" FROM {agents} a WHERE a.id = {runs}.agent_id), %s)) <= %s",
        [ProposedActionStatus.APPROVED.value, LEARNING_CONFIG_DEFAULTS["evaluate_after_hours"], now],
        output_field=BooleanField(),
    )
    candidates = (
        AgentRun.objects.all_tenants()
        .filter(outcome_evaluated_at__isnull=True, created_at__lte=now - SHORTEST_DELAY)
        .exclude(outcome="")
        .alias(matured=matured)
        .filter(matured=True)
        .order_by("created_at", "id")
        .values_list("tenant_id", "id")[:limit]
    )
    return [
        run_id
        for tenant_id, run_id in candidates
        if run_outcome_evaluate(tenant_id=tenant_id, run_id=run_id, now=now)
    ]
