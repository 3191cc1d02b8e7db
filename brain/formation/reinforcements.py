"""Reinforcement: one more sighting of a standing memory, counted in a batch that one transaction writes together.

Callers hold the scope's advisory lock (`writes.scope_lock`) inside their transaction, as for every write of
writes.py; `promote()` (services.py) decides what is reinforced.
"""

from __future__ import annotations

import math
from typing import Any

from django.db import connection
from django.utils import timezone

from .. import graph
from ..models import GraphRelation, Memory, MemoryHistory, MemoryStatus
from ..types import MemoryCandidate, PromoteOutcome
from .evidence import COMPETING_REASON
from .judge import formation_setting
from .writes import histories_add, history_row, provenance_entries, provenance_node_specs, snapshot


def row_reinforce(
    memory_id: int, candidate: MemoryCandidate, reason: str, detail: dict, reinforcements: Reinforcements
) -> PromoteOutcome:
    return reinforced(reinforcements.reinforce(memory_id, candidate, reason), reason, detail)


# What a reinforcement reads and writes of its row (not the vector, the payload or the search vector).
REINFORCED_FIELDS = (
    "tenant_id",
    "scope_kind",
    "scope_id",
    "type",
    "key",
    "text",
    "confidence",
    "status",
    "strength",
    "category",
    "source",
    "frequency",
    "provenance",
    "superseded_by_id",
)


class Reinforcements:
    """One transaction's reinforcements, written together by `flush()`: one UPDATE of the rows, one insert of
    their history, one of their nodes and one of their `reinforces` edges, where reinforcing one by one took
    five or six statements each. Each reinforcement is decided and recorded as if written at once (its row
    locked when first read, its before/after snapshots, a row reinforced twice counted twice).

    The caller flushes before anything else writes or reads the reinforced rows' counters (every other write
    path of `promote_many`), and before its transaction ends: then the rows and the history are in the order
    in which they would have been written one by one.
    """

    def __init__(self) -> None:
        self._rows: dict[int, Memory] = {}  # locked and changed, not yet written
        self._history: list[MemoryHistory] = []
        self._sources: list[tuple[Memory, MemoryCandidate]] = []
        self._locked: dict[int, Memory] = {}  # locked and read by `lock_rows`, unchanged since

    def lock_rows(self, rows) -> None:
        """Lock and read, in one statement, the memories of `rows` (a tenant's queryset, in a fixed order) that
        reinforcements are expected to count: `reinforce` takes such a row as read here instead of locking and
        reading it on its own. Locked, they cannot change but by this transaction, whose other writes all come
        after a `flush`, which forgets them."""
        self._locked.update((row.pk, row) for row in rows.select_for_update().only(*REINFORCED_FIELDS))

    def reinforce(self, memory_id: int, candidate: MemoryCandidate, reason: str) -> Memory:
        """Count one more sighting of the memory (frequency, confidence, provenance, history, `reinforces`
        edges); returns the row as reinforced, locked until the transaction ends, written at the flush."""
        memory = self._rows.get(memory_id)
        if memory is None:
            memory = self._locked.pop(memory_id, None)
            if memory is None or memory.tenant_id != candidate.tenant_id:
                memory = (
                    Memory.objects.for_tenant(candidate.tenant_id)
                    .select_for_update()
                    .only(*REINFORCED_FIELDS)
                    .get(pk=memory_id)
                )
            self._rows[memory_id] = memory
        before = snapshot(memory)
        memory.frequency += 1
        step = formation_setting("REINFORCE_STEP")
        if memory.confidence is not None and math.isfinite(memory.confidence) and 0 <= memory.confidence <= 1:
            memory.confidence = round(min(1.0, memory.confidence + step), 6)
        memory.provenance = (list(memory.provenance or []) + provenance_entries(candidate))[
            -formation_setting("PROVENANCE_MAX") :
        ]
        memory.updated_at = timezone.now()
        self._history.append(
            history_row(
                tenant_id=candidate.tenant_id,
                memory=memory,
                action=MemoryHistory.Action.REINFORCED,
                actor=candidate.actor,
                surface=candidate.surface,
                reason=reason,
                before=before,
                after=snapshot(memory),
            )
        )
        self._sources.append((memory, candidate))
        return memory

    def weighing_reads_pending(self, competitor: Memory) -> bool:
        """Whether `evidence.turned_against(competitor)` would read a write still pending here: another row of
        the competitor's scope and key (a standing value, ordered by its frequency), or a history row of the
        competitor with the competing-value reason. Otherwise it reads the same as after a flush."""
        if competitor.status != MemoryStatus.DRAFT or not competitor.key:
            return False  # not a competing value: nothing is read
        scope = (competitor.tenant_id, competitor.scope_kind, competitor.scope_id, competitor.key)
        return any(
            row.pk != competitor.pk and (row.tenant_id, row.scope_kind, row.scope_id, row.key) == scope
            for row in self._rows.values()
        ) or any(h.memory is competitor and h.reason == COMPETING_REASON for h in self._history)

    def flush(self) -> None:
        """Write what was reinforced since the last flush (and forget the rows `lock_rows` read: what follows a
        flush may change them)."""
        self._locked = {}
        if not self._rows:
            return
        rows, history, sources = list(self._rows.values()), self._history, self._sources
        self._rows, self._history, self._sources = {}, [], []
        _counters_update(rows)
        histories_add(history)
        # Each reinforcement's memory node and its sources' nodes, in the order met; then each source's edge.
        wanted = [(graph.memory_node_spec(memory), provenance_node_specs(memory, c)) for memory, c in sources]
        nodes = iter(graph.nodes_for([spec for node, specs in wanted for spec in (node, *specs)]))
        edges = []
        for _, specs in wanted:
            target = next(nodes)
            edges += [
                graph.EdgeSpec(source=next(nodes), target=target, relation=GraphRelation.REINFORCES)
                for _ in specs
            ]
        graph.edges_add(edges)


def _counters_update(rows: list[Memory]) -> None:
    """Write the rows' reinforcement counters (frequency, confidence, provenance, updated_at; an issue's payload
    frequency) in one UPDATE.
    Each row is pinned to its tenant, as `Memory.objects.for_tenant` would."""
    provenance = Memory._meta.get_field("provenance")
    values = ", ".join(
        ["(%s::bigint, %s::bigint, %s::integer, %s::double precision, %s::jsonb, %s::timestamptz)"]
        * len(rows)
    )
    params: list[Any] = []
    for row in rows:
        params += [
            row.pk,
            row.tenant_id,
            row.frequency,
            row.confidence,
            provenance.get_db_prep_value(row.provenance, connection),
            row.updated_at,
        ]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Memory._meta.db_table} AS m SET frequency = v.frequency, confidence = v.confidence,"
            " provenance = v.provenance, updated_at = v.updated_at,"
            # A Client Brain issue's payload carries its frequency (typed.py; the prompt renders it): kept equal
            # to the row's count. Its text does not carry it, so no vector goes stale.
            " payload = CASE WHEN m.type = 'issues' AND jsonb_typeof(m.payload) = 'object'"
            " THEN jsonb_set(m.payload, '{frequency}', to_jsonb(v.frequency)) ELSE m.payload END"
            f" FROM (VALUES {values}) AS v(id, tenant_id, frequency, confidence, provenance, updated_at)"
            " WHERE m.id = v.id AND m.tenant_id = v.tenant_id",
            params,
        )


def reinforced(memory: Memory, reason: str, detail: dict) -> PromoteOutcome:
    return PromoteOutcome(
        result="reinforced", memory_id=memory.pk, reason=reason, related_memory_id=memory.pk, detail=detail
    )
