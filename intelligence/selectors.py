"""Reads of the Intelligence app: agents, their traces, conversations, runs, turns and proposed actions.
Tenant-scoped: each takes the tenant and filters by it first; a missing record and another tenant's are
the same None."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Count, Max, Prefetch, QuerySet

from brain import api as brain_api
from config.rawsql import ModelColumns

from .models import (
    Agent,
    AgentRun,
    ContextTrace,
    Conversation,
    ConversationTurn,
    FeedbackHistory,
    ProposedAction,
    SuggestionDismissal,
    SuggestionRun,
)


def agents_for_tenant(tenant) -> QuerySet[Agent]:
    return Agent.objects.for_tenant(tenant).order_by("name", "id")


# Every agent-scoped request (the runtime context above all) reads its agent: one statement written once.
_AGENT_COLUMNS = ModelColumns(Agent, "a")
_AGENT_SQL = f"SELECT {_AGENT_COLUMNS.sql} FROM {Agent._meta.db_table} a WHERE a.tenant_id = %s AND a.id = %s"


def agent_for_tenant(tenant, agent_id: int) -> Agent | None:
    """The tenant's agent, or None when it is missing or another tenant's (the same answer). When
    `tenant` is a Tenant (not an id), the agent's `tenant` is that object: no second read."""
    if tenant is None:
        return None
    tenant_id = tenant if isinstance(tenant, int) else tenant.pk
    with connection.cursor() as cursor:
        cursor.execute(_AGENT_SQL, [tenant_id, int(agent_id)])
        row = cursor.fetchone()
    if row is None:
        return None
    agent = _AGENT_COLUMNS.instance(row, connection.alias)
    if not isinstance(tenant, int):
        agent.tenant = tenant
    return agent


def agents_with_memory_counts(tenant) -> list[dict]:
    """Each agent with its memory counts per status and in total (two queries whatever the number of agents)."""
    agents = list(agents_for_tenant(tenant))
    counts = brain_api.agent_memory_status_counts(tenant_id=tenant.pk, agent_ids=[a.pk for a in agents])
    return [
        {"agent": agent, "counts": counts.get(agent.pk, {}), "total": sum(counts.get(agent.pk, {}).values())}
        for agent in agents
    ]


def recent_traces(tenant, agent: Agent, limit: int = 10) -> QuerySet[ContextTrace]:
    return ContextTrace.objects.for_tenant(tenant).filter(agent=agent).order_by("-created_at", "-id")[:limit]


@dataclass(frozen=True)
class MemoryInjections:
    """How often the runtime injected one memory (runtime calls only, not previews) and the latest traces."""

    count: int
    last_at: datetime | None
    traces: list[ContextTrace]


def memory_injections(tenant, agent: Agent, memory_id: int, *, limit: int = 10) -> MemoryInjections:
    """The runtime calls of `agent` (in `tenant`) whose context injected `memory_id`: a count, the latest time,
    and the newest `limit` traces. Two statements."""
    injected = ContextTrace.objects.for_tenant(tenant).filter(
        agent=agent, origin="api", injected_memory_ids__contains=[int(memory_id)]
    )
    summary = injected.aggregate(count=Count("id"), last_at=Max("created_at"))
    traces = list(injected.order_by("-created_at", "-id")[:limit]) if summary["count"] else []
    return MemoryInjections(count=summary["count"], last_at=summary["last_at"], traces=traces)


# Conversations and runs as records (the runtime context opens them; verdicts and feedback read them).
def _tenant_id(tenant) -> int:
    return tenant if isinstance(tenant, int) else tenant.pk


def conversation_for_tenant(tenant, conversation_id: int) -> Conversation | None:
    if tenant is None:
        return None
    return (
        Conversation.objects.for_tenant(_tenant_id(tenant))
        .select_related("agent")
        .filter(pk=int(conversation_id))
        .first()
    )


def run_for_tenant(tenant, run_id: int) -> AgentRun | None:
    if tenant is None:
        return None
    return (
        AgentRun.objects.for_tenant(_tenant_id(tenant)).select_related("agent").filter(pk=int(run_id)).first()
    )


def trace_for_tenant(tenant, trace_id: int) -> ContextTrace | None:
    if tenant is None:
        return None
    return ContextTrace.objects.for_tenant(_tenant_id(tenant)).filter(pk=int(trace_id)).first()


def proposed_action_for_run(run: AgentRun, action_id: int) -> ProposedAction | None:
    return ProposedAction.objects.for_tenant(run.tenant_id).filter(run=run, pk=int(action_id)).first()


def traces_by_ids(tenant_id: int, trace_ids) -> list[ContextTrace]:
    ids = [int(i) for i in trace_ids]
    if not ids:
        return []
    return list(ContextTrace.objects.for_tenant(tenant_id).filter(pk__in=ids).order_by("created_at", "id"))


def conversation_turns(conversation: Conversation) -> QuerySet[ConversationTurn]:
    return ConversationTurn.objects.for_tenant(conversation.tenant_id).filter(conversation=conversation)


def run_actions(run: AgentRun) -> QuerySet[ProposedAction]:
    return ProposedAction.objects.for_tenant(run.tenant_id).filter(run=run).order_by("created_at", "id")


def recent_runs(tenant, agent, limit: int = 20) -> list[AgentRun]:
    """The agent's latest runs with their proposed actions and latest trace (three queries in all)."""
    actions = ProposedAction.objects.for_tenant(_tenant_id(tenant)).order_by("created_at", "id")
    return list(
        AgentRun.objects.for_tenant(_tenant_id(tenant))
        .filter(agent=agent)
        .select_related("context_trace")
        .prefetch_related(Prefetch("proposed_actions", queryset=actions))
        .order_by("-created_at", "-id")[:limit]
    )


@dataclass(frozen=True)
class WrittenIn:
    """The conversation or run of the agent's that a caller's id names (what wrote an agent's note)."""

    kind: str  # "conversation" | "run"
    id: int
    external_id: str
    label: str  # its title (a run: its summary), or ""


def records_by_external_id(tenant, agent, external_ids) -> dict[str, WrittenIn]:
    """The agent's conversations and runs whose caller's id is among `external_ids`, by that id (a
    conversation first when both carry it). Two statements; none without an id."""
    ids = sorted({str(i) for i in external_ids if i})
    if not ids:
        return {}
    found: dict[str, WrittenIn] = {}
    for pk, external_id, summary in (
        AgentRun.objects.for_tenant(_tenant_id(tenant))
        .filter(agent=agent, external_id__in=ids)
        .values_list("pk", "external_id", "summary")
    ):
        found[external_id] = WrittenIn("run", pk, external_id, summary[:80])
    for pk, external_id, title in (
        Conversation.objects.for_tenant(_tenant_id(tenant))
        .filter(agent=agent, external_id__in=ids)
        .values_list("pk", "external_id", "title")
    ):
        found[external_id] = WrittenIn("conversation", pk, external_id, title)
    return found


# Rated conversations and runs (operator feedback), as the Conversations page and suggestions read them.
def conversations_recent(tenant, agent, limit: int = 25) -> QuerySet[Conversation]:
    return (
        Conversation.objects.for_tenant(tenant)
        .filter(agent=agent)
        .select_related("context_trace")
        .order_by("-created_at", "-id")[:limit]
    )


def runs_recent(tenant, agent, limit: int = 25) -> QuerySet[AgentRun]:
    return (
        AgentRun.objects.for_tenant(tenant)
        .filter(agent=agent)
        .select_related("context_trace")
        .order_by("-created_at", "-id")[:limit]
    )


def feedback_history(record) -> list[FeedbackHistory]:
    """Every rating the record was given, oldest first (the last one is its current rating)."""
    return list(FeedbackHistory.objects.for_tenant(record.tenant_id).filter(**{_kind(record): record}))


def _kind(record) -> str:
    return "conversation" if isinstance(record, Conversation) else "run"


@dataclass(frozen=True)
class RatedRecord:
    """A rated conversation or run, as suggestion reads it."""

    kind: str  # "conversation" | "run"
    id: int
    rating: int
    comment: str
    feedback_at: datetime

    @property
    def ref(self) -> str:
        return f"{self.kind}:{self.id}"


def rated_records(tenant_id: int, agent_id: int, *, since: datetime | None) -> list[RatedRecord]:
    """The agent's rated conversations and runs whose rating was given at or after `since` (None: all time),
    oldest first."""
    out: list[RatedRecord] = []
    for kind, model in (("conversation", Conversation), ("run", AgentRun)):
        rows = model.objects.for_tenant(tenant_id).filter(agent_id=agent_id, feedback_rating__isnull=False)
        if since is not None:
            rows = rows.filter(feedback_at__gte=since)
        for pk, rating, comment, at in rows.values_list(
            "pk", "feedback_rating", "feedback_comment", "feedback_at"
        ):
            out.append(RatedRecord(kind=kind, id=pk, rating=rating, comment=comment, feedback_at=at))
    out.sort(key=lambda r: (r.feedback_at, r.kind, r.id))
    return out


def new_ratings_count(tenant_id: int, agent_id: int, *, after: datetime | None) -> int:
    """How many of the agent's conversations and runs were rated after `after` (None: ever)."""
    total = 0
    for model in (Conversation, AgentRun):
        rows = model.objects.for_tenant(tenant_id).filter(agent_id=agent_id, feedback_rating__isnull=False)
        if after is not None:
            rows = rows.filter(feedback_at__gt=after)
        total += rows.count()
    return total


# The suggestions review queue and its dismissals.
def suggestion_queue(agent: Agent, *, offset: int = 0, limit: int = 50) -> brain_api.AgentMemoryPage:
    """The agent's suggestions waiting for review (source suggested, status draft), newest first."""
    return brain_api.agent_memory_list(
        tenant_id=agent.tenant_id,
        agent_id=agent.pk,
        source="suggested",
        status="draft",
        offset=offset,
        limit=limit,
    )


def suggestion_count(agent: Agent) -> int:
    """How many suggestions wait for review (one count statement)."""
    return suggestion_queue(agent, limit=0).total


def last_run(agent: Agent) -> SuggestionRun | None:
    return SuggestionRun.objects.for_tenant(agent.tenant_id).filter(agent=agent).first()


def dismissed_memory_ids(agent: Agent) -> list[int]:
    return list(
        SuggestionDismissal.objects.for_tenant(agent.tenant_id)
        .filter(agent=agent)
        .values_list("memory_id", flat=True)
    )


def recent_dismissals(agent: Agent, *, limit: int = 10) -> list[SuggestionDismissal]:
    return list(SuggestionDismissal.objects.for_tenant(agent.tenant_id).filter(agent=agent)[:limit])
