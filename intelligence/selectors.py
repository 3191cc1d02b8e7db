"""Reads of the Intelligence app. Tenant-scoped: each takes the tenant and filters by it first."""

from __future__ import annotations

from django.db.models import QuerySet

from brain import api as brain_api

from .models import Agent, ContextTrace


def agents_for_tenant(tenant) -> QuerySet[Agent]:
    return Agent.objects.for_tenant(tenant).order_by("name", "id")


def agent_for_tenant(tenant, agent_id: int) -> Agent | None:
    """The tenant's agent, or None when it is missing or another tenant's (the same answer)."""
    return Agent.objects.for_tenant(tenant).filter(pk=agent_id).first()


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
