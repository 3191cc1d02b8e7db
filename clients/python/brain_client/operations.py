"""Every agent-facing operation of the Brain API, written once for the sync and the async client.

Each method builds a `Call` and hands it to `self._send`, which the sync client answers with the decoded
JSON and the async client with an awaitable of it (`R`); `iter_*` methods hand a list's call to
`self._paginate`, an iterator or an async iterator of its rows (`I`). `@operation("...")` names the
OpenAPI operation a method covers, so a test can check the client against the server's schema.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from ._transport import Call

R = TypeVar("R")
I = TypeVar("I")  # noqa: E741
F = TypeVar("F", bound=Callable[..., Any])

JSON = dict[str, Any]


def operation(*operation_ids: str) -> Callable[[F], F]:
    """Marks a method as the client's form of the named OpenAPI operations."""

    def mark(func: F) -> F:
        func.operation_ids = operation_ids  # type: ignore[attr-defined]
        return func

    return mark


def covered_operations(cls: type) -> dict[str, str]:
    """operationId -> the method of `cls` that covers it."""
    covered: dict[str, str] = {}
    for name in dir(cls):
        for operation_id in getattr(getattr(cls, name, None), "operation_ids", ()):
            covered[operation_id] = name
    return covered


def _body(**values: Any) -> JSON:
    """A JSON body without the arguments left unset (None), so the server applies its defaults."""
    return {key: value for key, value in values.items() if value is not None}


def _seg(value: Any) -> str:
    return quote(str(value), safe="")


class Operations(Generic[R, I]):
    def _send(self, call: Call) -> R:  # pragma: no cover - implemented by the clients
        raise NotImplementedError

    def _paginate(self, call: Call, page_size: int) -> I:  # pragma: no cover
        raise NotImplementedError

    # --- tenant --------------------------------------------------------------------------------
    @operation("v1_tenant_retrieve")
    def tenant(self) -> R:
        """The tenant the key belongs to, and the key's role."""
        return self._send(Call("GET", "/tenant"))

    # --- agents --------------------------------------------------------------------------------
    @operation("v1_agents_list")
    def list_agents(
        self,
        *,
        kind: str | None = None,
        name: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> R:
        """name: the agent's exact name (how the demo's examples find "Support assistant")."""
        params = {"kind": kind, "name": name, "limit": limit, "offset": offset}
        return self._send(Call("GET", "/agents", params))

    def iter_agents(self, *, kind: str | None = None, name: str | None = None, page_size: int = 100) -> I:
        return self._paginate(Call("GET", "/agents", {"kind": kind, "name": name}), page_size)

    @operation("v1_agents_create")
    def create_agent(self, *, name: str, **fields: Any) -> R:
        """fields: kind ("knowledge" | "action"), description, learning_config, budget_overrides."""
        return self._send(Call("POST", "/agents", json={"name": name, **fields}))

    @operation("v1_agents_retrieve")
    def get_agent(self, agent_id: int) -> R:
        return self._send(Call("GET", f"/agents/{_seg(agent_id)}"))

    @operation("v1_agents_partial_update")
    def update_agent(self, agent_id: int, **fields: Any) -> R:
        """PATCH: change only the given fields."""
        return self._send(Call("PATCH", f"/agents/{_seg(agent_id)}", json=fields))

    @operation("v1_agents_update")
    def replace_agent(self, agent_id: int, *, name: str, **fields: Any) -> R:
        """PUT: the agent as given (unset fields take their defaults)."""
        return self._send(Call("PUT", f"/agents/{_seg(agent_id)}", json={"name": name, **fields}))

    @operation("v1_agents_context_create")
    def agent_context(
        self,
        agent_id: int,
        *,
        conversation: str | None = None,
        ticket_subject: str | None = None,
        ticket_message: str | None = None,
        provider: str | None = None,
        campaign_ids: list[str] | None = None,
        tags: list[str] | None = None,
        policy: str | None = None,
        knowledge_base: str | None = None,
        conversation_id: str | None = None,
        run_id: str | None = None,
    ) -> R:
        """What the agent's prompt gets for this conversation, within budget, with `[mem:ID]` tags.

        The answer's `notes_matching` counts the agent's own notes (`remember`, `mine_chat`) that match the
        conversation; notes are never put in the prompt. Fetch them when it is not 0:
        `search("...", scope_kind="agent", scope_ids=[str(agent_id)], types=["note", "chat"])`, or list
        them with `list_agent_memories(agent_id, written_by="agent")`."""
        return self._send(
            Call(
                "POST",
                f"/agents/{_seg(agent_id)}/context",
                json=_body(
                    conversation=conversation,
                    ticket_subject=ticket_subject,
                    ticket_message=ticket_message,
                    provider=provider,
                    campaign_ids=campaign_ids,
                    tags=tags,
                    policy=policy,
                    knowledge_base=knowledge_base,
                    conversation_id=conversation_id,
                    run_id=run_id,
                ),
            )
        )

    # --- agent memories -------------------------------------------------------------------------
    @operation("v1_agents_memories_list")
    def list_agent_memories(
        self, agent_id: int, *, limit: int | None = None, offset: int | None = None, **filters: Any
    ) -> R:
        """filters: category, strength, status, source, scope, q, surface, and written_by: "operator" (the
        default: the memories operators curate), "agent" (the notes the agent wrote itself with `remember` /
        `mine_chat`, never injected) or "any"."""
        params = {**filters, "limit": limit, "offset": offset}
        return self._send(Call("GET", f"/agents/{_seg(agent_id)}/memories", params))

    def iter_agent_memories(self, agent_id: int, *, page_size: int = 100, **filters: Any) -> I:
        return self._paginate(Call("GET", f"/agents/{_seg(agent_id)}/memories", filters), page_size)

    @operation("v1_agents_memories_create")
    def add_agent_memory(
        self, agent_id: int, *, content: str, category: str, strength: str, **fields: Any
    ) -> R:
        """fields: status (draft by default), provider, campaign_ids, tags. Goes through the gate."""
        body = {"content": content, "category": category, "strength": strength, **fields}
        return self._send(Call("POST", f"/agents/{_seg(agent_id)}/memories", json=body))

    @operation("v1_agents_memories_retrieve")
    def get_agent_memory(self, agent_id: int, memory_id: int) -> R:
        """An operator memory, or a note the agent wrote itself (`written_by` "agent"; e.g. the `memory_id`
        that `remember` answered)."""
        return self._send(Call("GET", f"/agents/{_seg(agent_id)}/memories/{_seg(memory_id)}"))

    @operation("v1_agents_memories_promote_create")
    def promote_note(
        self, agent_id: int, memory_id: int, *, category: str, strength: str, **fields: Any
    ) -> R:
        """Make a note the agent wrote itself an operator memory: strength "preference" or "hard_rule".
        fields: content (the note's text when left out), status ("active" by default or "draft")."""
        path = f"/agents/{_seg(agent_id)}/memories/{_seg(memory_id)}/promote"
        return self._send(Call("POST", path, json={"category": category, "strength": strength, **fields}))

    @operation("v1_agents_memories_partial_update")
    def edit_agent_memory(self, agent_id: int, memory_id: int, **fields: Any) -> R:
        """fields: content, category, strength, provider, campaign_ids, tags. New content passes the gate."""
        return self._send(Call("PATCH", f"/agents/{_seg(agent_id)}/memories/{_seg(memory_id)}", json=fields))

    @operation("v1_agents_memories_status_create")
    def set_agent_memory_status(self, agent_id: int, memory_id: int, status: str) -> R:
        path = f"/agents/{_seg(agent_id)}/memories/{_seg(memory_id)}/status"
        return self._send(Call("POST", path, json={"status": status}))

    @operation("v1_agents_memories_supersede_create")
    def supersede_agent_memory(self, agent_id: int, memory_id: int, *, content: str, **fields: Any) -> R:
        path = f"/agents/{_seg(agent_id)}/memories/{_seg(memory_id)}/supersede"
        return self._send(Call("POST", path, json={"content": content, **fields}))

    # --- suggestions ----------------------------------------------------------------------------
    @operation("v1_agents_suggestions_list")
    def list_suggestions(self, agent_id: int) -> R:
        return self._send(Call("GET", f"/agents/{_seg(agent_id)}/suggestions"))

    @operation("v1_agents_suggestions_activate_create")
    def activate_suggestion(self, agent_id: int, memory_id: int, **edits: Any) -> R:
        path = f"/agents/{_seg(agent_id)}/suggestions/{_seg(memory_id)}/activate"
        return self._send(Call("POST", path, json=edits))

    @operation("v1_agents_suggestions_dismiss_create")
    def dismiss_suggestion(self, agent_id: int, memory_id: int, *, reason: str) -> R:
        path = f"/agents/{_seg(agent_id)}/suggestions/{_seg(memory_id)}/dismiss"
        return self._send(Call("POST", path, json={"reason": reason}))

    # --- the brain: retrieval and writes -----------------------------------------------------------
    @operation("v1_brain_search_create")
    def search(self, query: str, *, limit: int | None = None, mode: str | None = None, **filters: Any) -> R:
        """filters: scope_kind, scope_ids, types, statuses, strengths, categories, confidence_range,
        mmr_lambda, expand_graph."""
        return self._send(
            Call("POST", "/brain/search", json=_body(query=query, limit=limit, mode=mode, **filters))
        )

    @operation("v1_brain_ask_create")
    def ask(self, question: str, *, limit: int | None = None, mode: str | None = None, **filters: Any) -> R:
        """An answer from the retrieved memories only, with `[mem:ID]` citations."""
        return self._send(
            Call("POST", "/brain/ask", json=_body(question=question, limit=limit, mode=mode, **filters))
        )

    @operation("v1_brain_memory_append_create")
    def remember(
        self,
        agent_id: int | str,
        text: str,
        *,
        key: str | None = None,
        run_id: str | None = None,
        **guards: Any,
    ) -> R:
        """memory-append: a note in the agent's scope. guards: system_prompt, injected_texts,
        injected_memory_ids (so the gate refuses echoes of what the agent was given).

        A note is kept for reference and never injected into the context. Read it back with
        `get_agent_memory(agent_id, memory_id)`, list the agent's notes with
        `list_agent_memories(agent_id, written_by="agent")`, and find the ones about a question with
        `search(question, scope_kind="agent", scope_ids=[str(agent_id)], types=["note", "chat"])`."""
        body = _body(agent_id=str(agent_id), text=text, key=key, run_id=run_id, **guards)
        return self._send(Call("POST", "/brain/memory-append", json=body))

    @operation("v1_brain_lessons_create")
    def record_lesson(
        self,
        app_id: str,
        template: str,
        *,
        values: dict[str, Any] | None = None,
        outcome: str | None = None,
        key: str | None = None,
        run_id: str | None = None,
        **guards: Any,
    ) -> R:
        """An App's learned outcome: `template` with {fields} filled from `values`, kept in the App's scope
        (find lessons with `search(..., scope_kind="app", scope_ids=[app_id], types=["lesson"])`)."""
        body = _body(
            app_id=app_id, template=template, values=values, outcome=outcome, key=key, run_id=run_id, **guards
        )
        return self._send(Call("POST", "/brain/lessons", json=body))

    @operation("v1_brain_chat_mine_create")
    def mine_chat(
        self,
        conversation_id: str,
        messages: list[dict[str, str]],
        *,
        agent_id: int | str | None = None,
        run_id: str | None = None,
        **guards: Any,
    ) -> R:
        """messages: [{"role": "user" | "assistant", "content": "..."}]. With `agent_id`, what is mined is
        the agent's (listed with `list_agent_memories(agent_id, written_by="agent")`, searched with
        types=["chat"] in the agent's scope); without, it stays in the conversation's scope
        (`search(..., scope_kind="conversation", scope_ids=[conversation_id])`)."""
        body = _body(
            conversation_id=conversation_id,
            messages=messages,
            agent_id=None if agent_id is None else str(agent_id),
            run_id=run_id,
            **guards,
        )
        return self._send(Call("POST", "/brain/chat-mine", json=body))

    @operation("v1_brain_memories_neighbours_list")
    def memory_neighbours(self, memory_id: int, *, limit: int | None = None, offset: int | None = None) -> R:
        path = f"/brain/memories/{_seg(memory_id)}/neighbours"
        return self._send(Call("GET", path, {"limit": limit, "offset": offset}))

    def iter_memory_neighbours(self, memory_id: int, *, page_size: int = 100) -> I:
        return self._paginate(Call("GET", f"/brain/memories/{_seg(memory_id)}/neighbours"), page_size)

    # --- Client Brain ---------------------------------------------------------------------------
    @operation("v1_client_brain_context_create")
    def client_brain_context(
        self,
        *,
        subject: str | None = None,
        latest_customer_message: str | None = None,
        ticket_id: str | None = None,
        mode: str | None = None,
        max_chars: int | None = None,
    ) -> R:
        body = _body(
            subject=subject,
            latest_customer_message=latest_customer_message,
            ticket_id=ticket_id,
            mode=mode,
            max_chars=max_chars,
        )
        return self._send(Call("POST", "/client-brain/context", json=body))

    @operation("v1_client_brain_copilot_list")
    def copilot(self, q: str) -> R:
        return self._send(Call("GET", "/client-brain/copilot", {"q": q}))

    @operation("v1_client_brain_memories_list")
    def list_client_brain_memories(
        self,
        *,
        type: str | None = None,
        status: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> R:
        params = {"type": type, "status": status, "limit": limit, "offset": offset}
        return self._send(Call("GET", "/client-brain/memories", params))

    def iter_client_brain_memories(
        self, *, type: str | None = None, status: str | None = None, page_size: int = 100
    ) -> I:
        return self._paginate(
            Call("GET", "/client-brain/memories", {"type": type, "status": status}), page_size
        )

    @operation("v1_client_brain_memories_retrieve")
    def get_client_brain_memory(self, memory_id: int) -> R:
        return self._send(Call("GET", f"/client-brain/memories/{_seg(memory_id)}"))

    @operation("v1_client_brain_memories_stats_retrieve")
    def client_brain_stats(self) -> R:
        return self._send(Call("GET", "/client-brain/memories/stats"))

    # --- conversations, runs, feedback, verdicts ---------------------------------------------------
    @operation("v1_conversations_messages_create")
    def add_conversation_message(self, conversation_id: int, text: str, *, trace_id: int | None = None) -> R:
        path = f"/conversations/{_seg(conversation_id)}/messages"
        return self._send(Call("POST", path, json=_body(text=text, trace_id=trace_id)))

    @operation("v1_conversations_feedback_create")
    def rate_conversation(self, conversation_id: int, rating: int, *, comment: str | None = None) -> R:
        """rating: the number 1 (thumbs up) or -1 (thumbs down), sent as given: anything else ("1", True,
        1.0, None) is the server's 400, raised as InvalidRequest. A new rating replaces the current one."""
        path = f"/conversations/{_seg(conversation_id)}/feedback"
        return self._send(Call("POST", path, json=_body(rating=rating, comment=comment)))

    @operation("v1_runs_retrieve")
    def get_run(self, run_id: int) -> R:
        return self._send(Call("GET", f"/runs/{_seg(run_id)}"))

    @operation("v1_runs_response_create")
    def record_run_response(
        self, run_id: int, text: str, *, proposed_actions: list[dict[str, Any]] | None = None
    ) -> R:
        body = _body(text=text, proposed_actions=proposed_actions)
        return self._send(Call("POST", f"/runs/{_seg(run_id)}/response", json=body))

    @operation("v1_runs_outcome_create")
    def record_run_outcome(self, run_id: int, outcome: str) -> R:
        return self._send(Call("POST", f"/runs/{_seg(run_id)}/outcome", json={"outcome": outcome}))

    @operation("v1_runs_actions_approve_create")
    def approve_action(self, run_id: int, action_id: int, *, reason: str | None = None) -> R:
        path = f"/runs/{_seg(run_id)}/actions/{_seg(action_id)}/approve"
        return self._send(Call("POST", path, json=_body(reason=reason)))

    @operation("v1_runs_actions_reject_create")
    def reject_action(self, run_id: int, action_id: int, *, reason: str | None = None) -> R:
        path = f"/runs/{_seg(run_id)}/actions/{_seg(action_id)}/reject"
        return self._send(Call("POST", path, json=_body(reason=reason)))

    @operation("v1_runs_feedback_create")
    def rate_run(self, run_id: int, rating: int, *, comment: str | None = None) -> R:
        """rating: the number 1 or -1, as for rate_conversation."""
        path = f"/runs/{_seg(run_id)}/feedback"
        return self._send(Call("POST", path, json=_body(rating=rating, comment=comment)))

    @operation("v1_verdicts_create")
    def report_verdict(
        self,
        verdict: str,
        *,
        trace_id: int | None = None,
        run_id: int | None = None,
        conversation_id: int | None = None,
        response_text: str | None = None,
        verdict_key: str | None = None,
    ) -> R:
        """verdict: "pass" or "fail", for one trace, run or conversation."""
        body = _body(
            verdict=verdict,
            trace_id=trace_id,
            run_id=run_id,
            conversation_id=conversation_id,
            response_text=response_text,
            verdict_key=verdict_key,
        )
        return self._send(Call("POST", "/verdicts", json=body))

    # --- tickets (the helpdesk) -------------------------------------------------------------------
    @operation("v1_tickets_list")
    def list_tickets(
        self, *, status: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> R:
        return self._send(Call("GET", "/tickets", {"status": status, "limit": limit, "offset": offset}))

    def iter_tickets(self, *, status: str | None = None, page_size: int = 100) -> I:
        return self._paginate(Call("GET", "/tickets", {"status": status}), page_size)

    @operation("v1_tickets_create")
    def upsert_ticket(self, external_id: str, **fields: Any) -> R:
        """POST creates the ticket or updates it by `external_id`. fields: subject, status, requester."""
        return self._send(Call("POST", "/tickets", json={"external_id": external_id, **fields}))

    @operation("v1_tickets_retrieve")
    def get_ticket(self, external_id: str) -> R:
        return self._send(Call("GET", f"/tickets/{_seg(external_id)}"))

    @operation("v1_tickets_partial_update")
    def update_ticket(self, external_id: str, **fields: Any) -> R:
        return self._send(Call("PATCH", f"/tickets/{_seg(external_id)}", json=fields))

    @operation("v1_tickets_update")
    def replace_ticket(self, external_id: str, **fields: Any) -> R:
        return self._send(Call("PUT", f"/tickets/{_seg(external_id)}", json=fields))

    @operation("v1_tickets_status_create")
    def set_ticket_status(self, external_id: str, status: str) -> R:
        return self._send(Call("POST", f"/tickets/{_seg(external_id)}/status", json={"status": status}))

    @operation("v1_tickets_messages_list")
    def list_ticket_messages(
        self, external_id: str, *, limit: int | None = None, offset: int | None = None, **filters: Any
    ) -> R:
        params = {**filters, "limit": limit, "offset": offset}
        return self._send(Call("GET", f"/tickets/{_seg(external_id)}/messages", params))

    @operation("v1_tickets_messages_create")
    def add_ticket_message(self, external_id: str, *, body: str, direction: str, **fields: Any) -> R:
        """direction: "inbound" | "outbound"; fields: external_id, is_note, author, sent_at."""
        payload = {"body": body, "direction": direction, **fields}
        return self._send(Call("POST", f"/tickets/{_seg(external_id)}/messages", json=payload))

    @operation("v1_tickets_classifications_list")
    def list_ticket_classifications(
        self, external_id: str, *, limit: int | None = None, offset: int | None = None
    ) -> R:
        params = {"limit": limit, "offset": offset}
        return self._send(Call("GET", f"/tickets/{_seg(external_id)}/classifications", params))

    @operation("v1_tickets_classifications_create")
    def add_ticket_classification(self, external_id: str, **fields: Any) -> R:
        """fields: category, intent, labels, confidence."""
        return self._send(Call("POST", f"/tickets/{_seg(external_id)}/classifications", json=fields))

    @operation("v1_tickets_approvals_list")
    def list_ticket_approvals(
        self, external_id: str, *, limit: int | None = None, offset: int | None = None, **filters: Any
    ) -> R:
        params = {**filters, "limit": limit, "offset": offset}
        return self._send(Call("GET", f"/tickets/{_seg(external_id)}/approvals", params))

    @operation("v1_tickets_approvals_create")
    def add_ticket_approval(
        self, external_id: str, *, proposed_action: str, decision: str, **fields: Any
    ) -> R:
        payload = {"proposed_action": proposed_action, "decision": decision, **fields}
        return self._send(Call("POST", f"/tickets/{_seg(external_id)}/approvals", json=payload))

    # --- learning attempts ------------------------------------------------------------------------
    @operation("v1_learning_attempts_list")
    def list_learning_attempts(
        self, *, limit: int | None = None, offset: int | None = None, **filters: Any
    ) -> R:
        """filters: status, skip_reason, trigger, ticket_external_id."""
        return self._send(Call("GET", "/learning-attempts", {**filters, "limit": limit, "offset": offset}))

    def iter_learning_attempts(self, *, page_size: int = 100, **filters: Any) -> I:
        return self._paginate(Call("GET", "/learning-attempts", filters), page_size)

    @operation("v1_learning_attempts_retrieve")
    def get_learning_attempt(self, attempt_id: int) -> R:
        return self._send(Call("GET", f"/learning-attempts/{_seg(attempt_id)}"))
