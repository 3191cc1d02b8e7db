"""Writes of the Intelligence app, one module per part, re-exported here:

- `agents`: agents, their settings and memories (through `brain`), the runtime context's assembly;
- `context_store`: what the runtime context call writes (its trace, record and activity), in one statement;
- `runs`: conversations and runs as records, proposed actions and their decisions, outcomes, verdicts;
- `feedback`: operators' ratings of conversations and runs;
- `suggestions`: memories suggested from feedback, and their review (activate, dismiss).

Reads are in `intelligence.selectors`; the budget and the pure assembly of the runtime context in
`intelligence.runtime`; the learning config's values and validation in `intelligence.learning`.
"""

from .agents import (
    AgentMemoryNotFound,
    AgentNameTaken,
    ContextRequest,
    NoteKeptAsWritten,
    agent_context_assemble,
    agent_create,
    agent_memory_add,
    agent_memory_edit,
    agent_memory_set_status,
    agent_memory_supersede,
    agent_note_promote,
    agent_update,
    omitted_ids_by_reason,
)
from .context_store import agent_context_build
from .feedback import conversation_feedback_set, run_feedback_set
from .runs import (
    ActionAlreadyDecided,
    OutcomeAlreadyEvaluated,
    RecordOfOtherKind,
    agent_context_open,
    conversation_message_add,
    proposed_action_decide,
    proposed_action_extract,
    run_outcome_evaluate,
    run_outcome_record,
    run_response_record,
    runs_evaluate_matured,
    verdict_apply,
)
from .suggestions import (
    SuggestionNotFound,
    SuggestionPass,
    suggestion_activate,
    suggestion_dismiss,
    suggestions_enqueue_if_due,
    suggestions_generate,
)

__all__ = [
    "ActionAlreadyDecided",
    "AgentMemoryNotFound",
    "AgentNameTaken",
    "ContextRequest",
    "NoteKeptAsWritten",
    "OutcomeAlreadyEvaluated",
    "RecordOfOtherKind",
    "SuggestionNotFound",
    "SuggestionPass",
    "agent_context_assemble",
    "agent_context_build",
    "agent_context_open",
    "agent_create",
    "agent_memory_add",
    "agent_memory_edit",
    "agent_memory_set_status",
    "agent_memory_supersede",
    "agent_note_promote",
    "agent_update",
    "conversation_feedback_set",
    "conversation_message_add",
    "omitted_ids_by_reason",
    "proposed_action_decide",
    "proposed_action_extract",
    "run_feedback_set",
    "run_outcome_evaluate",
    "run_outcome_record",
    "run_response_record",
    "runs_evaluate_matured",
    "suggestion_activate",
    "suggestion_dismiss",
    "suggestions_enqueue_if_due",
    "suggestions_generate",
    "verdict_apply",
]
