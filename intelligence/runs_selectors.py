"""Reads of conversations, runs, their turns and proposed actions. Tenant-scoped: each filters by the tenant
first, and a missing record and another tenant's are the same None."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from .models import AgentRun, ContextTrace, Conversation, ConversationTurn, ProposedAction


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
