"""What the runtime context call writes, in one statement (issue 30, section 0).

A call stores its `ContextTrace` (the id verdicts refer to later), opens or continues the caller's record (a
Conversation and its turn, or an AgentRun listing the trace) and records Client Brain activity for the brand
memories it injected (one pending row, added to the counters later by a drain: brain/activity.py). These were
five statements, a savepoint and a transaction's BEGIN and COMMIT, each a round trip; they are now the WITH
clauses of one INSERT, which outside a transaction commits by itself:

- nothing is lost: the statement has committed (synchronously, as every commit here) before the answer is
  sent, so a crash between the answer and the write cannot happen; a crash before it leaves no half of it
  (no trace without its turn, no turn without its trace) and the caller gets no answer to act on;
- a caller's id (`conversation_id` / `run_id`) is an upsert on the record's unique (tenant, agent, caller's
  id): the existing row is locked and updated by the same statement, a concurrent first call with the same
  id waits and then continues the record the other created (no get-or-create retry);
- rows are written exactly as `save()` writes them (`config.rawsql.insert_values`: each field's pre_save and
  database preparation), so the ORM reads them back unchanged.

An outbox drained by a worker would still need a durable write in the request (the trace id is in the
answer and verdicts may come before a worker runs), so it would only add work.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

from brain import api as brain_api
from config.rawsql import insert_values, saved

from ..models import Agent, AgentKind, AgentRun, ContextTrace, Conversation, ConversationTurn
from ..runtime import OMITTED_DETAIL_LIMIT, ContextAssembly
from .agents import ContextRequest, agent_context_assemble, omitted_ids_by_reason

TRACE_ID = "(SELECT id FROM t)"


@dataclass(frozen=True)
class RecordRef:
    """The record a runtime context call opened or continued."""

    kind: str  # "conversation" | "run"
    id: int
    external_id: str
    created: bool

    def as_dict(self) -> dict:
        return {"id": self.id, "external_id": self.external_id, "created": self.created}


def _trace(agent: Agent, request: ContextRequest, assembly: ContextAssembly, inactive: dict, origin: str):
    return ContextTrace(
        tenant_id=agent.tenant_id,
        agent=agent,
        origin=origin,
        request_summary=request.summary(),
        request_text=request.request_text(),
        sections={
            s.name: {
                "memory_ids": s.memory_ids,
                "chars": s.chars,
                "budget": s.budget,
                "truncated": s.truncated,
            }
            for s in assembly.sections
        },
        injected_memory_ids=assembly.injected_memory_ids,
        omitted=omitted_ids_by_reason(assembly.omitted[:OMITTED_DETAIL_LIMIT]),
        omitted_counts={**assembly.omitted_counts, **{f"status_{k}": v for k, v in inactive.items()}},
        total_chars=assembly.total_chars,
        budget=assembly.budget.as_dict(),
    )


def _upsert(updates: str) -> str:
    # The arbiter is the partial unique constraint on (tenant, agent, caller's id), named by its predicate.
    return f" ON CONFLICT (tenant_id, agent_id, external_id) WHERE NOT (external_id = '') DO UPDATE SET {updates}"


def _record_clauses(agent: Agent, request: ContextRequest, external_id: str) -> list[tuple[str, str, list]]:
    """The record's WITH clauses: `r` returns the record's id and whether this statement created it."""
    returning = " RETURNING id, (xmax = 0) AS created"
    if agent.kind == AgentKind.ACTION:
        run = AgentRun(
            tenant_id=agent.tenant_id,
            agent=agent,
            external_id=external_id,
            provider=request.provider,
            campaign_ids=list(request.campaign_ids),
        )
        sql, params = insert_values(
            run, {"context_trace_id": TRACE_ID, "trace_ids": f"jsonb_build_array({TRACE_ID})"}
        )
        if external_id:
            table = AgentRun._meta.db_table
            sql += _upsert(
                f"context_trace_id = EXCLUDED.context_trace_id, trace_ids = {table}.trace_ids || EXCLUDED.trace_ids",
            )
        return [("r", sql + returning, params)]
    conversation = Conversation(tenant_id=agent.tenant_id, agent=agent, external_id=external_id)
    sql, params = insert_values(conversation, {"context_trace_id": TRACE_ID})
    if external_id:
        sql += _upsert("context_trace_id = EXCLUDED.context_trace_id")
    turn = ConversationTurn(tenant_id=agent.tenant_id)
    turn_sql, turn_params = insert_values(
        turn, {"conversation_id": "(SELECT id FROM r)", "context_trace_id": TRACE_ID}
    )
    return [("r", sql + returning, params), ("u", turn_sql, turn_params)]


def context_store(
    *,
    agent: Agent,
    request: ContextRequest,
    assembly: ContextAssembly,
    inactive: dict[str, int],
    origin: str = "api",
    external_id: str | None = None,
) -> tuple[ContextTrace, RecordRef | None]:
    """Store the call's trace, record the injected brand memories' activity and, unless `external_id` is None,
    open or continue the agent's record for the caller's id ("" opens a new one): one statement."""
    trace = _trace(agent, request, assembly, inactive, origin)
    trace_sql, trace_params = insert_values(trace)
    clauses = [("t", trace_sql + " RETURNING id", trace_params)]
    if external_id is not None:
        clauses += _record_clauses(agent, request, external_id)
    activity = brain_api.record_activity_statement(
        tenant_id=agent.tenant_id, memory_ids=assembly.section_map["brand"].memory_ids
    )
    if activity is not None:
        clauses.append(("a", activity[0], activity[1]))
    final = "SELECT t.id, r.id, r.created FROM t, r" if external_id is not None else "SELECT t.id FROM t"
    sql = "WITH " + ", ".join(f"{name} AS ({body})" for name, body, _ in clauses) + " " + final
    params = [p for _, _, clause_params in clauses for p in clause_params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    saved(trace, row[0])
    if external_id is None:
        return trace, None
    kind = "run" if agent.kind == AgentKind.ACTION else "conversation"
    return trace, RecordRef(kind, row[1], external_id, row[2])


def agent_context_build(
    *, agent: Agent, request: ContextRequest, origin: str = "api"
) -> tuple[ContextAssembly, dict[str, int], ContextTrace]:
    """Assemble the runtime context, store its `ContextTrace` and record Client Brain activity for the brand
    memories it injected (one statement; no record: `runs.agent_context_open` opens one too)."""
    assembly, inactive = agent_context_assemble(agent=agent, request=request)
    trace, _ = context_store(
        agent=agent, request=request, assembly=assembly, inactive=inactive, origin=origin
    )
    return assembly, inactive, trace
