"""An agent's own writes (memory-append notes, memories mined from its chats) as the runtime counts them.

The spec stores notes "for reference" and never injects them. The runtime context answer says how many of the
agent's notes match the conversation, so an agent knows when searching them is worth a call
(`POST /api/v1/brain/search` with the agent's scope and `AGENT_WRITTEN_TYPES`); their list and records are
`agent_memory_list(..., written_by="agent")` (brain/agent_memories.py). Tenant-scoped; reads only.
"""

from __future__ import annotations

from .caches import StateCache
from .memory_state import memory_state
from .models import AGENT_WRITTEN_TYPES, BrainScopeKind, Memory, MemoryStatus
from .search import recall_scores

# How many matching notes the runtime counts at most (recall's own bound on one call).
NOTES_MATCHING_LIMIT = 100

# On the runtime's path: an agent that never wrote a note (most) costs no search at all.
_ACTIVE_NOTES = StateCache(
    "agent-active-notes", size=256, keyed_on="(tenant, agent) and the memory state of that agent's scope"
)


def agent_notes_active_count(*, tenant_id: int, agent_id: int) -> int:
    """How many active notes the agent wrote itself. Cached under the memory state of its scope."""
    state = memory_state(tenant_id, scope_kind=BrainScopeKind.AGENT, scope_ids=[str(agent_id)])

    def load() -> int:
        return (
            Memory.objects.for_tenant(tenant_id)
            .filter(
                scope_kind=BrainScopeKind.AGENT,
                scope_id=str(agent_id),
                type__in=AGENT_WRITTEN_TYPES,
                status=MemoryStatus.ACTIVE,
            )
            .count()
        )

    return _ACTIVE_NOTES.get((int(tenant_id), int(agent_id)), state, load)


def agent_notes_matching(*, tenant_id: int, agent_id: int, query: str, mode: str = "fulltext") -> int:
    """How many of the agent's active notes recall finds for `query` in `mode` (at most
    NOTES_MATCHING_LIMIT): 0 without a query or a note, with no search run."""
    if not query.strip() or not agent_notes_active_count(tenant_id=tenant_id, agent_id=agent_id):
        return 0
    return len(
        recall_scores(
            tenant_id=tenant_id,
            query=query[:2000],
            scope_kind=BrainScopeKind.AGENT,
            scope_ids=[str(agent_id)],
            types=list(AGENT_WRITTEN_TYPES),
            statuses=[MemoryStatus.ACTIVE],
            limit=NOTES_MATCHING_LIMIT,
            mode=mode,
        )
    )
