"""Evaluator verdicts grade confidence (spec: shared_intelligence.txt, "Closing the loop").

`apply_evaluator_verdict()` takes what a run was given and said as plain values — the trace's injected
memory ids and the response text — and nudges every injected memory of the tenant:

- `pass` raises confidence, `fail` lowers it, by `DELTA`;
- a memory whose `[mem:ID]` the response cites gets the full delta; one merely present gets
  `PARTIAL_CREDIT` × delta (being handed to an agent and being relied on are different things);
- a trace moves a memory by at most one full delta in total, whatever number of verdict keys arrives for it
  (issue 26): its verdicts, pass and fail alike, spend from one share of 1 per memory (`VerdictSpend`); a
  verdict that finds the share spent is recorded (its `AppliedVerdict` row, a history entry) but moves nothing,
  and its nudge says so (`applied_share` 0, reason `verdict_trace_spent`); one that finds less left than it
  asks for moves by what is left;
- Client Brain rows (brain.client_brain.dashboard.CLIENT_BRAIN_ROW) are not graded by outcomes (DESIGN.md
  decision 15: client_brain.txt keeps response ratings out of their sources and says they are not forgotten
  automatically): the verdict is recorded in their history (reason `verdict_not_graded`, counted on the
  dashboard) and their confidence and status do not move;
- a cited id that was not injected moves nothing and is reported (`cited_not_injected`), as are injected
  ids that are not (or no longer) memories of the tenant (`missing`);
- confidence stays finite in [0, 1]: a stored value outside it is clamped first, a NaN or null one
  (never graded) starts from `UNGRADED_START`;
- an agent-side memory (any scope but the tenant's) that is `active` or `stale` and ends below `FLOOR` is
  archived, with a second history entry saying why; a tenant-scoped memory of another surface moves but is
  never archived while pruning is suspended (DESIGN.md decision 10).

Every injected memory found gets a `MemoryHistory` row (action `verdict`) whose `after` names the trace, the
verdict, whether the memory was cited, the share of one delta applied and whether it was graded. Idempotent
per (tenant, trace, verdict key): the first application stores an `AppliedVerdict` row; a repeat finds it,
moves nothing, records nothing more and says so (`applied=False`).

Cost: two statements per verdict whatever the number of memories — the idempotency insert, then one
statement that locks the graded memories (in id order, so concurrent verdicts cannot deadlock), spends the
trace's share, updates them and writes their history. Two verdicts of one trace arriving at once: the second
waits for the first's locks and then finds the share it spent.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from . import events
from .ask import validate_citations
from .client_brain.dashboard import OTHER_SURFACE_TYPES, VERDICT_NOT_GRADED
from .models import AppliedVerdict, BrainScopeKind, Memory, MemoryHistory, MemoryStatus, VerdictSpend

VERDICTS = ("pass", "fail")
# Overridden by settings.BRAIN_VERDICTS (same keys).
DEFAULTS = {
    # Confidence moved by a verdict for a cited memory.
    "DELTA": 0.05,
    # Share of DELTA a memory earns (or loses) when it was injected but not cited.
    "PARTIAL_CREDIT": 0.4,
    # An agent memory whose confidence ends below this is archived.
    "FLOOR": 0.2,
    # Where a memory without a finite confidence (null: never graded; NaN) starts.
    "UNGRADED_START": 0.5,
}
REASON_CITED = "verdict_cited"
REASON_PRESENT = "verdict_present"
REASON_BELOW_FLOOR = "verdict_confidence_below_floor"
# Recorded, not applied: this trace has already moved the memory by one full delta.
REASON_TRACE_SPENT = "verdict_trace_spent"


class VerdictInputError(ValueError):
    """The verdict cannot be applied as given (unknown verdict, blank trace, key too long)."""


def verdict_setting(name: str) -> float:
    return float({**DEFAULTS, **getattr(settings, "BRAIN_VERDICTS", {})}[name])


@dataclass(frozen=True)
class VerdictNudge:
    """What a verdict did to one injected memory. `applied_share` is the share of one delta it moved the memory
    by (1 cited, PARTIAL_CREDIT present, less when the trace had less left, 0 when nothing moved); `reason` is
    its history entry's: verdict_cited / verdict_present (moved), verdict_trace_spent (the trace had already
    moved it by one delta) or verdict_not_graded (a Client Brain row). Confidences are None when not finite."""

    memory_id: int
    cited: bool
    confidence_before: float | None
    confidence_after: float | None
    status_before: str
    status_after: str
    applied_share: float = 0.0
    reason: str = ""

    @property
    def archived(self) -> bool:
        return self.status_after == MemoryStatus.ARCHIVED and self.status_before != MemoryStatus.ARCHIVED

    @property
    def graded(self) -> bool:
        return self.reason != VERDICT_NOT_GRADED


@dataclass(frozen=True)
class VerdictResult:
    """What a verdict did. `applied` is False for a repeat (then `nudges` is empty and `applied_at` is the
    first application's time); the id lists are the first application's in both cases. An applied verdict
    may still move some memories by nothing (`unmoved_memory_ids`): those its trace had already moved by one
    delta, and Client Brain rows (`ungraded_memory_ids`), which are recorded only."""

    applied: bool
    trace: str
    verdict: str
    verdict_key: str
    applied_at: datetime
    injected_memory_ids: tuple[int, ...]
    cited_memory_ids: tuple[int, ...]
    cited_not_injected: tuple[str, ...]
    missing_memory_ids: tuple[int, ...] = ()
    nudges: tuple[VerdictNudge, ...] = ()

    @property
    def archived_memory_ids(self) -> tuple[int, ...]:
        return tuple(n.memory_id for n in self.nudges if n.archived)

    @property
    def unmoved_memory_ids(self) -> tuple[int, ...]:
        return tuple(n.memory_id for n in self.nudges if n.applied_share <= 0)

    @property
    def ungraded_memory_ids(self) -> tuple[int, ...]:
        return tuple(n.memory_id for n in self.nudges if not n.graded)


_MEMORY = Memory._meta.db_table
_HISTORY = MemoryHistory._meta.db_table
_SPEND = VerdictSpend._meta.db_table
_NOT_FINITE = "'{NaN,Infinity,-Infinity}'::float8[]"
# A share of one delta left to a trace below this is spent (float sums of partial credit).
_SPENT_EPSILON = 1e-9
# The Client Brain row test of brain.client_brain.dashboard.CLIENT_BRAIN_ROW, on the memory table `m`.
_CLIENT_BRAIN = "(m.scope_kind = %(tenant_scope)s AND m.type <> ALL(%(other_types)s::text[]))"


def _json_confidence(column: str) -> str:
    """A confidence as JSON: a number, or its text when not finite (NaN, infinities), or null."""
    return (
        f"CASE WHEN {column} = ANY({_NOT_FINITE}) THEN to_jsonb({column}::text) ELSE to_jsonb({column}) END"
    )


# What the trace may still move a memory by: the requested share, at most what is left of its one delta.
_AVAILABLE = (
    f"CASE WHEN 1.0 - s.spent < {_SPENT_EPSILON} THEN 0.0 ELSE LEAST(EXCLUDED.spent, 1.0 - s.spent) END"
)
# One statement:
# - lock the tenant's injected memories that are graded (not Client Brain rows), in id order, so concurrent
#   verdicts cannot deadlock; Client Brain rows are read, not locked, since nothing of theirs changes;
# - spend from each graded memory's share of one delta for this trace (VerdictSpend): an upsert, which waits
#   for a concurrent verdict of the same trace on the same memory and then sees what it spent;
# - move the confidence of the memories the trace may still move (clamped into [0, 1]; null and NaN start from
#   UNGRADED_START) and archive agent-side ones that end below the floor;
# - write one history row per injected memory found (moved, spent, or a Client Brain row: recorded only) and
#   one per archival.
_NUDGE_SQL = f"""
WITH input AS (
    SELECT * FROM unnest(%(ids)s::bigint[], %(weights)s::float8[], %(cited)s::boolean[]) AS i(id, weight, cited)
), old AS (
    SELECT m.id, m.confidence, m.status, m.scope_kind, i.weight, i.cited
    FROM {_MEMORY} m JOIN input i ON i.id = m.id
    WHERE m.tenant_id = %(tenant)s AND NOT {_CLIENT_BRAIN}
    ORDER BY m.id
    FOR UPDATE OF m
), kept AS (
    SELECT m.id, m.confidence, m.status, i.cited
    FROM {_MEMORY} m JOIN input i ON i.id = m.id
    WHERE m.tenant_id = %(tenant)s AND {_CLIENT_BRAIN}
), spend AS (
    INSERT INTO {_SPEND} AS s (tenant_id, trace, memory_id, spent, last_applied)
    SELECT %(tenant)s, %(trace)s, o.id, LEAST(1.0, o.weight), LEAST(1.0, o.weight) FROM old o
    ON CONFLICT (tenant_id, trace, memory_id) DO UPDATE SET
        last_applied = {_AVAILABLE},
        spent = s.spent + {_AVAILABLE}
    RETURNING s.memory_id, s.last_applied
), moved AS (
    SELECT o.*, sp.last_applied AS share, LEAST(1.0, GREATEST(0.0,
        CASE WHEN o.confidence IS NULL OR o.confidence = 'NaN'::float8 THEN %(start)s
             ELSE LEAST(1.0, GREATEST(0.0, o.confidence)) END + %(delta)s * sp.last_applied)) AS after
    FROM old o JOIN spend sp ON sp.memory_id = o.id
), upd AS (
    UPDATE {_MEMORY} m SET
        confidence = v.after,
        status = CASE WHEN v.scope_kind <> %(tenant_scope)s AND v.after < %(floor)s
                           AND m.status IN ('active', 'stale') THEN 'archived' ELSE m.status END,
        updated_at = now()
    FROM moved v WHERE m.id = v.id AND v.share > 0
    RETURNING m.id, v.confidence AS before, v.status AS status_before, m.confidence AS after,
              m.status AS status_after, v.cited, v.share,
              CASE WHEN v.cited THEN '{REASON_CITED}' ELSE '{REASON_PRESENT}' END AS reason
), report AS (
    SELECT * FROM upd
    UNION ALL
    SELECT v.id, v.confidence, v.status, v.confidence, v.status, v.cited, 0.0::float8,
           CASE WHEN v.weight > 0 THEN '{REASON_TRACE_SPENT}' ELSE '{REASON_PRESENT}' END
    FROM moved v WHERE v.share <= 0
    UNION ALL
    SELECT k.id, k.confidence, k.status, k.confidence, k.status, k.cited, 0.0::float8, '{VERDICT_NOT_GRADED}'
    FROM kept k
), history AS (
    INSERT INTO {_HISTORY} (tenant_id, memory_id, action, actor, surface, reason, before, after, at)
    SELECT %(tenant)s, r.id, 'verdict', %(actor)s, 'verdict', r.reason,
           jsonb_build_object('confidence', {_json_confidence("r.before")}, 'status', r.status_before),
           jsonb_build_object('confidence', {_json_confidence("r.after")}, 'status', r.status_after,
                              'trace', %(trace)s, 'verdict', %(verdict)s, 'verdict_key', %(key)s,
                              'cited', r.cited, 'applied_share', r.share,
                              'graded', r.reason <> '{VERDICT_NOT_GRADED}'),
           now()
    FROM report r
    UNION ALL
    SELECT %(tenant)s, u.id, 'archived', %(actor)s, 'verdict', '{REASON_BELOW_FLOOR}',
           jsonb_build_object('status', u.status_before),
           jsonb_build_object('status', u.status_after, 'confidence', u.after, 'floor', %(floor)s,
                              'trace', %(trace)s, 'verdict', %(verdict)s),
           now()
    FROM upd u WHERE u.status_after = 'archived' AND u.status_before <> 'archived'
)
SELECT id, before, status_before, after, status_after, cited, share, reason FROM report ORDER BY id
"""


def _clean_inputs(trace: str, verdict: str, verdict_key: str) -> None:
    if verdict not in VERDICTS:
        raise VerdictInputError(f"verdict must be 'pass' or 'fail', not {verdict!r}.")
    if not isinstance(trace, str) or not trace.strip() or len(trace) > 64:
        raise VerdictInputError("trace must name the judged trace or run in 1 to 64 characters.")
    if len(verdict_key) > 64:
        raise VerdictInputError("verdict_key must be at most 64 characters.")


def _repeat(trace: str, verdict_key: str, tenant_id: int) -> VerdictResult:
    earlier = AppliedVerdict.objects.for_tenant(tenant_id).get(trace=trace, verdict_key=verdict_key)
    return VerdictResult(
        applied=False,
        trace=trace,
        verdict=earlier.verdict,
        verdict_key=verdict_key,
        applied_at=earlier.applied_at,
        injected_memory_ids=tuple(earlier.injected_memory_ids),
        cited_memory_ids=tuple(earlier.cited_memory_ids),
        cited_not_injected=tuple(earlier.cited_not_injected),
    )


def _publish_archivals(tenant_id: int, nudges: Sequence[VerdictNudge]) -> None:
    """Archival by verdict is written in SQL (_NUDGE_SQL), not through history_add: publish it here."""
    for nudge in nudges:
        if nudge.archived:
            data = events.memory_data(nudge.memory_id, {"status": nudge.status_after}, REASON_BELOW_FLOOR)
            events.publish(tenant_id, events.MEMORY_ARCHIVED, data)


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _nudge(tenant_id: int, trace: str, verdict: str, verdict_key: str, actor: str, injected, cited):
    """The one statement that grades (or records) every injected memory; returns its rows as nudges."""
    cited_set = set(cited)
    params = {
        "ids": injected,
        "weights": [1.0 if i in cited_set else verdict_setting("PARTIAL_CREDIT") for i in injected],
        "cited": [i in cited_set for i in injected],
        "tenant": tenant_id,
        "start": verdict_setting("UNGRADED_START"),
        "delta": verdict_setting("DELTA") * (1 if verdict == "pass" else -1),
        "floor": verdict_setting("FLOOR"),
        "tenant_scope": BrainScopeKind.TENANT.value,
        "other_types": [t.value for t in OTHER_SURFACE_TYPES],
        "actor": actor,
        "trace": trace,
        "verdict": verdict,
        "key": verdict_key,
    }
    with connection.cursor() as cursor:
        cursor.execute(_NUDGE_SQL, params)
        rows = cursor.fetchall()
    return tuple(
        VerdictNudge(
            memory_id=memory_id,
            cited=was_cited,
            confidence_before=_finite(before),
            confidence_after=_finite(after),
            status_before=status_before,
            status_after=status_after,
            applied_share=share,
            reason=reason,
        )
        for memory_id, before, status_before, after, status_after, was_cited, share, reason in rows
    )


@transaction.atomic
def apply_evaluator_verdict(
    *,
    tenant_id: int,
    trace: str,
    verdict: str,
    response_text: str,
    injected_memory_ids: Sequence[int],
    verdict_key: str = "",
    actor: str = "process:evaluator",
) -> VerdictResult:
    """Nudge the confidence of every memory injected into `trace` by a `pass` / `fail` verdict (module
    docstring): at most one delta per memory over all the trace's verdicts, Client Brain rows recorded only.
    Tenant-scoped: ids of another tenant's memories are `missing` and move nothing. Idempotent per (tenant,
    trace, verdict key). Atomic: the record, the moves and the history commit together. Raises
    VerdictInputError for an unknown verdict."""
    _clean_inputs(trace, verdict, verdict_key)
    injected = list(dict.fromkeys(int(i) for i in injected_memory_ids))
    _, cited, not_injected = validate_citations(response_text or "", set(injected))
    now = timezone.now()
    actor = actor[:120]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {AppliedVerdict._meta.db_table} (tenant_id, trace, verdict_key, verdict,"
            " injected_memory_ids, cited_memory_ids, cited_not_injected, actor, applied_at)"
            " VALUES (%s, %s, %s, %s, %s::jsonb, %s::jsonb, %s::jsonb, %s, %s)"
            " ON CONFLICT (tenant_id, trace, verdict_key) DO NOTHING RETURNING id",
            [
                tenant_id, trace, verdict_key, verdict, json.dumps(injected), json.dumps(cited), json.dumps(not_injected),
                actor, now,
            ],
        )  # fmt: skip
        if cursor.fetchone() is None:
            return _repeat(trace, verdict_key, tenant_id)
    nudges = _nudge(tenant_id, trace, verdict, verdict_key, actor, injected, cited) if injected else ()
    found = {n.memory_id for n in nudges}
    _publish_archivals(tenant_id, nudges)
    return VerdictResult(
        applied=True,
        trace=trace,
        verdict=verdict,
        verdict_key=verdict_key,
        applied_at=now,
        injected_memory_ids=tuple(injected),
        cited_memory_ids=tuple(cited),
        cited_not_injected=tuple(not_injected),
        missing_memory_ids=tuple(i for i in injected if i not in found),
        nudges=nudges,
    )
