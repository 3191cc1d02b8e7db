"""Evaluator verdicts grade confidence (spec: shared_intelligence.txt, "Closing the loop").

`apply_evaluator_verdict()` takes what a run was given and said as plain values — the trace's injected
memory ids and the response text — and nudges every injected memory of the tenant:

- `pass` raises confidence, `fail` lowers it, by `DELTA`;
- a memory whose `[mem:ID]` the response cites gets the full delta; one merely present gets
  `PARTIAL_CREDIT` × delta (being handed to an agent and being relied on are different things);
- a cited id that was not injected moves nothing and is reported (`cited_not_injected`), as are injected
  ids that are not (or no longer) memories of the tenant (`missing`);
- confidence stays finite in [0, 1]: a stored value outside it is clamped first, a NaN or null one
  (never graded) starts from `UNGRADED_START`;
- an agent-side memory (any scope but the tenant's) that is `active` or `stale` and ends below `FLOOR` is
  archived, with a second history entry saying why; Client Brain rows (scope `tenant`) move in confidence
  but are never archived nor deleted while pruning is suspended (DESIGN.md decision 10).

Every nudge is a `MemoryHistory` row (action `verdict`) whose `after` names the trace, the verdict and
whether the memory was cited. Idempotent per (tenant, trace, verdict key): the first application stores an
`AppliedVerdict` row; a repeat finds it, moves nothing and says so (`applied=False`).

Cost: two statements per verdict whatever the number of memories — the idempotency insert, then one
statement that locks the memories (in id order, so concurrent verdicts cannot deadlock), updates them and
writes their history.
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
from .models import AppliedVerdict, BrainScopeKind, Memory, MemoryHistory, MemoryStatus

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


class VerdictInputError(ValueError):
    """The verdict cannot be applied as given (unknown verdict, blank trace, key too long)."""


def verdict_setting(name: str) -> float:
    return float({**DEFAULTS, **getattr(settings, "BRAIN_VERDICTS", {})}[name])


@dataclass(frozen=True)
class VerdictNudge:
    memory_id: int
    cited: bool
    confidence_before: float | None
    confidence_after: float
    status_before: str
    status_after: str

    @property
    def archived(self) -> bool:
        return self.status_after == MemoryStatus.ARCHIVED and self.status_before != MemoryStatus.ARCHIVED


@dataclass(frozen=True)
class VerdictResult:
    """What a verdict did. `applied` is False for a repeat (then `nudges` is empty and `applied_at` is the
    first application's time); the id lists are the first application's in both cases."""

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


_MEMORY = Memory._meta.db_table
_HISTORY = MemoryHistory._meta.db_table
_NOT_FINITE = "'{NaN,Infinity,-Infinity}'::float8[]"
# One statement: lock the tenant's injected memories in id order, move their confidence (clamped into [0, 1];
# null and NaN start from UNGRADED_START), archive agent-side ones that end below the floor, and write one
# history row per nudge plus one per archival.
_NUDGE_SQL = f"""
WITH input AS (
    SELECT * FROM unnest(%(ids)s::bigint[], %(weights)s::float8[], %(cited)s::boolean[]) AS i(id, weight, cited)
), old AS (
    SELECT m.id, m.confidence, m.status, m.scope_kind, i.weight, i.cited
    FROM {_MEMORY} m JOIN input i ON i.id = m.id
    WHERE m.tenant_id = %(tenant)s
    ORDER BY m.id
    FOR UPDATE OF m
), moved AS (
    SELECT o.*, LEAST(1.0, GREATEST(0.0,
        CASE WHEN o.confidence IS NULL OR o.confidence = 'NaN'::float8 THEN %(start)s
             ELSE LEAST(1.0, GREATEST(0.0, o.confidence)) END + %(delta)s * o.weight)) AS after
    FROM old o
), upd AS (
    UPDATE {_MEMORY} m SET
        confidence = v.after,
        status = CASE WHEN v.scope_kind <> %(tenant_scope)s AND v.after < %(floor)s
                           AND m.status IN ('active', 'stale') THEN 'archived' ELSE m.status END,
        updated_at = now()
    FROM moved v WHERE m.id = v.id
    RETURNING m.id, v.confidence AS before, v.status AS status_before, m.confidence AS after,
              m.status AS status_after, v.cited
), history AS (
    INSERT INTO {_HISTORY} (tenant_id, memory_id, action, actor, surface, reason, before, after, at)
    SELECT %(tenant)s, u.id, 'verdict', %(actor)s, 'verdict',
           CASE WHEN u.cited THEN '{REASON_CITED}' ELSE '{REASON_PRESENT}' END,
           jsonb_build_object(
               'confidence', CASE WHEN u.before = ANY({_NOT_FINITE}) THEN to_jsonb(u.before::text)
                                  ELSE to_jsonb(u.before) END,
               'status', u.status_before),
           jsonb_build_object('confidence', u.after, 'status', u.status_after, 'trace', %(trace)s,
                              'verdict', %(verdict)s, 'verdict_key', %(key)s, 'cited', u.cited),
           now()
    FROM upd u
    UNION ALL
    SELECT %(tenant)s, u.id, 'archived', %(actor)s, 'verdict', '{REASON_BELOW_FLOOR}',
           jsonb_build_object('status', u.status_before),
           jsonb_build_object('status', u.status_after, 'confidence', u.after, 'floor', %(floor)s,
                              'trace', %(trace)s, 'verdict', %(verdict)s),
           now()
    FROM upd u WHERE u.status_after = 'archived' AND u.status_before <> 'archived'
)
SELECT id, before, status_before, after, status_after, cited FROM upd ORDER BY id
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


@transaction.atomic
def _publish_archivals(tenant_id: int, nudges: Sequence[VerdictNudge]) -> None:
    """Archival by verdict is written in SQL (_NUDGE_SQL), not through history_add: publish it here."""
    for nudge in nudges:
        if nudge.archived:
            data = events.memory_data(nudge.memory_id, {"status": nudge.status_after}, REASON_BELOW_FLOOR)
            events.publish(tenant_id, events.MEMORY_ARCHIVED, data)


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
    docstring). Tenant-scoped: ids of another tenant's memories are `missing` and move nothing.
    Idempotent per (tenant, trace, verdict key). Raises VerdictInputError for an unknown verdict."""
    _clean_inputs(trace, verdict, verdict_key)
    injected = list(dict.fromkeys(int(i) for i in injected_memory_ids))
    _, cited, not_injected = validate_citations(response_text or "", set(injected))
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {AppliedVerdict._meta.db_table} (tenant_id, trace, verdict_key, verdict,"
            " injected_memory_ids, cited_memory_ids, cited_not_injected, actor, applied_at)"
            " VALUES (%s, %s, %s, %s, %s::jsonb, %s::jsonb, %s::jsonb, %s, %s)"
            " ON CONFLICT (tenant_id, trace, verdict_key) DO NOTHING RETURNING id",
            [
                tenant_id, trace, verdict_key, verdict, json.dumps(injected), json.dumps(cited), json.dumps(not_injected),
                actor[:120], now,
            ],
        )  # fmt: skip
        if cursor.fetchone() is None:
            return _repeat(trace, verdict_key, tenant_id)
        rows = []
        if injected:
            delta = verdict_setting("DELTA") * (1 if verdict == "pass" else -1)
            partial = verdict_setting("PARTIAL_CREDIT")
            cited_set = set(cited)
            cursor.execute(
                _NUDGE_SQL,
                {
                    "ids": injected,
                    "weights": [1.0 if i in cited_set else partial for i in injected],
                    "tenant": tenant_id,
                    "start": verdict_setting("UNGRADED_START"),
                    "delta": delta,
                    "cited": [i in cited_set for i in injected],
                    "floor": verdict_setting("FLOOR"),
                    "tenant_scope": BrainScopeKind.TENANT.value,
                    "actor": actor[:120],
                    "trace": trace,
                    "verdict": verdict,
                    "key": verdict_key,
                },
            )
            rows = cursor.fetchall()
    nudges = tuple(
        VerdictNudge(
            memory_id=memory_id,
            cited=was_cited,
            confidence_before=before if before is not None and math.isfinite(before) else None,
            confidence_after=after,
            status_before=status_before,
            status_after=status_after,
        )
        for memory_id, before, status_before, after, status_after, was_cited in rows
    )
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
