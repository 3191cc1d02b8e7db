"""The public module of `brain`: the only thing `tickets` and `intelligence` import from it.

It takes and returns plain typed values (frozen dataclasses, the taxonomy's TextChoices), never querysets or
model instances, and nothing for benchmarks (they import brain's modules directly) (DESIGN.md, "Layout").
Brain's own code calls its own modules, never this one (an import contract in pyproject.toml holds that).
"""

# Recorded activity of memories a caller put in a prompt (brain/activity.py).
from brain.activity import memories_record_activity, record_activity_statement  # noqa: E402,F401

# Agent memories (Intelligence tab, runtime injection): their one frozen value and the read selectors that
# return it (brain/agent_memories.py); writes go through promote() and the formation services below.
from brain.agent_memories import (  # noqa: E402,F401
    PROVIDERS,
    WRITTEN_BY,
    AgentMemoryPage,
    AgentMemoryRecord,
    agent_memories_active,
    agent_memory_chain,
    agent_memory_get,
    agent_memory_list,
    agent_memory_status_counts,
    agent_memory_vectors,
    agent_runtime_memories,
)

# What an agent wrote itself (memory-append notes, chat-mined memories): never injected, counted for the
# runtime's answer (brain/agent_notes.py); listed by agent_memory_list(written_by="agent").
from brain.agent_notes import NOTES_MATCHING_LIMIT, agent_notes_matching  # noqa: E402,F401
from brain.ask import brain_ask, validate_citations  # noqa: E402,F401

# The registry of per-process caches: intelligence registers its own into it (brain/caches.py).
from brain.caches import DerivedCache, memoize  # noqa: E402,F401

# Client Brain learning (tickets → evidence → producers → promote()); recall, continuation, the copilot
# memory tool (brain/client_brain/).
from brain.client_brain.copilot import client_brain_copilot  # noqa: E402,F401

# The readable text of Client Brain rows by id (trace chips, the Learning page).
from brain.client_brain.dashboard import client_brain_texts  # noqa: E402,F401
from brain.client_brain.producers import (  # noqa: E402,F401
    TicketEvidence,
    learn_from_evidence,
    learning_unusable_reason,
)

# The Intelligence budget preview shows what the runtime would inject without counting Client Brain activity.
from brain.client_brain.recall import assemble_context as client_brain_context_preview  # noqa: E402,F401
from brain.client_brain.recall import client_brain_context  # noqa: E402,F401

# Embeddings (decision 6): a serving process loads the query embedder at start-up (config/wsgi.py).
from brain.embedders import (  # noqa: E402,F401
    EmbedderError,
    embed_search_query,
    get_embedder,
    query_embedder_warm_up,
)

# What happened to a tenant's memories, told after the commit to the listeners that subscribe (brain/events.py).
from brain.events import subscribe as events_subscribe  # noqa: E402,F401

# Formation: promote() is the only way a memory is written; the gate, operator edits, history (brain/formation/).
from brain.formation import (  # noqa: E402,F401
    GateRejected,
    MemoryNotFound,
    MemorySuperseded,
    gate_reason_words,
    memory_history,
    memory_set_status,
    memory_supersede,
    memory_update,
    note_promote,
    promote,
)

# The BrainGraph: one memory's relations, and one-hop expansion for recall (brain/graph.py).
from brain.graph import expand_one_hop, graph_neighbours  # noqa: E402,F401

# The product's words for the codes a memory stores (strength, status, provider...), the code kept on hover:
# brain/labels.py (templates: `{% load brain_labels %}`).
from brain.labels import choices as code_choices  # noqa: E402,F401
from brain.labels import label as code_label  # noqa: E402,F401

# Caches keyed by memory state: a request that consults several reads their states once (brain/memory_state.py).
from brain.memory_state import states_read_once  # noqa: E402,F401

# The taxonomy of a memory (the database's values; labels for display): defined once, in brain/models.py.
from brain.models import (  # noqa: E402,F401
    AGENT_WRITTEN_TYPES,
    SETTABLE_STATUSES,
    MemoryCategory,
    MemorySource,
    MemoryStatus,
    MemoryStrength,
    MemoryType,
)

# Memories in prompts: quoted as untrusted data; look-alikes of a [mem:ID] tag read as the tag (brain/prompting.py).
from brain.prompting import canonical_tags, quote  # noqa: E402,F401

# Errors of the configured LLM provider.
from brain.providers import BudgetExhausted, ProviderError, spend_scope  # noqa: E402,F401

# The context call's reads on a read replica when it has the memory states they depend on (brain/replicas.py).
from brain.replicas import reads_on_replica  # noqa: E402,F401

# The REST API's caps on how many memories a search or an ask returns: other surfaces (the MCP tools) offer
# the same range.
from brain.rest.serializers.search import MAX_ASK_LIMIT, MAX_SEARCH_LIMIT  # noqa: E402,F401

# Recall: hybrid retrieval with explanations (brain/search/, the retrieval engine).
from brain.search import RecalledMemory, RecallInputError, Reranker, recall, recall_scores  # noqa: E402,F401

# Suggestions from operators' feedback: the producers (local and LLM) and the dismissed-duplicate rule
# (brain/suggestions.py); the caller promotes each suggestion as source=suggested, status=draft.
from brain.suggestions import (  # noqa: E402,F401
    FeedbackEvidence,
    dismissed_duplicate,
    suggestion_evidence,
    suggestions_propose,
)

# What a write surface hands to promote(), and what promote() answers (brain/types.py).
from brain.types import MemoryCandidate, PromoteOutcome  # noqa: E402,F401

# Evaluator verdicts grade the confidence of the memories a judged record's traces injected (brain/verdicts.py).
from brain.verdicts import (  # noqa: E402,F401
    VERDICTS,
    VerdictInputError,
    VerdictResult,
    apply_evaluator_verdict,
)
