"""Agent memories (spec: intelligence_and_learning.txt) as seen from outside `brain`: the one frozen value an
agent memory travels as (`AgentMemoryRecord`), and the selectors that return it (exported through brain/api.py
with the taxonomy: brain/models.py's TextChoices and `PROVIDERS`).

An agent memory is a row of the one memory table with scope kind "agent", scope id = str(agent id) and type
"agent_memory" (the `AgentMemory` proxy in brain/models.py shows them in the admin); its content is `text`.
What the agent wrote itself into the same scope (memory-append notes, chat-mined memories: `AGENT_WRITTEN_TYPES`)
travels as the same record with `written_by="agent"`; the list and get selectors read those with
`written_by="agent"` (or `"any"`), and nothing else ever does (the runtime never injects them).
Writes go through `promote()` and the memory services, never here. Every selector is tenant-scoped: it takes
the tenant id and filters by it first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np
from django.db.models import Count, Q

from .caches import StateCache
from .memory_state import memory_state
from .models import (
    AGENT_WRITTEN_TYPES,
    AgentMemory,
    BrainScopeKind,
    Memory,
    MemoryHistory,
    MemoryStatus,
    MemoryType,
)
from .search_box import search_box

AGENT_MEMORY_TYPE = MemoryType.AGENT_MEMORY
PROVIDERS = ("meta_ads", "google_ads", "tiktok_ads", "dv360")
# Who wrote the memories a selector reads: the operators' (the Intelligence tab's: added by hand or from
# suggestions), the agent's own (its notes), or both.
WRITTEN_BY = ("operator", "agent", "any")


@dataclass(frozen=True)
class AgentMemoryRecord:
    """An agent memory, as every reader outside `brain` sees it: the Intelligence tab, the REST API and the
    runtime's candidates. The runtime's (`agent_memories_active`) are cached per memory state, so treat the
    lists as read-only, and carry no timestamps (None): parsing two timestamps per row costs four times the
    rest of that load, on the request path after every write to the agent's memories."""

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
    created_at: datetime | None = None
    updated_at: datetime | None = None
    # Read with the timestamps (never on the runtime's path): who wrote it, through which write surface, how
    # often formation saw it; for a note, the caller's ids of the conversation or run that wrote it (its
    # first provenance), and the operator memories it was promoted to.
    written_by: str = "operator"
    surface: str = ""
    frequency: int = 1
    actor: str = ""
    conversation_id: str = ""
    run_id: str = ""
    promoted_to_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class AgentMemoryPage:
    items: list[AgentMemoryRecord]
    total: int
    offset: int
    limit: int


def _written_types(written_by: str) -> list[str]:
    """The memory types `written_by` lists: an operator's memories, the agent's notes, or both."""
    if written_by not in WRITTEN_BY:
        raise ValueError(f"written_by must be one of {', '.join(WRITTEN_BY)}, not {written_by!r}")
    if written_by == "operator":
        return [AGENT_MEMORY_TYPE.value]
    return (
        [*AGENT_WRITTEN_TYPES] if written_by == "agent" else [*AGENT_WRITTEN_TYPES, AGENT_MEMORY_TYPE.value]
    )


def _agent_rows(tenant_id: int, agent_id: int | str, written_by: str = "operator"):
    types = _written_types(written_by)
    if written_by == "operator":
        return AgentMemory.objects.for_tenant(tenant_id).filter(scope_id=str(agent_id))
    return Memory.objects.for_tenant(tenant_id).filter(
        scope_kind=BrainScopeKind.AGENT, scope_id=str(agent_id), type__in=types
    )


# The columns of an AgentMemoryRecord, in its field order (`scope_id` is the agent id).
_COLUMNS = (
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


# Read after the record's columns by every reader but the runtime's.
_ORIGIN_COLUMNS = ("type", "surface", "frequency", "provenance")


def _records(rows, *, timestamps: bool = True, origin: bool = True) -> list[AgentMemoryRecord]:
    """Rows as values: read as tuples of the record's columns (model instances cost more than the query).
    Without timestamps (the runtime's candidates) or `origin` (a chain: every row of the agent), nor who
    wrote them: the defaults stand."""
    if not (timestamps and origin):
        columns = _COLUMNS if timestamps else _COLUMNS[:-2]
        return [
            AgentMemoryRecord(r[0], int(r[1]), *r[2:9], list(r[9] or ()), list(r[10] or ()), *r[11:])
            for r in rows.values_list(*columns)
        ]
    records = [
        AgentMemoryRecord(
            r[0], int(r[1]), *r[2:9], list(r[9] or ()), list(r[10] or ()), *r[11:14], **_origin(*r[14:])
        )
        for r in rows.values_list(*_COLUMNS, *_ORIGIN_COLUMNS)
    ]
    return records


def _origin(memory_type: str, surface: str, frequency: int, provenance) -> dict:
    """Who wrote a row and where: its first provenance entries name the actor and the caller's conversation
    or run (memory-append's `run_id`, chat-mine's `conversation_id`)."""
    entries = [e for e in (provenance or []) if isinstance(e, dict)]
    first = {}
    for entry in entries:
        kind = entry.get("kind")
        if kind in ("conversation", "run") and kind not in first and entry.get("id") not in (None, ""):
            first[kind] = str(entry["id"])
    return {
        "written_by": "agent" if memory_type in AGENT_WRITTEN_TYPES else "operator",
        "surface": surface,
        "frequency": frequency,
        "actor": str(entries[0].get("actor", "")) if entries else "",
        "conversation_id": first.get("conversation", ""),
        "run_id": first.get("run", ""),
    }


def _with_promotions(tenant_id: int, records: list[AgentMemoryRecord]) -> list[AgentMemoryRecord]:
    """The agent's notes among `records` with the operator memories they were promoted to (one statement, and
    none when there is no note)."""
    notes = [r.id for r in records if r.written_by == "agent"]
    if not notes:
        return records
    promoted: dict[int, list[int]] = {}
    for note_id, after in (
        MemoryHistory.objects.for_tenant(tenant_id)
        .filter(memory_id__in=notes, action=MemoryHistory.Action.PROMOTED)
        .order_by("at", "id")
        .values_list("memory_id", "after")
    ):
        target = (after or {}).get("memory_id")
        if isinstance(target, int) and target not in promoted.setdefault(note_id, []):
            promoted[note_id].append(target)
    return [
        replace(r, promoted_to_ids=tuple(promoted.get(r.id, ()))) if r.id in promoted else r for r in records
    ]


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
    written_by: str = "operator",
    surface: str = "",
    offset: int = 0,
    limit: int = 25,
) -> AgentMemoryPage:
    """One page of an agent's memories, newest first, filtered.

    `written_by` is "operator" (the Intelligence tab's memories, the default), "agent" (what the agent wrote
    itself: its notes) or "any"; `surface` the write surface (e.g. "memory_append", "chat"). `scope` is
    "unscoped" (no provider, no campaigns), "scoped" (either), or a provider name. `search` goes through the
    retrieval engine (brain.search_box: typos, stems, meaning), best match first, then the memories holding it
    literally in their content or as a tag; `total` then counts what the box lists.
    """
    rows = _agent_rows(tenant_id, agent_id, written_by)
    if surface:
        rows = rows.filter(surface=surface)
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
    if search.strip():
        return _searched(
            rows, tenant_id, agent_id, written_by, search, category, strength, status, offset, limit
        )
    total = rows.count()
    page = _records(rows.order_by("-created_at", "-id")[offset : offset + limit]) if limit else []
    page = _with_promotions(tenant_id, page)
    return AgentMemoryPage(items=page, total=total, offset=offset, limit=limit)


def _searched(
    rows, tenant_id, agent_id, written_by, search, category, strength, status, offset, limit
) -> AgentMemoryPage:
    """The filtered `rows` the search box finds for `search`, best first, one page of them."""
    found = search_box(
        tenant_id=tenant_id,
        query=search,
        rows=rows,
        literal=Q(text__icontains=search.strip()) | Q(tags__contains=[search.strip()]),
        literal_order=rows.order_by("-created_at", "-id"),
        # The engine narrowed as far as its filters go; `rows` applies source and scope.
        scope_kind=BrainScopeKind.AGENT.value,
        scope_ids=[str(agent_id)],
        types=_written_types(written_by),
        statuses=[status] if status else None,
        strengths=[strength] if strength else None,
        categories=[category] if category else None,
    )
    shown = found.ids[offset : offset + limit]
    by_id = (
        {r.id: r for r in _with_promotions(tenant_id, _records(rows.filter(id__in=shown)))} if shown else {}
    )
    return AgentMemoryPage(
        items=[by_id[i] for i in shown if i in by_id], total=len(found.ids), offset=offset, limit=limit
    )


def agent_memory_get(
    *, tenant_id: int, agent_id: int, memory_id: int, written_by: str = "operator"
) -> AgentMemoryRecord | None:
    """The agent's memory, or None when it is missing, another agent's or another tenant's (same answer), or
    not written by `written_by` (by default an operator memory: the ones operators may edit)."""
    found = _records(_agent_rows(tenant_id, agent_id, written_by).filter(pk=memory_id))
    return _with_promotions(tenant_id, found)[0] if found else None


def agent_memory_chain(*, tenant_id: int, agent_id: int, memory_id: int) -> list[AgentMemoryRecord]:
    """The supersede chain through a memory, oldest first: what it replaced and what replaced it."""
    rows = {r.id: r for r in _records(_agent_rows(tenant_id, agent_id), origin=False)}
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
        chain.append(rows[current])
        current = rows[current].superseded_by_id
    return chain


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


_VECTORS = StateCache(
    "agent-memory-vectors",
    size=256,
    keyed_on="(tenant, agent, strength) and the memory state of that agent's scope",
)


def agent_memory_vectors(
    *, tenant_id: int, agent_id: int, strength: str | None = None
) -> dict[int, tuple[str, np.ndarray]]:
    """{memory id: (embedding model, its stored vector, float32)} of the agent's active memories that have
    one (of `strength` only, when given). For relevance computed in process (intelligence.relevance, mode
    "projected", which reads the preferences'): read once per memory state of the agent's scope, so a context
    call reads no vector (a memory's vector is written after its commit, which changes the state). The dict is
    the same object for as long as the state lasts (callers key what they derive from it on it)."""

    def load() -> dict[int, tuple[str, np.ndarray]]:
        rows = _agent_rows(tenant_id, agent_id).filter(status=MemoryStatus.ACTIVE, embedding__isnull=False)
        if strength is not None:
            rows = rows.filter(strength=strength)
        rows = rows.values_list("id", "embedding_model", "embedding").order_by()
        return {mid: (model, np.asarray(vector, dtype=np.float32)) for mid, model, vector in rows}

    key = (int(tenant_id), int(agent_id), strength)
    return _VECTORS.get(key, _agents_state(tenant_id, [agent_id]), load)


def _agents_state(tenant_id: int, agent_ids) -> str:
    return memory_state(tenant_id, scope_kind=BrainScopeKind.AGENT, scope_ids=[str(a) for a in agent_ids])


def agent_memories_active(*, tenant_id: int, agent_id: int) -> list[AgentMemoryRecord]:
    """Every active memory of the agent (all strengths), without timestamps: the runtime's candidates.
    Cached under the agent's memory state (read again only after a write to the agent's memories)."""
    return list(_active(tenant_id, agent_id, _agents_state(tenant_id, [agent_id])))


def agent_memory_status_counts(*, tenant_id: int, agent_ids: list[int]) -> dict[int, dict[str, int]]:
    """Per agent: how many memories in each status (for lists and for the runtime's omitted counts)."""
    agent_ids = sorted({int(a) for a in agent_ids})
    return _status_counts(tenant_id, agent_ids, _agents_state(tenant_id, agent_ids))


def agent_runtime_memories(
    *, tenant_id: int, agent_id: int
) -> tuple[tuple[AgentMemoryRecord, ...], dict[str, int]]:
    """`agent_memories_active` and the agent's `agent_memory_status_counts`, at one memory state (one
    state read instead of two on the runtime's request path). The memories are the cached tuple itself:
    the same object for as long as the state lasts, so a caller may key its own derived data on it."""
    state = _agents_state(tenant_id, [agent_id])
    counts = _status_counts(tenant_id, [int(agent_id)], state)[int(agent_id)]
    return _active(tenant_id, agent_id, state), counts


def _active(tenant_id: int, agent_id: int, state: str) -> tuple[AgentMemoryRecord, ...]:
    def load() -> tuple[AgentMemoryRecord, ...]:
        active = _agent_rows(tenant_id, agent_id).filter(status=MemoryStatus.ACTIVE).order_by()
        # With the timestamps: the runtime weighs newer patterns more heavily (an agent's recency bias).
        return tuple(_records(active, origin=False))

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
