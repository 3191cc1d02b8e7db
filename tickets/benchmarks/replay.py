"""Replay: does learning help? A time-ordered ticket stream learned in order, each late ticket asked first.

`manage.py brain_bench replay [--json]` (issue 18). A stream of support tickets is built from the Bitext
sample (`BRAIN_BITEXT_CSV`, default ../shared/datasets/bitext_customer_support_training_4514.csv; a
CommandError names the path when it is missing): rows drawn with a fixed seed, each a ticket with a subject
and customer message from `instruction`, an outbound reply from `response` (Bitext's {{slots}} filled as
`brain.benchmarks.trust` fills them: the business's published contacts, and an order number that stays
personal data), a classification (category, intent) and a timestamp spread over several months. Rows are
reused only when more tickets are asked for than the sample holds: a repeat keeps its texts, its subject
gets "Follow-up: " in front, and it comes at its own moment of the stream.

Every ticket goes through the real pipeline in stream order: the helpdesk's services (`ticket_upsert`,
`message_add`, `classification_add`, `ticket_transition` to solved), whose learning task runs eagerly in
this process (Celery without a broker: the local producer, `promote()`'s gate, judge, backstop and the
embedding task, exactly as a worker runs them). For each ticket of the last `--eval-share` (20%), BEFORE it
is solved, the Client Brain context an agent would get (`client_brain_context`, mode initial, its subject
and customer message) is asked for and scored against the ticket's intent:

- hit: the context holds an issue memory of the same issue, with its resolution: a memory of type issues
  learned from a ticket of the same intent (the memory's provenance names the tickets it was learned and
  reinforced from; the local producer's issue key is `issue:<category>-<intent>`) whose best_resolution
  is set;
- precision: the share of injected issue and process memories learned from a ticket of the same intent;
  `precision_all` counts every injected memory, business facts by the same provenance rule and the voice
  memory as relevant (it applies to every reply, by design);
- chars: characters of the rendered Client Brain prompt section.

Two baselines are scored in the same run on the same tickets: `none` (no Client Brain: nothing injected,
hit rate 0, precision null because no memory was injected, 0 characters) and `recent` (the N most recently
learned or reinforced live Client Brain rows regardless of the ticket, N = the number the Client Brain
injected for that ticket, rendered by the same renderer within the Client Brain prompt's length).

The agents' learning window and recency bias (`intelligence/learning.py`) are settings of an agent, not of
Client Brain learning or recall, so there are no such variants here. At the end: the live issue rows, per
intent and merged across intents (`issue_rows_figures`). It lives in
`tickets` because it drives the helpdesk's trigger (brain must not import tickets); it runs in its own
database (default `brain_bench_replay`).
"""

from __future__ import annotations

import csv
import logging
import random
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.core.management.base import CommandError

from brain.benchmarks.common import bitext_path, percentile
from brain.benchmarks.trust import bitext_fill
from brain.client_brain import typed
from brain.client_brain.recall import client_brain_candidates, client_brain_context
from brain.client_brain.render import render_context
from brain.client_brain.types import ContextMemory
from brain.models import Memory
from tickets import services
from tickets.models import LearningAttempt

TENANT_SLUG = "bench-replay"
STREAM_START = datetime(2026, 5, 1, 8, 0, tzinfo=UTC)
SPECIFIC = (typed.ISSUES, typed.PROCESS)  # the families meant to be about one kind of ticket


def add_arguments(parser) -> None:
    parser.add_argument(
        "--database", default="brain_bench_replay", help="Database to run in (created if missing)."
    )
    parser.add_argument("--tickets", type=int, default=2400, help="Tickets in the stream (at least 10).")
    parser.add_argument("--months", type=int, default=6, help="Months the stream's timestamps span.")
    parser.add_argument(
        "--eval-share", type=float, default=0.2, help="Share of the stream, at its end, that is evaluated."
    )
    parser.add_argument("--seed", type=int, default=18)


# --- The stream ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamTicket:
    external_id: str
    at: datetime
    subject: str
    message: str
    reply: str
    category: str
    intent: str
    row: int  # the Bitext row it comes from
    repeat: int  # 0 for a row's first use; n for its n-th reuse


def bitext_rows(path: Path | None = None) -> list[dict[str, str]]:
    """The Bitext sample's rows (instruction, category, intent, response). CommandError naming the path when
    it is missing or lacks a column."""
    path = path or bitext_path()
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"instruction", "category", "intent", "response"} - set(reader.fieldnames or ())
        if missing:
            raise CommandError(f"the Bitext sample at {path} lacks the columns {', '.join(sorted(missing))}")
        return [row for row in reader if row["instruction"].strip() and row["response"].strip()]


def _subject(instruction: str) -> str:
    """A helpdesk-like subject: the instruction's first line, at most 80 characters cut at a word."""
    first = " ".join(instruction.strip().splitlines()[0].split())
    if len(first) > 80:
        first = first[:80].rsplit(" ", 1)[0]
    return first[:1].upper() + first[1:]


def build_stream(rows: list[dict[str, str]], *, count: int, months: int, seed: int) -> list[StreamTicket]:
    """`count` tickets drawn from `rows` with `seed`, in time order over `months` months from STREAM_START.

    Each row is used once before any is reused (a fresh shuffle per round).
    """
    rng = random.Random(seed)
    picks: list[tuple[int, int]] = []
    order = list(range(len(rows)))
    repeat = 0
    while len(picks) < count:
        rng.shuffle(order)
        picks += [(index, repeat) for index in order[: count - len(picks)]]
        repeat += 1
    span = months * 30 * 86400
    moments = sorted(rng.uniform(0, span) for _ in picks)
    stream = []
    for n, ((index, repeat), offset) in enumerate(zip(picks, moments, strict=True)):
        row = rows[index]
        subject = _subject(row["instruction"])
        stream.append(
            StreamTicket(
                external_id=f"RP-{n:05d}",
                at=STREAM_START + timedelta(seconds=offset),
                subject=f"Follow-up: {subject}" if repeat else subject,
                message=row["instruction"].strip(),
                reply=bitext_fill(row["response"]),
                category=row["category"],
                intent=row["intent"],
                row=index,
                repeat=repeat,
            )
        )
    return stream


# --- Scoring ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    """One arm's context for one ticket, scored."""

    injected: int
    chars: int
    hit: bool
    specific: int  # issue and process memories injected
    specific_relevant: int
    relevant: int  # every injected memory relevant by provenance (voice always)
    own: int  # injected memories learned from this very ticket: must be 0 (evaluated before learning)


@dataclass
class ArmTally:
    evaluated: int = 0
    hits: int = 0
    chars: int = 0
    injected: int = 0
    relevant: int = 0
    specific: int = 0
    specific_relevant: int = 0
    own: int = 0

    def add(self, scored: Scored) -> None:
        self.evaluated += 1
        self.hits += scored.hit
        self.chars += scored.chars
        self.injected += scored.injected
        self.relevant += scored.relevant
        self.specific += scored.specific
        self.specific_relevant += scored.specific_relevant
        self.own += scored.own

    def figures(self) -> dict:
        def share(part: int, whole: int) -> float | None:
            return round(part / whole, 4) if whole else None

        return {
            "evaluated": self.evaluated,
            "hit_rate": share(self.hits, self.evaluated) or 0.0,
            "precision": share(self.specific_relevant, self.specific),
            "precision_all": share(self.relevant, self.injected),
            "chars_mean": round(self.chars / self.evaluated, 1) if self.evaluated else 0.0,
            "memories_mean": round(self.injected / self.evaluated, 2) if self.evaluated else 0.0,
            "issue_memories_mean": round(self.specific / self.evaluated, 2) if self.evaluated else 0.0,
        }


@dataclass(frozen=True)
class Learned:
    """What scoring needs of a stored memory: its family, resolution, and the tickets it was learned from."""

    id: int
    type: str
    has_resolution: bool
    ticket_ids: frozenset[int]


def learned(tenant_id: int, memory_ids: list[int]) -> dict[int, Learned]:
    rows = (
        Memory.objects.for_tenant(tenant_id)
        .filter(pk__in=memory_ids)
        .values("id", "type", "payload", "provenance")
    )
    return {
        row["id"]: Learned(
            id=row["id"],
            type=row["type"],
            has_resolution=bool(str((row["payload"] or {}).get("best_resolution") or "").strip()),
            ticket_ids=frozenset(
                entry["ticket_id"]
                for entry in row["provenance"] or []
                if isinstance(entry, dict) and entry.get("kind") == "ticket" and entry.get("ticket_id")
            ),
        )
        for row in rows
    }


def score(
    memories: list[Learned], *, ticket_id: int, intent: str, intent_of: dict[int, str], chars: int
) -> Scored:
    def same_issue(memory: Learned) -> bool:
        return any(intent_of.get(t) == intent for t in memory.ticket_ids)

    specific = [m for m in memories if m.type in SPECIFIC]
    return Scored(
        injected=len(memories),
        chars=chars,
        hit=any(m.type == typed.ISSUES and m.has_resolution and same_issue(m) for m in memories),
        specific=len(specific),
        specific_relevant=sum(same_issue(m) for m in specific),
        relevant=sum(m.type == typed.VOICE or same_issue(m) for m in memories),
        own=sum(ticket_id in m.ticket_ids for m in memories),
    )


def recent_context(tenant_id: int, count: int, max_chars: int) -> tuple[list[int], int]:
    """The baseline `recent`: the `count` most recently learned or reinforced live Client Brain rows (the
    rows recall may use: active, typed family, confidence 0.5–1), whatever the ticket, rendered by the Client
    Brain's renderer within `max_chars`. Returns (memory ids in the prompt, prompt characters)."""
    if count <= 0:
        return [], 0
    rows = client_brain_candidates(tenant_id=tenant_id).order_by("-updated_at", "-id")
    sections: dict[str, list[ContextMemory]] = {family: [] for family in typed.FAMILIES}
    for row in rows.values("id", "type", "key", "text", "payload", "confidence")[:count]:
        if typed.is_typed(row["type"], row["payload"]):
            sections[row["type"]].append(ContextMemory(**row, tier="fallback"))
    rendered = render_context(sections, omitted={}, max_chars=max_chars)
    return rendered.memory_ids, len(rendered.text)


def issue_known(tenant_id: int, intent: str, intent_of: dict[int, str]) -> bool:
    """Whether a live issue memory learned from a ticket of this intent exists (recall could find one)."""
    for provenance in (
        client_brain_candidates(tenant_id=tenant_id)
        .filter(type=typed.ISSUES)
        .values_list("provenance", flat=True)
    ):
        if any(isinstance(e, dict) and intent_of.get(e.get("ticket_id")) == intent for e in provenance or []):
            return True
    return False


# --- The replay ------------------------------------------------------------------------------------------------


@dataclass
class ReplayResult:
    tickets: int
    evaluated_from: int  # index of the first evaluated ticket
    arms: dict[str, ArmTally] = field(
        default_factory=lambda: {a: ArmTally() for a in ("brain", "none", "recent")}
    )
    known: int = 0  # evaluated tickets whose intent had a live issue memory at evaluation time
    context_ms: list[float] = field(default_factory=list)
    learn_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0
    own_in_context: list[str] = field(default_factory=list)  # external ids: must stay empty
    intent_of: dict[int, str] = field(default_factory=dict)  # ticket id -> its intent

    def figures(self, tenant) -> dict:
        brain = self.arms["brain"].figures()
        attempts = LearningAttempt.objects.for_tenant(tenant)
        return {
            "tickets": self.tickets,
            **brain,
            "issue_known_rate": round(self.known / brain["evaluated"], 4) if brain["evaluated"] else 0.0,
            "baselines": {
                "none": {**self.arms["none"].figures(), "precision": None, "precision_all": None},
                "recent": self.arms["recent"].figures(),
            },
            "own_memories_injected": len(self.own_in_context),
            "context_ms": {
                "p50": round(percentile(self.context_ms, 50), 2),
                "p95": round(percentile(self.context_ms, 95), 2),
            },
            "learn_ms": {
                "p50": round(percentile(self.learn_ms, 50), 1),
                "p95": round(percentile(self.learn_ms, 95), 1),
            },
            "seconds": round(self.seconds, 1),
            "tickets_per_s": round(self.tickets / self.seconds, 2) if self.seconds else 0.0,
            "attempts": {s: attempts.filter(status=s).count() for s in ("succeeded", "skipped", "failed")},
            "memories": {
                family: Memory.objects.for_tenant(tenant).filter(type=family, status="active").count()
                for family in typed.FAMILIES
            },
            "learning_window_and_recency_bias": "agent settings only; no Client Brain variant",
            **issue_rows_figures(tenant.pk, self.intent_of),
        }


def issue_rows_figures(tenant_id: int, intent_of: dict[int, str]) -> dict:
    """How the live issue rows map onto the stream's intents (issue 27: one memory per issue): `issue_rows`;
    per intent, the live rows learned from its tickets (`issue_rows_per_intent`: mean and max over the
    intents with a row); `intents_merged`: intents that share a row with another intent; `merged_rows`; and
    `business_rows`, the live business facts (statements about the business, not steps: facts.py)."""
    rows_of: dict[str, int] = {}
    merged_rows, merged_intents = 0, set()
    provenances = (
        client_brain_candidates(tenant_id=tenant_id)
        .filter(type=typed.ISSUES)
        .values_list("provenance", flat=True)
    )
    total = 0
    for provenance in provenances:
        total += 1
        intents = {
            intent_of[e["ticket_id"]]
            for e in provenance or []
            if isinstance(e, dict) and e.get("ticket_id") in intent_of
        }
        for intent in intents:
            rows_of[intent] = rows_of.get(intent, 0) + 1
        if len(intents) > 1:
            merged_rows += 1
            merged_intents |= intents
    per_intent = list(rows_of.values())
    return {
        "issue_rows": total,
        "issue_rows_per_intent": {
            "mean": round(sum(per_intent) / len(per_intent), 2) if per_intent else 0.0,
            "max": max(per_intent, default=0),
            "intents": len(per_intent),
        },
        "intents_merged": len(merged_intents),
        "merged_rows": merged_rows,
        "business_rows": client_brain_candidates(tenant_id=tenant_id).filter(type=typed.BUSINESS).count(),
    }


def _push(tenant, item: StreamTicket, n: int):
    """The ticket as a helpdesk sends it, still open: subject, the customer's message, the classification."""
    ticket, _ = services.ticket_upsert(
        tenant=tenant,
        external_id=item.external_id,
        subject=item.subject,
        requester=f"customer{n}@example.com",
        status="open",
    )
    services.message_add(ticket=ticket, direction="inbound", body=item.message, sent_at=item.at)
    services.classification_add(ticket=ticket, category=item.category, intent=item.intent, confidence=0.9)
    return ticket


def _evaluate(tenant, ticket, item: StreamTicket, intent_of: dict[int, str], result: ReplayResult) -> None:
    """Score the Client Brain context for `ticket` (not yet learned) and the two baselines."""
    started = time.perf_counter()
    context = client_brain_context(
        tenant_id=tenant.pk,
        subject=item.subject,
        latest_customer_message=item.message,
        mode="initial",
        tenant=tenant,
    )
    result.context_ms.append((time.perf_counter() - started) * 1000)
    recent_ids, recent_chars = recent_context(tenant.pk, len(context.memory_ids), len(context.prompt))
    rows = learned(tenant.pk, [*context.memory_ids, *recent_ids])
    common = {"ticket_id": ticket.pk, "intent": item.intent, "intent_of": intent_of}
    brain = score([rows[i] for i in context.memory_ids if i in rows], chars=len(context.prompt), **common)
    result.arms["brain"].add(brain)
    result.arms["none"].add(score([], chars=0, **common))
    result.arms["recent"].add(score([rows[i] for i in recent_ids if i in rows], chars=recent_chars, **common))
    result.known += issue_known(tenant.pk, item.intent, intent_of)
    if brain.own:
        result.own_in_context.append(item.external_id)


def replay(*, tenant, stream: list[StreamTicket], eval_share: float = 0.2, progress=print) -> ReplayResult:
    """Push, (evaluate,) solve and learn each ticket of `stream` in order, for `tenant`. Learning must run
    eagerly in this process (no broker), so a ticket is learned before the next one is pushed."""
    from config.celery import celery_is_eager

    if not celery_is_eager():
        raise RuntimeError("the replay learns in-process: run it without a broker (Celery eager)")
    first = len(stream) - max(1, round(len(stream) * eval_share))
    result = ReplayResult(tickets=len(stream), evaluated_from=first)
    intent_of = result.intent_of
    started = last = time.perf_counter()
    for n, item in enumerate(stream):
        ticket = _push(tenant, item, n)
        intent_of[ticket.pk] = item.intent
        if n >= first:
            _evaluate(tenant, ticket, item, intent_of, result)
        reply_at = item.at + timedelta(minutes=5 + n % 240)
        services.message_add(ticket=ticket, direction="outbound", body=item.reply, sent_at=reply_at)
        solving = time.perf_counter()
        services.ticket_transition(ticket=ticket, status="solved")  # learned here, on commit, eagerly
        result.learn_ms.append((time.perf_counter() - solving) * 1000)
        now = time.perf_counter()
        if now - last > 15 or n + 1 == len(stream):
            arm = result.arms["brain"]
            progress(
                f"  {n + 1}/{len(stream)} tickets ({item.at:%Y-%m-%d}) in {now - started:.0f} s, "
                f"{(n + 1) / (now - started):.2f}/s; evaluated {arm.evaluated}, hits {arm.hits}"
            )
            last = now
    result.seconds = time.perf_counter() - started
    return result


def _table(figures: dict) -> str:
    lines = [
        "| context | hit rate | precision (issues) | precision (all) | memories | chars |",
        "|---|---|---|---|---|---|",
    ]
    arms = {
        "Client Brain": figures,
        "none": figures["baselines"]["none"],
        "recent": figures["baselines"]["recent"],
    }
    for name, arm in arms.items():
        cells = [
            arm["hit_rate"],
            arm["precision"],
            arm["precision_all"],
            arm["memories_mean"],
            arm["chars_mean"],
        ]
        lines.append(f"| {name} | " + " | ".join("n/a" if c is None else str(c) for c in cells) + " |")
    return "\n".join(lines)


def run(options: dict, stdout) -> dict:
    from brain.benchmarks.common import fresh_tenant, use_bench_database
    from config.celery import app, use_broker

    if options["tickets"] < 10:
        raise CommandError("--tickets must be at least 10")
    rows = bitext_rows()  # before any database work: a missing sample fails at once, naming its path
    stream = build_stream(rows, count=options["tickets"], months=options["months"], seed=options["seed"])
    reused = sum(1 for item in stream if item.repeat)
    use_bench_database(options["database"], stdout)
    tenant = fresh_tenant(TENANT_SLUG, "Bench replay")
    previous = (None if app.conf.task_always_eager else app.conf.broker_url, app.conf.result_backend)
    use_broker(None, None)  # learning runs eagerly, in this process, in stream order
    trace_log = logging.getLogger("celery.app.trace")  # one "Task ... succeeded" line per ticket otherwise
    trace_level = trace_log.level
    trace_log.setLevel(logging.WARNING)
    stdout.write(
        f"replay: {len(stream)} tickets from {len(rows)} Bitext rows ({reused} reused), "
        f"{stream[0].at:%Y-%m-%d} to {stream[-1].at:%Y-%m-%d}; evaluating the last {options['eval_share']:.0%}"
    )
    try:
        result = replay(tenant=tenant, stream=stream, eval_share=options["eval_share"], progress=stdout.write)
    finally:
        use_broker(*previous)
        trace_log.setLevel(trace_level)
    figures = result.figures(tenant)
    figures["rows_reused"] = reused
    stdout.write(_table(figures))
    stdout.write(
        f"issue memory of the ticket's intent present when asked: {figures['issue_known_rate']:.1%}; "
        f"own memories injected: {figures['own_memories_injected']}; context p50/p95 "
        f"{figures['context_ms']['p50']}/{figures['context_ms']['p95']} ms; learning {figures['tickets_per_s']} tickets/s"
    )
    per_intent = figures["issue_rows_per_intent"]
    stdout.write(
        f"issue rows {figures['issue_rows']}: per intent mean {per_intent['mean']}, max {per_intent['max']} over"
        f" {per_intent['intents']} intents; intents merged {figures['intents_merged']} ({figures['merged_rows']} rows);"
        f" business facts {figures['business_rows']}"
    )
    return figures
