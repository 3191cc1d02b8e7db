"""Evaluator verdicts grade confidence (spec: shared_intelligence.txt, "Closing the loop").

`apply_evaluator_verdict()` takes what was judged and said as plain values — the judged record's ref (one
context trace, or a record made of several: "trace:12", "run:5", "conversation:3"), the memory ids each of its
underlying context traces injected, and the response text — and nudges every injected memory of the tenant:

- `pass` raises confidence, `fail` lowers it, by `DELTA`;
- a memory whose `[mem:ID]` the response cites gets the full delta; one merely present gets
  `PARTIAL_CREDIT` × delta (being handed to an agent and being relied on are different things);
- a trace moves a memory by at most one full delta in total, whatever number of verdict keys arrives for it
  and whatever record it is judged through (issue 26): for every underlying trace T and memory M that T
  injected, the verdicts whose judged set includes T, pass and fail alike, move M by at most one delta in all.
  Each (trace, memory) pair has one share of 1 (`VerdictSpend`); a verdict moves M by at most what is left on
  every trace of its judged set that injected M (the least of them) and charges what it moved to each of them.
  So the same trace judged as itself, through its run and through its conversation moves M once; a run of two
  traces that both injected M spends both, and a later verdict on either alone finds its share spent. A
  verdict that finds the share spent is recorded (its `AppliedVerdict` row, a history entry) but moves
  nothing, and its nudge says so (`applied_share` 0, reason `verdict_trace_spent`); one that finds less left
  than it asks for moves by what is left;
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

Every injected memory found gets a `MemoryHistory` row (action `verdict`) whose `after` names the judged record
(`trace`), the underlying traces that injected the memory (`injected_by`), the verdict, whether the memory was
cited, the share of one delta applied and whether it was graded. Idempotent per (tenant, judged record, verdict
key): the first application stores an `AppliedVerdict` row; a repeat finds it, moves nothing, records nothing
more and says so (`applied=False`). Brain does not resolve the refs: the caller names the judged record and its
traces, and one trace must carry one name in every record ("trace:<pk>").

Cost: two statements per verdict whatever the number of memories or traces. The first records the verdict
(the idempotency insert) and locks the graded memories it injected, in id order, so concurrent verdicts cannot
deadlock. The second reads what is left on each (trace, memory) share, moves the memories, spends the shares
and writes the history. Concurrency: a share of M is only ever spent by a verdict holding M's row lock, which
it keeps until it commits; a second verdict on M (through any record that shares a trace with the first) waits
in the first statement, and its second statement, a new snapshot under READ COMMITTED, sees what the first
spent. So two verdicts arriving at once cannot both spend the same share.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
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
# Recorded, not applied: a trace that injected the memory has already moved it by one full delta.
REASON_TRACE_SPENT = "verdict_trace_spent"
# The longest ref (judged record, underlying trace) the tables keep.
REF_MAX_CHARS = 64


class VerdictInputError(ValueError):
    """The verdict cannot be applied as given (unknown verdict, blank or long ref, key too long)."""


def verdict_setting(name: str) -> float:
    return float({**DEFAULTS, **getattr(settings, "BRAIN_VERDICTS", {})}[name])


@dataclass(frozen=True)
class VerdictNudge:
    """What a verdict did to one injected memory. `applied_share` is the share of one delta it moved the memory
    by (1 cited, PARTIAL_CREDIT present, less when a trace that injected it had less left, 0 when nothing
    moved); `reason` is its history entry's: verdict_cited / verdict_present (moved), verdict_trace_spent (a
    trace that injected it had already moved it by one delta) or verdict_not_graded (a Client Brain row).
    Confidences are None when not finite."""

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
    """What a verdict did. `judged` is the judged record's ref as given. `applied` is False for a repeat (then
    `nudges` is empty and `applied_at` is the first application's time); the id lists are the first
    application's in both cases. An applied verdict may still move some memories by nothing
    (`unmoved_memory_ids`): those a trace had already moved by one delta, and Client Brain rows
    (`ungraded_memory_ids`), which are recorded only. `ignored` names why a verdict was not applied at all
    without being a repeat (the caller's rule, e.g. "outside_learning_window": then nothing is recorded either).
    """

    applied: bool
    judged: str
    verdict: str
    verdict_key: str
    applied_at: datetime
    injected_memory_ids: tuple[int, ...]
    cited_memory_ids: tuple[int, ...]
    cited_not_injected: tuple[str, ...]
    missing_memory_ids: tuple[int, ...] = ()
    nudges: tuple[VerdictNudge, ...] = ()
    ignored: str = ""

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


# The first statement: record the verdict (nothing comes back for a repeat) and, when it is new, lock the
# tenant's graded memories among the injected ids (not Client Brain rows, whose numbers never move) in id
# order, so concurrent verdicts cannot deadlock. The locks are held until commit: every spend of a memory's
# shares is made under its lock (module docstring).
_RECORD_SQL = f"""
WITH recorded AS (
    INSERT INTO {AppliedVerdict._meta.db_table} (tenant_id, trace, verdict_key, verdict, injected_memory_ids,
        cited_memory_ids, cited_not_injected, actor, applied_at)
    VALUES (%(tenant)s, %(judged)s, %(key)s, %(verdict)s, %(injected)s::jsonb, %(cited)s::jsonb,
        %(not_injected)s::jsonb, %(actor)s, %(now)s)
    ON CONFLICT (tenant_id, trace, verdict_key) DO NOTHING
    RETURNING id
), locked AS (
    SELECT m.id FROM {_MEMORY} m
    WHERE m.tenant_id = %(tenant)s AND m.id = ANY(%(ids)s::bigint[]) AND NOT {_CLIENT_BRAIN}
      AND EXISTS (SELECT 1 FROM recorded)
    ORDER BY m.id
    FOR UPDATE OF m
)
SELECT (SELECT id FROM recorded), ARRAY(SELECT id FROM locked)
"""
# The second statement, on a snapshot taken once the locks are held (so it sees every earlier spend):
# - what is left to move each locked memory by: the least share left over the traces that injected it;
# - move its confidence by the requested share, at most that (clamped into [0, 1]; null and NaN start from
#   UNGRADED_START), and archive agent-side memories that end below the floor;
# - charge what moved to every one of those traces' shares (VerdictSpend);
# - write one history row per injected memory found (moved, spent, or a Client Brain row: recorded only) and
#   one per archival.
_NUDGE_SQL = f"""
WITH input AS (
    SELECT * FROM unnest(%(ids)s::bigint[], %(weights)s::float8[], %(cited)s::boolean[]) AS i(id, weight, cited)
), injected_by AS (
    SELECT * FROM unnest(%(pair_traces)s::text[], %(pair_ids)s::bigint[]) WITH ORDINALITY AS p(trace, id, n)
), old AS (
    SELECT m.id, m.confidence, m.status, m.scope_kind, i.weight, i.cited
    FROM {_MEMORY} m JOIN input i ON i.id = m.id
    WHERE m.tenant_id = %(tenant)s AND m.id = ANY(%(locked)s::bigint[])
), kept AS (
    SELECT m.id, m.confidence, m.status, i.cited
    FROM {_MEMORY} m JOIN input i ON i.id = m.id
    WHERE m.tenant_id = %(tenant)s AND m.id <> ALL(%(locked)s::bigint[])
), remaining AS (
    SELECT p.id, MIN(1.0 - COALESCE(s.spent, 0.0)) AS share_left
    FROM injected_by p
    LEFT JOIN {_SPEND} s ON s.tenant_id = %(tenant)s AND s.trace = p.trace AND s.memory_id = p.id
    GROUP BY p.id
), shares AS (
    SELECT o.*, CASE WHEN l.share_left < {_SPENT_EPSILON} THEN 0.0
                     ELSE LEAST(1.0, o.weight, l.share_left) END AS share
    FROM old o JOIN remaining l ON l.id = o.id
), moved AS (
    SELECT v.*, LEAST(1.0, GREATEST(0.0,
        CASE WHEN v.confidence IS NULL OR v.confidence = 'NaN'::float8 THEN %(start)s
             ELSE LEAST(1.0, GREATEST(0.0, v.confidence)) END + %(delta)s * v.share)) AS after
    FROM shares v
), spend AS (
    INSERT INTO {_SPEND} AS s (tenant_id, trace, memory_id, spent, last_applied)
    SELECT %(tenant)s, p.trace, v.id, v.share, v.share FROM moved v JOIN injected_by p ON p.id = v.id
    WHERE v.share > 0
    ON CONFLICT (tenant_id, trace, memory_id) DO UPDATE SET
        spent = LEAST(1.0, s.spent + EXCLUDED.spent), last_applied = EXCLUDED.last_applied
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
                              'trace', %(judged)s, 'verdict', %(verdict)s, 'verdict_key', %(key)s,
                              'cited', r.cited, 'applied_share', r.share,
                              'graded', r.reason <> '{VERDICT_NOT_GRADED}',
                              'injected_by', (SELECT jsonb_agg(p.trace ORDER BY p.n)
                                              FROM injected_by p WHERE p.id = r.id)),
           now()
    FROM report r
    UNION ALL
    SELECT %(tenant)s, u.id, 'archived', %(actor)s, 'verdict', '{REASON_BELOW_FLOOR}',
           jsonb_build_object('status', u.status_before),
           jsonb_build_object('status', u.status_after, 'confidence', u.after, 'floor', %(floor)s,
                              'trace', %(judged)s, 'verdict', %(verdict)s),
           now()
    FROM upd u WHERE u.status_after = 'archived' AND u.status_before <> 'archived'
)
SELECT id, before, status_before, after, status_after, cited, share, reason FROM report ORDER BY id
"""


def _check_ref(value, name: str) -> None:
    if not isinstance(value, str) or not value.strip() or len(value) > REF_MAX_CHARS:
        raise VerdictInputError(f"{name} must be named in 1 to {REF_MAX_CHARS} characters.")


def _clean_inputs(judged: str, verdict: str, verdict_key: str, injected_by_trace) -> list[tuple[str, int]]:
    """Check the inputs and return the (underlying trace, memory id) pairs, each once, in the order given."""
    if verdict not in VERDICTS:
        raise VerdictInputError(f"verdict must be 'pass' or 'fail', not {verdict!r}.")
    _check_ref(judged, "judged (the judged trace, run or conversation)")
    if len(verdict_key) > REF_MAX_CHARS:
        raise VerdictInputError(f"verdict_key must be at most {REF_MAX_CHARS} characters.")
    if not isinstance(injected_by_trace, Mapping):
        raise VerdictInputError(
            "injected_by_trace must map each underlying trace to the memory ids it injected."
        )
    pairs: dict[tuple[str, int], None] = {}
    for trace, memory_ids in injected_by_trace.items():
        _check_ref(trace, "each underlying trace")
        pairs.update(((trace, int(i)), None) for i in memory_ids)
    return list(pairs)


def _repeat(judged: str, verdict_key: str, tenant_id: int) -> VerdictResult:
    earlier = AppliedVerdict.objects.for_tenant(tenant_id).get(trace=judged, verdict_key=verdict_key)
    return VerdictResult(
        applied=False,
        judged=judged,
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


def _nudge(params: dict, pairs: list[tuple[str, int]], injected: list[int], cited: list[int], locked):
    """The one statement that grades (or records) every injected memory; returns its rows as nudges."""
    cited_set = set(cited)
    params = {
        **params,
        "ids": injected,
        "weights": [1.0 if i in cited_set else verdict_setting("PARTIAL_CREDIT") for i in injected],
        "cited": [i in cited_set for i in injected],
        "pair_traces": [trace for trace, _ in pairs],
        "pair_ids": [memory_id for _, memory_id in pairs],
        "locked": list(locked),
        "start": verdict_setting("UNGRADED_START"),
        "floor": verdict_setting("FLOOR"),
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
    judged: str,
    verdict: str,
    response_text: str,
    injected_by_trace: Mapping[str, Sequence[int]],
    verdict_key: str = "",
    actor: str = "process:evaluator",
) -> VerdictResult:
    """Nudge the confidence of every memory injected into the judged record by a `pass` / `fail` verdict
    (module docstring). `judged` names the record ("trace:12", "run:5", "conversation:3"); `injected_by_trace`
    maps each of its underlying context traces, named the same way in every record ("trace:12"), to the memory
    ids that trace injected — a judged trace maps itself. Every (trace, memory) pair moves the memory by at
    most one delta over all the verdicts of every record it belongs to; Client Brain rows are recorded only.
    Tenant-scoped: ids of another tenant's memories are `missing` and move nothing. Idempotent per (tenant,
    judged, verdict key). Atomic: the record, the moves and the history commit together. Raises
    VerdictInputError for an unknown verdict or a blank or overlong ref."""
    pairs = _clean_inputs(judged, verdict, verdict_key, injected_by_trace)
    injected = list(dict.fromkeys(memory_id for _, memory_id in pairs))
    _, cited, not_injected = validate_citations(response_text or "", set(injected))
    now = timezone.now()
    params = {
        "tenant": tenant_id, "judged": judged, "key": verdict_key, "verdict": verdict, "actor": actor[:120],
        "delta": verdict_setting("DELTA") * (1 if verdict == "pass" else -1),
        "tenant_scope": BrainScopeKind.TENANT.value, "other_types": [t.value for t in OTHER_SURFACE_TYPES],
    }  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(
            _RECORD_SQL,
            {
                **params, "ids": injected, "injected": json.dumps(injected), "cited": json.dumps(cited),
                "not_injected": json.dumps(not_injected), "now": now,
            },
        )  # fmt: skip
        recorded, locked = cursor.fetchone()
    if recorded is None:
        return _repeat(judged, verdict_key, tenant_id)
    nudges = _nudge(params, pairs, injected, cited, locked) if injected else ()
    found = {n.memory_id for n in nudges}
    _publish_archivals(tenant_id, nudges)
    return VerdictResult(
        applied=True,
        judged=judged,
        verdict=verdict,
        verdict_key=verdict_key,
        applied_at=now,
        injected_memory_ids=tuple(injected),
        cited_memory_ids=tuple(cited),
        cited_not_injected=tuple(not_injected),
        missing_memory_ids=tuple(i for i in injected if i not in found),
        nudges=nudges,
    )
