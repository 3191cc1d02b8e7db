"""Brain's reads, gathered from the parts that own them: the room to open first.

Each read lives with its part and is re-exported here; code inside brain imports the part itself, and the
other apps go through the facade (`brain.api`), never here. Every read is tenant-scoped: it takes the tenant
id and filters by it first.

- search/: `recall()`, hybrid retrieval with explanations (the retrieval engine and its backends);
- client_brain/: `client_brain_context` (a ticket-agent run's typed context), `client_brain_copilot`,
  `client_brain_stats` (the dashboard's figures);
- agent_memories.py: agent memories as `AgentMemoryRecord` values (`agent_memory_list`, `agent_memory_get`, ...);
- graph.py: `graph_neighbours`, a memory's relations; formation/selectors.py: `memory_history`;
- activity.py: `activity_counts`.
"""

from .activity import activity_counts
from .agent_memories import (
    agent_memories_active,
    agent_memory_chain,
    agent_memory_get,
    agent_memory_list,
    agent_memory_status_counts,
)
from .client_brain.copilot import client_brain_copilot
from .client_brain.dashboard import client_brain_stats
from .client_brain.recall import client_brain_context
from .formation.selectors import memory_history
from .graph import graph_neighbours
from .search import recall

__all__ = [
    "activity_counts",
    "agent_memories_active",
    "agent_memory_chain",
    "agent_memory_get",
    "agent_memory_list",
    "agent_memory_status_counts",
    "client_brain_context",
    "client_brain_copilot",
    "client_brain_stats",
    "graph_neighbours",
    "memory_history",
    "recall",
]
