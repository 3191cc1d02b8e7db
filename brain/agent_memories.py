"""Agent memories (spec: intelligence_and_learning.txt) as seen from outside `brain`: a proxy model for the
admin, and selectors that return plain dataclasses (exported through brain/api.py).

An agent memory is a row of the one memory table with scope kind "agent", scope id = str(agent id) and type
"agent_memory"; its content is `text`. Writes go through `promote()` and the memory services, never here.
Every selector is tenant-scoped: it takes the tenant id and filters by it first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q

from config.tenancy import TenantScopedManager

from .caches import StateCache
from .memory_state import memory_state
from .models import BrainScopeKind, Memory, MemoryStatus, MemoryType

AGENT_MEMORY_TYPE = MemoryType.AGENT_MEMORY
PROVIDERS = ("meta_ads", "google_ads", "tiktok_ads", "dv360")


class AgentMemoryManager(TenantScopedManager):
    def get_queryset(self):
        return super().get_queryset().filter(scope_kind=BrainScopeKind.AGENT, type=AGENT_MEMORY_TYPE)


class AgentMemory(Memory):
    """The memory table's agent rows, for the admin (decision 1: admin and UI may show families as proxies)."""

    objects = AgentMemoryManager()

    class Meta:
        proxy = True
        verbose_name = "agent memory"
        verbose_name_plural = "agent memories"


@dataclass(frozen=True)
class AgentMemoryRecord:
    id: int
    agent_id: int
    text: str
    category: str
    source: str
    strength: str
    status: str
    confidence: float | None
    provider: str
    campaign_ids: list[str]
    tags: list[str]
    superseded_by_id: int | None
    created_at: datetime
    updated_at: datetime

    @property
    def is_scoped(self) -> bool:
        return bool(self.provider or self.campaign_ids)


@dataclass(frozen=True)
class AgentMemoryPage:
    items: list[AgentMemoryRecord]
    total: int
    offset: int
    limit: int


def _agent_rows(tenant_id: int, agent_id: int | str):
    return AgentMemory.objects.for_tenant(tenant_id).filter(scope_id=str(agent_id))


def _record(row: Memory) -> AgentMemoryRecord:
    return AgentMemoryRecord(
        id=row.id,
        agent_id=int(row.scope_id),
        text=row.text,
        category=row.category,
        source=row.source,
        strength=row.strength,
        status=row.status,
        confidence=row.confidence,
        provider=row.provider,
        campaign_ids=list(row.campaign_ids or []),
        tags=list(row.tags or []),
        superseded_by_id=row.superseded_by_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


_LIST_FIELDS = (
    "id",
    "scope_id",
    "text",
    "category",
    "source",
    "strength",
    "status",
    "confidence",
    "provider",
    "campaign_ids",
    "tags",
    "superseded_by_id",
    "created_at",
    "updated_at",
)


def agent_memory_list(
    *,
    tenant_id: int,
    agent_id: int,
    category: str = "",
    strength: str = "",
    status: str = "",
    source: str = "",
    scope: str = "",
    search: str = "",
    offset: int = 0,
    limit: int = 25,
) -> AgentMemoryPage:
    """One page of an agent's memories, newest first, filtered.

    `scope` is "unscoped" (no provider, no campaigns), "scoped" (either), or a provider name. `search` is a
    case-insensitive substring of the content or a tag.
    """
    rows = _agent_rows(tenant_id, agent_id)
    if category:
        rows = rows.filter(category=category)
    if strength:
        rows = rows.filter(strength=strength)
    if status:
        rows = rows.filter(status=status)
    if source:
        rows = rows.filter(source=source)
    if scope == "unscoped":
        rows = rows.filter(provider="", campaign_ids=[])
    elif scope == "scoped":
        rows = rows.exclude(provider="", campaign_ids=[])
    elif scope:
        rows = rows.filter(provider=scope)
    if search:
        rows = rows.filter(Q(text__icontains=search) | Q(tags__contains=[search]))
    total = rows.count()
    page = rows.order_by("-created_at", "-id").only(*_LIST_FIELDS)[offset : offset + limit]
    return AgentMemoryPage(items=[_record(r) for r in page], total=total, offset=offset, limit=limit)


def agent_memory_get(*, tenant_id: int, agent_id: int, memory_id: int) -> AgentMemoryRecord | None:
    """The agent's memory, or None when it is missing, another agent's or another tenant's (same answer)."""
    row = _agent_rows(tenant_id, agent_id).filter(pk=memory_id).first()
    return _record(row) if row else None


def agent_memory_chain(*, tenant_id: int, agent_id: int, memory_id: int) -> list[AgentMemoryRecord]:
    """The supersede chain through a memory, oldest first: what it replaced and what replaced it."""
    rows = {r.id: r for r in _agent_rows(tenant_id, agent_id).only(*_LIST_FIELDS)}
    if memory_id not in rows:
        return []
    predecessor = {r.superseded_by_id: r.id for r in rows.values() if r.superseded_by_id}
    first = memory_id
    seen = {first}
    while first in predecessor and predecessor[first] not in seen:
        first = predecessor[first]
        seen.add(first)
    chain, current, seen = [], first, set()
    while current in rows and current not in seen:
        seen.add(current)
        chain.append(_record(rows[current]))
        current = rows[current].superseded_by_id
    return chain


@dataclass(frozen=True)
class AgentMemoryCandidate:
    """What the runtime needs of an active agent memory to decide on its injection (no timestamps)."""

    id: int
    text: str
    strength: str
    category: str
    confidence: float | None
    provider: str
    campaign_ids: tuple[str, ...]
    tags: tuple[str, ...]


# On the request path of every runtime-context call: cached per process under the agents' memory state
# (brain.memory_state), so a write to an agent's memories is seen by the next call, in every process.
_ACTIVE = StateCache(
    "agent-memories-active", size=256, keyed_on="(tenant, agent) and the memory state of that agent's scope"
)
_STATUS_COUNTS = StateCache(
    "agent-memory-status-counts",
    size=256,
    keyed_on="(tenant, agent ids) and the memory state of those agents' scopes",
)


def _agents_state(tenant_id: int, agent_ids) -> str:
    return memory_state(tenant_id, scope_kind=BrainScopeKind.AGENT, scope_ids=[str(a) for a in agent_ids])


def agent_memories_active(*, tenant_id: int, agent_id: int) -> list[AgentMemoryCandidate]:
    """Every active memory of the agent (all strengths): the runtime's candidates.

    Reads only the columns the runtime uses, as tuples (model instances and timestamp parsing cost more
    than the query itself); cached under the agent's memory state.
    """
    return list(_active(tenant_id, agent_id, _agents_state(tenant_id, [agent_id])))


def agent_memory_status_counts(*, tenant_id: int, agent_ids: list[int]) -> dict[int, dict[str, int]]:
    """Per agent: how many memories in each status (for lists and for the runtime's omitted counts)."""
    agent_ids = sorted({int(a) for a in agent_ids})
    return _status_counts(tenant_id, agent_ids, _agents_state(tenant_id, agent_ids))


def agent_runtime_memories(
    *, tenant_id: int, agent_id: int
) -> tuple[tuple[AgentMemoryCandidate, ...], dict[str, int]]:
    """`agent_memories_active` and the agent's `agent_memory_status_counts`, at one memory state (one
    state read instead of two on the runtime's request path). The memories are the cached tuple itself:
    the same object for as long as the state lasts, so a caller may key its own derived data on it."""
    state = _agents_state(tenant_id, [agent_id])
    counts = _status_counts(tenant_id, [int(agent_id)], state)[int(agent_id)]
    return _active(tenant_id, agent_id, state), counts


def _active(tenant_id: int, agent_id: int, state: str) -> tuple[AgentMemoryCandidate, ...]:
    def load() -> tuple[AgentMemoryCandidate, ...]:
        rows = (
            _agent_rows(tenant_id, agent_id)
            .filter(status=MemoryStatus.ACTIVE)
            .order_by()
            .values_list(
                "id", "text", "strength", "category", "confidence", "provider", "campaign_ids", "tags"
            )
        )
        return tuple(
            AgentMemoryCandidate(
                id=r[0],
                text=r[1],
                strength=r[2],
                category=r[3],
                confidence=r[4],
                provider=r[5],
                campaign_ids=tuple(r[6] or ()),
                tags=tuple(r[7] or ()),
            )
            for r in rows
        )

    return _ACTIVE.get((int(tenant_id), int(agent_id)), state, load)


def _status_counts(tenant_id: int, agent_ids: list[int], state: str) -> dict[int, dict[str, int]]:
    def load() -> dict[int, dict[str, int]]:
        counts: dict[int, dict[str, int]] = {a: {} for a in agent_ids}
        rows = (
            AgentMemory.objects.for_tenant(tenant_id)
            .filter(scope_id__in=[str(a) for a in agent_ids])
            .values("scope_id", "status")
            .annotate(n=Count("id"))
            .order_by()
        )
        for row in rows:
            counts.setdefault(int(row["scope_id"]), {})[row["status"]] = row["n"]
        return counts

    cached = _STATUS_COUNTS.get((int(tenant_id), tuple(agent_ids)), state, load)
    return {agent: dict(by_status) for agent, by_status in cached.items()}


# --- Benchmarks only ------------------------------------------------------------------------------------


def memories_bulk_load_for_benchmark(*, tenant_id: int, rows, stdout=None, batch_size: int = 20_000) -> int:
    """Load many memory rows with COPY, bypassing promote(): for benchmarks that need 100k rows in seconds.

    Each row is a dict of Memory field values (`scope_kind`, `scope_id`, `type`, `text`, and any of `payload`,
    `status`, `strength`, `category`, `source`, `provider`, `campaign_ids`, `tags`, `confidence`...); other
    fields take their model defaults. The rows get no embeddings and no history. Never use this for product
    data: it skips the gate, the judge and the duplicate backstop.
    """
    from django.db import connection, transaction
    from django.db.models import NOT_PROVIDED
    from django.utils import timezone
    from psycopg.types.json import Jsonb

    fields = [
        f
        for f in Memory._meta.concrete_fields
        if not f.primary_key and not getattr(f, "generated", False) and f.name not in ("tenant", "embedding")
    ]
    columns = ", ".join(["tenant_id", *(f.column for f in fields)])
    now = timezone.now()
    defaults = {}
    for f in fields:
        if f.name in ("created_at", "updated_at"):
            defaults[f.name] = now
        elif f.default is not NOT_PROVIDED:
            defaults[f.name] = f.default() if callable(f.default) else f.default
        else:
            defaults[f.name] = None
    defaults["surface"] = "import"
    json_fields = {f.name for f in fields if f.get_internal_type() == "JSONField"}
    loaded = 0
    batch: list[tuple] = []

    def flush():
        nonlocal loaded
        with transaction.atomic(), connection.cursor() as cursor:
            with cursor.cursor.copy(f"COPY brain_memory ({columns}) FROM STDIN") as copy:
                for values in batch:
                    copy.write_row(values)
        loaded += len(batch)
        batch.clear()
        if stdout is not None:
            stdout.write(f"  loaded {loaded} rows")

    for row in rows:
        values = [tenant_id]
        for f in fields:
            value = row.get(f.name, defaults[f.name])
            values.append(Jsonb(value) if f.name in json_fields else value)
        batch.append(tuple(values))
        if len(batch) >= batch_size:
            flush()
    if batch:
        flush()
    return loaded
