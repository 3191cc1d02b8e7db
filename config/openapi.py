"""The OpenAPI schema explains itself: operations grouped by tag, each with a summary, and examples of the
calls agents make most; a "Getting started" description on the schema.

One postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]) does it from the tables below, so the
words live in one place beside each other rather than scattered over sixty decorators; each operation's
description stays the view's docstring (the behaviour, quoted where it is implemented).
"""

from __future__ import annotations

from typing import Any

from .openapi_examples import EXAMPLES

GETTING_STARTED = """Typed, tenant-isolated memory for a business's AI agents.

## Getting started

1. **A key.** A tenant admin creates one in the web UI (**API keys**; the secret is shown once). Every call
   sends it: `Authorization: Bearer brn_<prefix>_<secret>`. The key decides the tenant; nothing in a URL or
   body can name another tenant's objects (they answer 404, as missing ones do).
2. **A first ticket.** The helpdesk pushes tickets: `POST /api/v1/tickets` `{"external_id": "T-1", "subject":
   "...", "status": "open"}`, then `/messages`, `/classifications`, `/approvals`, and
   `POST /api/v1/tickets/T-1/status` `{"status": "solved"}`: the Brain learns the Client Brain from it.
3. **A first context call.** At the start of a conversation an agent calls `POST /api/v1/agents/{id}/context`
   `{"conversation": "...", "conversation_id": "chat-1"}` and puts the answer's `prompt` in its system prompt;
   memories carry `[mem:ID]` tags to cite. Afterwards: `POST /api/v1/verdicts`, `/conversations/{id}/feedback`.
   The agent's own notes (`POST /api/v1/brain/memory-append`, chat-mine) are never injected: the answer's
   `notes_matching` says how many match, `POST /api/v1/brain/search` with `"scope_kind": "agent"`,
   `"scope_ids": ["<id>"]`, `"types": ["note", "chat"]` finds them, and
   `GET /api/v1/agents/{id}/memories?written_by=agent` lists them.

## Conventions

- Errors: `{"error": {"code", "message", "fields"}}`; `fields` is always an object of lists of messages.
- Lists: `limit` (at least 1; above the maximum it is clamped to it) and `offset` (at least 0); anything
  else is a 400.
- Writes through the formation gate (memory-append, lessons, chat-mine, agent memories and suggestions): a
  refused memory is a **422** with code `rejected` and the gate's reason under the field that carried the
  text; a duplicate reinforces the memory it repeats (200, that memory); a new memory is 201.
- 429 (the key's rate) and 503 (a provider down) carry `Retry-After`; retry after it.
- Python: `pip install -e clients/python` gives `brain_client` (sync and async). MCP: `manage.py brain_mcp
  --key ...` (stdio) or `/mcp` on the ASGI server (streamable HTTP, the same Bearer key).
"""

# Tag, in the order the docs show them, by the first path segments after /api/v1.
TAGS = [
    ("tenant", "The tenant, its members and its API keys (members and keys need a signed-in admin)."),
    ("tickets", "The helpdesk's tickets and their messages, classifications, approvals and status."),
    (
        "client brain",
        "The Client Brain learned from resolved tickets: context for a ticket run, copilot, rows.",
    ),
    ("agents", "Agents, their runtime context, conversations and runs with proposed actions."),
    ("memories", "An agent's memories (the Intelligence tab over REST), all through the formation gate."),
    (
        "brain",
        "Shared intelligence for agents' tools: search, ask, memory-append, lessons, chat-mine, graph.",
    ),
    ("learning", "What the Brain learns from: learning attempts, feedback, verdicts, outcomes, suggestions."),
]


def tag_for(path: str) -> str:
    parts = path.removeprefix("/api/v1/").split("/")
    head = parts[0]
    if head in ("tenant", "members", "api-keys"):
        return "tenant"
    if head == "tickets":
        return "tickets"
    if head == "client-brain":
        return "client brain"
    if head == "brain":
        return "brain"
    if head in ("learning-attempts", "verdicts") or parts[-1] in ("feedback", "outcome"):
        return "learning"
    if head == "agents" and len(parts) > 2 and parts[2] == "suggestions":
        return "learning"
    if head == "agents" and len(parts) > 2 and parts[2] == "memories":
        return "memories"
    return "agents"


SUMMARIES: dict[str, str] = {
    "v1_tenant_retrieve": "The key's tenant and role",
    "v1_members_list": "List members",
    "v1_members_create": "Add a member",
    "v1_members_retrieve": "A member",
    "v1_members_update": "Change a member's role",
    "v1_members_partial_update": "Change a member's role",
    "v1_members_destroy": "Remove a member",
    "v1_api_keys_list": "List API keys",
    "v1_api_keys_create": "Create an API key (secret shown once)",
    "v1_api_keys_retrieve": "An API key",
    "v1_api_keys_revoke_create": "Revoke an API key",
    "v1_tickets_list": "List tickets",
    "v1_tickets_create": "Create or update a ticket by external_id",
    "v1_tickets_retrieve": "A ticket",
    "v1_tickets_update": "Replace a ticket's fields",
    "v1_tickets_partial_update": "Change a ticket's fields",
    "v1_tickets_status_create": "Change a ticket's status (solved/closed/resolved starts learning)",
    "v1_tickets_messages_list": "A ticket's messages",
    "v1_tickets_messages_create": "Add a message to a ticket",
    "v1_tickets_classifications_list": "A ticket's classifications",
    "v1_tickets_classifications_create": "Add a classification to a ticket",
    "v1_tickets_approvals_list": "A ticket's approvals",
    "v1_tickets_approvals_create": "Record an approval decision on a ticket",
    "v1_client_brain_context_create": "Client Brain context for a ticket-agent run",
    "v1_client_brain_copilot_list": "Copilot lookup in the Client Brain",
    "v1_client_brain_memories_list": "List stored Client Brain rows",
    "v1_client_brain_memories_retrieve": "A stored Client Brain row",
    "v1_client_brain_memories_stats_retrieve": "Client Brain counts",
    "v1_client_brain_memories_create": "Suspended: create a Client Brain row",
    "v1_client_brain_memories_update": "Suspended: replace a Client Brain row",
    "v1_client_brain_memories_partial_update": "Suspended: change a Client Brain row",
    "v1_client_brain_memories_destroy": "Suspended: delete a Client Brain row",
    "v1_client_brain_memories_reset_create": "Suspended: reset the Client Brain",
    "v1_client_brain_memories_reset_destroy": "Suspended: reset the Client Brain",
    "v1_client_brain_prune_create": "Suspended: prune the Client Brain",
    "v1_client_brain_contribute_create": "Suspended: contribute across tenants",
    "v1_client_brain_bootstrap_create": "Suspended: global bootstrap",
    "v1_agents_list": "List agents",
    "v1_agents_create": "Create an agent",
    "v1_agents_retrieve": "An agent",
    "v1_agents_update": "Replace an agent",
    "v1_agents_partial_update": "Change an agent",
    "v1_agents_context_create": "Runtime context for an agent's conversation or run",
    "v1_conversations_messages_create": "Record the agent's response in a conversation",
    "v1_runs_retrieve": "A run with its proposed actions",
    "v1_runs_response_create": "Record a run's response and proposed actions",
    "v1_runs_actions_approve_create": "Approve a proposed action",
    "v1_runs_actions_reject_create": "Reject a proposed action",
    "v1_runs_outcome_create": "Record a run's outcome",
    "v1_agents_memories_list": "List an agent's memories (written_by=agent: the notes it wrote itself)",
    "v1_agents_memories_create": "Add a memory to an agent (through the gate)",
    "v1_agents_memories_retrieve": "An agent memory (or a note the agent wrote) with its supersede chain",
    "v1_agents_memories_partial_update": "Edit an agent memory (through the gate)",
    "v1_agents_memories_status_create": "Activate, mark stale, archive or draft a memory",
    "v1_agents_memories_supersede_create": "Supersede a memory with a newer one",
    "v1_agents_memories_promote_create": "Promote a note the agent wrote to a preference or a rule",
    "v1_brain_search_create": "Search the tenant's memories",
    "v1_brain_ask_create": "Ask a question answered from memories, with citations",
    "v1_brain_memory_append_create": "Remember a note in the agent's scope (memory-append)",
    "v1_brain_lessons_create": "Record an App's learned lesson",
    "v1_brain_chat_mine_create": "Mine memories from a conversation transcript",
    "v1_brain_memories_neighbours_list": "A memory's graph relations",
    "v1_learning_attempts_list": "List learning attempts",
    "v1_learning_attempts_retrieve": "A learning attempt",
    "v1_conversations_feedback_create": "Rate a conversation",
    "v1_runs_feedback_create": "Rate a run",
    "v1_verdicts_create": "Report a pass/fail verdict",
    "v1_agents_suggestions_list": "An agent's suggested memories waiting for review",
    "v1_agents_suggestions_activate_create": "Activate a suggested memory (optionally edited)",
    "v1_agents_suggestions_dismiss_create": "Dismiss a suggested memory",
}


def _examples(operation: dict[str, Any], examples: dict[str, Any]) -> None:
    if "request" in examples and "requestBody" in operation:
        for media in operation["requestBody"].get("content", {}).values():
            media["examples"] = {"example": {"value": examples["request"]}}
    for status, value in examples.get("responses", {}).items():
        response = operation.setdefault("responses", {}).setdefault(str(status), {"description": ""})
        response.setdefault("content", {}).setdefault("application/json", {})["examples"] = {
            "example": {"value": value}
        }


def explain(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: tags, summaries, examples, the Getting started text."""
    result["info"]["description"] = GETTING_STARTED
    result["tags"] = [{"name": name, "description": text} for name, text in TAGS]
    for path, methods in result.get("paths", {}).items():
        for operation in methods.values():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            operation_id = operation["operationId"]
            operation["tags"] = [tag_for(path)]
            if summary := SUMMARIES.get(operation_id):
                operation["summary"] = summary
            if not operation.get("description"):
                operation["description"] = operation.get("summary", "")
            if examples := EXAMPLES.get(operation_id):
                _examples(operation, examples)
    return result
