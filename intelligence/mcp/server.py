"""The MCP tools and resources. Each tool calls the one REST endpoint it stands for, with the caller's key.

Where the key comes from: on streamable HTTP, the request's `Authorization: Bearer` header (so two agents on
one server never share a tenant); on stdio, the key the command was started with (the server's default).
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, PlainValidator, WithJsonSchema

from brain.api import MAX_ASK_LIMIT, MAX_SEARCH_LIMIT

from .rest_client import ApiError, api_call

INSTRUCTIONS = (
    "The Brain is this business's memory for its AI agents. At the start of a conversation call get_context "
    "with your agent id and the conversation so far, and put its `prompt` in your system prompt; cite the "
    "memories you use with their [mem:ID] tags. Use search or ask to look things up, remember to keep a note "
    "for later, record_lesson for what an App learned, and rate_conversation / report_verdict when the "
    "outcome is known. Every write passes the Brain's formation gate, which may refuse it with a reason. "
    "Your notes are never put in the context: when get_context's notes_matching is above 0, call search with "
    'scope_kind "agent", scope_ids [your agent id] and types ["note", "chat"] to read them.'
)

# The key of the HTTP request being served, set by http.py for the request's task: the SDK hands handlers the
# request's headers only on the 2026 protocol path, not on the stateless handshake path older clients use.
REQUEST_KEY: ContextVar[str | None] = ContextVar("brain_mcp_request_key", default=None)
# The stdio server's key, by server (build_server(default_key=...)).
_DEFAULT_KEYS: dict[int, str] = {}


def _bearer(ctx: Context | None) -> str | None:
    try:
        headers = ctx.request_context.headers if ctx is not None else None
    except (ValueError, AttributeError):
        headers = None
    value = (headers or {}).get("authorization") or ""
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _default_key(ctx: Context | None) -> str | None:
    try:
        return _DEFAULT_KEYS.get(id(ctx.mcp_server)) if ctx is not None else None
    except ValueError:
        return None


def _body(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


async def _call(ctx: Context | None, method: str, path: str, **kwargs: Any) -> Any:
    key = _bearer(ctx) or REQUEST_KEY.get() or _default_key(ctx)
    if not key:
        raise ToolError("No API key: send 'Authorization: Bearer brn_...' (or start brain_mcp with --key).")
    try:
        return await api_call(key, method, path, **kwargs)
    except ApiError as exc:
        raise ToolError(exc.describe()) from None


async def get_context(
    agent_id: Annotated[int, Field(description="The agent's id (see the brain://agents resource).")],
    conversation: Annotated[str, Field(description="The conversation so far (or the ticket's text).")],
    conversation_id: Annotated[str | None, Field(description="Your id of this conversation.")] = None,
    run_id: Annotated[str | None, Field(description="Your id of this run (action agents).")] = None,
    provider: str | None = None,
    campaign_ids: list[str] | None = None,
    tags: list[str] | None = None,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """What the agent's prompt gets for this conversation: sections with [mem:ID] tags within the character
    budget, what was left out and why, and a trace_id for verdicts. `notes_matching` counts the agent's own
    notes (remember) that match the conversation: they are never in the prompt; read them with search
    (scope_kind "agent", scope_ids [agent id], types ["note", "chat"])."""
    body = _body(
        conversation=conversation,
        conversation_id=conversation_id,
        run_id=run_id,
        provider=provider,
        campaign_ids=campaign_ids,
        tags=tags,
    )
    return await _call(ctx, "POST", f"/agents/{agent_id}/context", json=body)


async def search(
    query: Annotated[str, Field(min_length=1)],
    limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_LIMIT)] = 10,
    scope_kind: Literal["tenant", "agent", "app", "conversation"] | None = None,
    scope_ids: list[str] | None = None,
    types: Annotated[
        list[str] | None,
        Field(
            description='Memory types, e.g. ["note", "chat"] for the notes an agent wrote itself (remember, '
            'chat-mine) or ["lesson"] for an App\'s lessons.'
        ),
    ] = None,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Hybrid search (full text, trigram, vector, graph) over the tenant's memories; each result says why it
    matched. An agent's own notes: scope_kind "agent", scope_ids [its id], types ["note", "chat"]."""
    body = _body(query=query, limit=limit, scope_kind=scope_kind, scope_ids=scope_ids, types=types)
    return await _call(ctx, "POST", "/brain/search", json=body)


async def ask(
    question: Annotated[str, Field(min_length=1)],
    limit: Annotated[int, Field(ge=1, le=MAX_ASK_LIMIT)] = 10,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """An answer written only from the memories retrieved for the question, citing them as [mem:ID]."""
    return await _call(ctx, "POST", "/brain/ask", json={"question": question, "limit": limit})


async def remember(
    agent_id: int,
    text: Annotated[str, Field(min_length=1)],
    key: str | None = None,
    run_id: str | None = None,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Remember a note in the agent's own memory (memory-append). The formation gate refuses URLs, secrets,
    tool calls, narration and echoes of what you were given. A note is kept for reference and never put in
    get_context's prompt: find it again with search (scope_kind "agent", scope_ids [agent_id], types
    ["note"]); operators see it on the agent's "Written by the agent" page and may promote it to a rule."""
    body = _body(agent_id=str(agent_id), text=text, key=key, run_id=run_id)
    return await _call(ctx, "POST", "/brain/memory-append", json=body)


async def record_lesson(
    app_id: Annotated[str, Field(min_length=1)],
    template: Annotated[str, Field(min_length=1)],
    values: dict[str, str] | None = None,
    outcome: Literal["success", "failure", "neutral"] | None = None,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Record what an App learned: a template with {fields} filled from values. Find lessons with search
    (scope_kind "app", scope_ids [app_id], types ["lesson"])."""
    body = _body(app_id=app_id, template=template, values=values, outcome=outcome)
    return await _call(ctx, "POST", "/brain/lessons", json=body)


def _rating(value: Any) -> int:
    # The JSON number itself: pydantic's lax int would have turned true and 1.0 into 1 (issue 26). The same words
    # as the REST endpoint's 400.
    if type(value) is not int or value not in (1, -1):
        shown = (
            json.dumps(value)[:40]
            if isinstance(value, str | int | float | bool | None)
            else type(value).__name__
        )
        raise ValueError(
            f"Must be 1 (thumbs up) or -1 (thumbs down): send the JSON number 1 or -1, not {shown}."
        )
    return value


Rating = Annotated[
    Any,
    PlainValidator(_rating),
    WithJsonSchema({"type": "integer", "enum": [1, -1], "description": "1 (thumbs up) or -1 (thumbs down)."}),
]


async def rate_conversation(
    conversation_id: Annotated[int, Field(description="The Brain's conversation id (get_context's).")],
    rating: Rating,
    comment: Annotated[str | None, Field(max_length=2000)] = None,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Rate a conversation (1 thumbs up, -1 thumbs down) with an optional comment; ratings grow suggested
    memories."""
    body = _body(rating=rating, comment=comment)
    return await _call(ctx, "POST", f"/conversations/{conversation_id}/feedback", json=body)


async def report_verdict(
    verdict: Literal["pass", "fail"],
    trace_id: int | None = None,
    run_id: int | None = None,
    conversation_id: int | None = None,
    response_text: str | None = None,
    verdict_key: str | None = None,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Report a pass/fail verdict on a context trace, run or conversation: the memories injected there move
    in confidence (more when cited with [mem:ID]), by at most one step per trace in all, whichever way that
    trace is judged; further verdicts are recorded without moving anything."""
    body = _body(
        verdict=verdict,
        trace_id=trace_id,
        run_id=run_id,
        conversation_id=conversation_id,
        response_text=response_text,
        verdict_key=verdict_key,
    )
    return await _call(ctx, "POST", "/verdicts", json=body)


async def agents(ctx: Context, kind: str | None = None) -> dict[str, Any]:
    """The tenant's agents (id, name, kind, learning config); ?kind=knowledge|action filters."""
    return await _call(ctx, "GET", "/agents", params=_body(kind=kind, limit=200))


TOOLS = (get_context, search, ask, remember, record_lesson, rate_conversation, report_verdict)


def build_server(*, default_key: str | None = None) -> MCPServer:
    """The Brain's MCP server. `default_key` is used when a request carries no Bearer key (stdio)."""
    server = MCPServer(name="brain", title="The Brain", instructions=INSTRUCTIONS, version="1")
    if default_key:
        _DEFAULT_KEYS[id(server)] = default_key
    for tool in TOOLS:
        server.add_tool(tool)
    # A template (an optional `kind` query) because only templated resources receive the request's
    # context, and the key comes from there.
    server.resource("brain://agents{?kind}", name="agents", mime_type="application/json")(agents)
    return server
