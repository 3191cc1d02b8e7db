"""Reads for the transcript of conversations and runs (issue 28, item 3): what each context call carried (the
customer's message, stored on its trace as `request_text`) and what the agent answered, in order, with the
trace of each call; and the other way round, which conversation or run a trace served.

Selectors, tenant-scoped like `intelligence.selectors`: each takes the tenant (or a record of it) and filters
by it first. The Conversations, conversation, Runs, Traces and trace pages read them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from functools import reduce
from operator import or_
from typing import Any

from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber

from brain import api as brain_api

from .models import AgentKind, AgentRun, ContextTrace, Conversation, ConversationTurn
from .runtime import TIER_ORDER

# A conversation's or run's label on the pages: its title, else the start of its first customer message.
LABEL_CHARS = 90


def asked_of(trace: ContextTrace | None) -> str:
    """The customer's message a context call carried (traces older than `request_text`: its 200-character
    excerpt)."""
    if trace is None:
        return ""
    return trace.request_text or (trace.request_summary or {}).get("query_excerpt", "")


def memory_chips(trace: ContextTrace | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The agent memories (by tier) and the Client Brain rows the trace injected."""
    if trace is None:
        return (), ()
    sections = trace.sections or {}
    agent_ids = tuple(i for name in TIER_ORDER for i in (sections.get(name) or {}).get("memory_ids", []))
    return agent_ids, tuple((sections.get("brand") or {}).get("memory_ids", []))


@dataclass(frozen=True)
class MemoryChipRecords:
    """What the memory chips of a context show: an active agent memory's record (the tiers), a Client Brain
    row's text (brand intelligence; issue 28, item 5: its text, not only "Client Brain")."""

    agent: dict[int, Any]
    brand: dict[int, str]

    def of(self, section: str, memory_id: int) -> Any:
        return self.agent.get(memory_id) if section in TIER_ORDER else self.brand.get(memory_id)


def memory_chip_records(agent, sections: Iterable[tuple[str, Iterable[int]]]) -> MemoryChipRecords:
    """The records behind the chips of (section name, memory ids) pairs of the agent's contexts (two queries)."""
    brand_ids = [i for name, ids in sections if name not in TIER_ORDER for i in ids]
    active = brain_api.agent_memories_active(tenant_id=agent.tenant_id, agent_id=agent.pk)
    return MemoryChipRecords(
        agent={r.id: r for r in active},
        brand=brain_api.client_brain_texts(tenant_id=agent.tenant_id, memory_ids=brand_ids),
    )


def brand_chip_titles(agent, turns: Iterable[TranscriptTurn]) -> dict[int, str]:
    """{id: "Client Brain: <its text>"} for the Client Brain rows the turns' prompts were given (one query):
    the title of a transcript's compact Client Brain chip."""
    ids = {i for turn in turns for i in turn.brand_memory_ids}
    texts = brain_api.client_brain_texts(tenant_id=agent.tenant_id, memory_ids=ids)
    return {i: f"Client Brain: {texts[i]}" if i in texts else "Client Brain memory" for i in ids}


@dataclass(frozen=True)
class TranscriptTurn:
    """One exchange: the customer's message of a context call and the agent's reply. `repeats_earlier`: the
    caller sent the conversation so far again, so `asked` is only what is new since the previous call."""

    turn_id: int | None
    trace_id: int | None
    asked: str
    asked_at: datetime | None
    reply: str
    replied_at: datetime | None
    repeats_earlier: bool = False
    agent_memory_ids: tuple[int, ...] = ()
    brand_memory_ids: tuple[int, ...] = ()


def _new_part(previous: str, current: str) -> tuple[str, bool]:
    if previous and len(current) > len(previous) and current.startswith(previous):
        return current[len(previous) :].strip(), True
    return current, False


def _exchanges(calls, previous: str = "") -> list[TranscriptTurn]:
    """(turn id, trace, reply, replied at, at) per call, in order, as turns."""
    turns = []
    for turn_id, trace, reply, replied_at, at in calls:
        full = asked_of(trace)
        asked, repeats = _new_part(previous, full)
        previous = full or previous
        agent_ids, brand_ids = memory_chips(trace)
        turns.append(
            TranscriptTurn(
                turn_id=turn_id,
                trace_id=trace.pk if trace is not None else None,
                asked=asked,
                asked_at=trace.created_at if trace is not None else at,
                reply=reply,
                replied_at=replied_at,
                repeats_earlier=repeats,
                agent_memory_ids=agent_ids,
                brand_memory_ids=brand_ids,
            )
        )
    return turns


def _turn_calls(turns) -> list[tuple]:
    return [(t.pk, t.context_trace, t.response_text, t.responded_at, t.created_at) for t in turns]


def conversation_transcript(conversation: Conversation) -> list[TranscriptTurn]:
    """Every turn of the conversation, oldest first (two statements: the turns with their traces)."""
    turns = (
        ConversationTurn.objects.for_tenant(conversation.tenant_id)
        .filter(conversation=conversation)
        .select_related("context_trace")
        .order_by("created_at", "id")
    )
    return _exchanges(_turn_calls(turns) or _opening_call(conversation))


def _opening_call(conversation: Conversation) -> list[tuple]:
    """A conversation recorded with a trace but no turn (written before turns existed): that one call."""
    if conversation.context_trace_id is None:
        return []
    return [(None, conversation.context_trace, "", None, conversation.created_at)]


@dataclass(frozen=True)
class TranscriptPreview:
    """What a list shows of a conversation or run: a label, the last exchanges, and how many there are."""

    label: str
    turns: list[TranscriptTurn]
    count: int

    @property
    def earlier(self) -> int:
        return self.count - len(self.turns)


# A caller's speaker tag at the start of its text ("Customer: ..."): left out of a label, kept in the transcript.
SPEAKER = re.compile(r"^(customer|user|client|visitor|human)\s*:\s*", re.IGNORECASE)


def _label(title: str, first_asked: str, kind: str, pk: int) -> str:
    text = title or SPEAKER.sub("", " ".join(first_asked.split()))
    if not text:
        return f"{kind.capitalize()} {pk}"
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rstrip() + "…"


def conversation_previews(tenant, conversations, *, last: int = 2) -> dict[int, TranscriptPreview]:
    """Per conversation: its label and its last `last` turns (one statement for every conversation: the
    first turn, the last `last` and the one before them, by window functions over the turns)."""
    ids = [c.pk for c in conversations]
    if not ids:
        return {}
    by_conversation = F("conversation_id")
    turns = (
        ConversationTurn.objects.for_tenant(tenant)
        .filter(conversation_id__in=ids)
        .select_related("context_trace")
        .annotate(
            first=Window(RowNumber(), partition_by=[by_conversation], order_by=[F("created_at"), F("id")]),
            latest=Window(
                RowNumber(),
                partition_by=[by_conversation],
                order_by=[F("created_at").desc(), F("id").desc()],
            ),
            total=Window(Count("id"), partition_by=[by_conversation]),
        )
        .filter(Q(first=1) | Q(latest__lte=last + 1))
        .order_by("conversation_id", "created_at", "id")
    )
    grouped: dict[int, list] = {}
    for turn in turns:
        grouped.setdefault(turn.conversation_id, []).append(turn)
    previews = {}
    for conversation in conversations:
        rows = grouped.get(conversation.pk, [])
        shown = [t for t in rows if t.latest <= last]
        before = [t for t in rows if t.latest == last + 1]
        previous = asked_of(before[0].context_trace) if before else ""
        calls = _turn_calls(shown) if rows else _opening_call(conversation)
        first = asked_of(rows[0].context_trace if rows else conversation.context_trace)
        previews[conversation.pk] = TranscriptPreview(
            label=_label(conversation.title, first, "conversation", conversation.pk),
            turns=_exchanges(calls[-last:] if last else [], previous),
            count=rows[0].total if rows else len(calls),
        )
    return previews


def _traces(tenant, trace_ids) -> dict[int, ContextTrace]:
    ids = {int(i) for i in trace_ids}
    return {t.pk: t for t in ContextTrace.objects.for_tenant(tenant).filter(pk__in=ids)} if ids else {}


def _with_response(turns: list[TranscriptTurn], run: AgentRun) -> list[TranscriptTurn]:
    if turns and run.response_text:
        turns[-1] = replace(turns[-1], reply=run.response_text, replied_at=run.responded_at)
    return turns


def _trace_ids(run: AgentRun) -> list[int]:
    """The run's traces in order (a run recorded before `trace_ids` has its `context_trace` only)."""
    return list(run.trace_ids) or ([run.context_trace_id] if run.context_trace_id else [])


def run_previews(tenant, runs, *, last: int = 1) -> dict[int, TranscriptPreview]:
    """Per run: its label and its last `last` context calls with the run's response (one statement: the
    first call of each run, its last `last` and the one before them)."""
    ids_of = {r.pk: _trace_ids(r) for r in runs}
    traces = _traces(tenant, [i for ids in ids_of.values() for i in (*ids[:1], *ids[-(last + 1) :])])
    previews = {}
    for run in runs:
        ids = ids_of[run.pk]
        previous = asked_of(traces.get(ids[-last - 1])) if len(ids) > last else ""
        calls = [(None, traces[i], "", None, None) for i in ids[-last:] if i in traces]
        first = asked_of(traces.get(ids[0])) if ids else ""
        previews[run.pk] = TranscriptPreview(
            label=_label(run.summary, first, "run", run.pk),
            turns=_with_response(_exchanges(calls, previous), run),
            count=len(ids),
        )
    return previews


@dataclass(frozen=True)
class TraceRecord:
    """The conversation or run a trace served, and the agent's reply to that call (a run's response is
    shown with its latest call)."""

    kind: str  # "conversation" | "run"
    id: int
    turn_id: int | None
    reply: str

    @property
    def key(self) -> tuple[str, int]:
        return (self.kind, self.id)


def trace_records(tenant, agent, traces) -> dict[int, TraceRecord]:
    """Which conversation (knowledge agents) or run (action agents) each trace served: one statement over
    the turns (indexed by trace) or the agent's runs that list the traces."""
    ids = [t.pk for t in traces]
    if not ids:
        return {}
    if agent.kind != AgentKind.ACTION:
        turns = ConversationTurn.objects.for_tenant(tenant).filter(context_trace_id__in=ids)
        return {
            trace_id: TraceRecord("conversation", conversation_id, turn_id, reply)
            for trace_id, conversation_id, turn_id, reply in turns.values_list(
                "context_trace_id", "conversation_id", "id", "response_text"
            )
        }
    # A run lists its traces in `trace_ids` (its latest is also `context_trace`): the agent's runs holding
    # one of them (the agent's runs through index agentrun_tenant_agent).
    holds = reduce(or_, (Q(trace_ids__contains=[i]) for i in ids), Q(context_trace_id__in=ids))
    runs = (
        AgentRun.objects.for_tenant(tenant)
        .filter(agent=agent)
        .filter(holds)
        .values_list("id", "trace_ids", "context_trace_id", "response_text")
    )
    found = {}
    for run_id, trace_ids, latest, response in runs:
        for trace_id in set(trace_ids or []) & set(ids):
            found[trace_id] = TraceRecord("run", run_id, None, response if trace_id == latest else "")
    return found


def record_labels(tenant, records) -> dict[tuple[str, int], str]:
    """(kind, id) -> how the pages name a conversation or run: "Conversation 31 · <its title, else the
    caller's id>" (two statements at most)."""
    wanted: dict[str, set[int]] = {}
    for record in records:
        wanted.setdefault(record.kind, set()).add(record.id)
    labels = {}
    for kind, model, name in (("conversation", Conversation, "title"), ("run", AgentRun, "summary")):
        if not wanted.get(kind):
            continue
        rows = (
            model.objects.for_tenant(tenant)
            .filter(pk__in=wanted[kind])
            .values_list("pk", name, "external_id")
        )
        for pk, title, external_id in rows:
            text = " ".join(title.split()) or external_id
            labels[(kind, pk)] = f"{kind.capitalize()} {pk}" + (
                f" · {_label(text, '', kind, pk)}" if text else ""
            )
    return labels
