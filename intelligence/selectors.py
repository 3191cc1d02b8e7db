"""Reads of the Intelligence app. Tenant-scoped: each takes the tenant and filters by it first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Count, Max, QuerySet

from brain import api as brain_api
from config.rawsql import ModelColumns

from .models import Agent, ContextTrace


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
