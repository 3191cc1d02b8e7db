"""The row writes every formation path shares: create, reinforce, add, supersede, history, graph edges.

Callers hold the scope's advisory lock (`scope_lock`) inside their transaction: these functions write, they
do not decide. `promote()` (services.py) decides what to write; the operator edits (edits.py) change rows
in place. Every write leaves a `MemoryHistory` row.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from .. import events, graph
from ..models import GraphNodeKind, GraphRelation, Memory, MemoryHistory, MemoryStatus
from ..types import MemoryCandidate, PromoteOutcome
from .evidence import CORROBORATED_REASON, contradicts_neighbour
from .judge import Neighbour, formation_setting
from .text import normalise

logger = logging.getLogger(__name__)

PROVENANCE_NODE_KINDS = {
    "ticket": GraphNodeKind.TICKET,
    "run": GraphNodeKind.RUN,
    "conversation": GraphNodeKind.CONVERSATION,
    # Another memory of the tenant (an agent's note an operator promoted, edits.note_promote).
    "memory": GraphNodeKind.MEMORY,
}


def snapshot(memory: Memory) -> dict[str, Any]:
    """The fields a history record keeps before/after a change (JSON-safe; legacy NaN confidence as text)."""
    confidence = memory.confidence
    if confidence is not None and not math.isfinite(confidence):
        confidence = str(confidence)
    return {
        "text": memory.text,
        "key": memory.key,
        "type": memory.type,
        "status": memory.status,
        "confidence": confidence,
        "frequency": memory.frequency,
        "strength": memory.strength,
        "category": memory.category,
        "scope_kind": memory.scope_kind,
        "scope_id": memory.scope_id,
        "superseded_by": memory.superseded_by_id,
    }


def history_row(
    *, tenant_id, memory, action, actor, surface="", reason="", before=None, after=None
) -> MemoryHistory:
    """A history record, not yet written (`histories_add` writes it)."""
    return MemoryHistory(
        tenant_id=tenant_id,
        memory=memory,
        action=action,
        actor=actor[:120],
        surface=surface,
        reason=reason[:64],
        before=before,
        after=after,
    )


def history_add(*, tenant_id, memory, action, actor, surface="", reason="", before=None, after=None) -> None:
    """Record one change of a memory (`histories_add`)."""
    histories_add(
        [
            history_row(
                tenant_id=tenant_id,
                memory=memory,
                action=action,
                actor=actor,
                surface=surface,
                reason=reason,
                before=before,
                after=after,
            )
        ]
    )


def histories_add(rows: list[MemoryHistory]) -> None:
    """The one writer of memory history, in one statement for `rows`, in order; what it records is also
    published as a brain event (events.py)."""
    if not rows:
        return
    MemoryHistory.objects.bulk_create(rows)
    for row in rows:
        memory = row.memory
        source = getattr(memory, "source", "")
        if event := events.memory_event(row.action, row.after, row.before, source=source):
            data = events.memory_data(getattr(memory, "pk", None), row.after or row.before, row.reason)
            events.publish(row.tenant_id, event, {**data, "source": source})


def scope_lock(tenant_id: int, scope_kind: str, scope_id: str) -> None:
    """Serialise formation inside one tenant + scope until the transaction ends (pg advisory xact lock)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            [f"brain.formation:{tenant_id}:{scope_kind}:{scope_id}"],
        )


def embed_for_write(text: str) -> tuple[list[float] | None, str]:
    """The candidate's vector and embedder name, or (None, "") when no embedder can answer now."""
    return embed_for_write_many([text])[0]


def embed_for_write_many(texts: list[str]) -> list[tuple[list[float] | None, str]]:
    """`embed_for_write` for several texts, from one call into the embedder (for the texts no cache holds):
    the vector the judge and the backstop compare is the one stored on the row. All (None, "") when no
    embedder can answer now (the embedding task fills the rows later)."""
    if not texts:
        return []
    try:
        from ..embedders import EmbedderError
        from ..embedding import current_embedding_model, embed_texts_now
    except ImportError:
        return [(None, "")] * len(texts)
    try:
        vectors = embed_texts_now(list(texts))
        model = current_embedding_model()
    except EmbedderError as exc:
        logger.warning("formation: no vector for the backstop (%s); the embedding task will fill it", exc)
        return [(None, "")] * len(texts)
    return [([float(x) for x in vector], model) for vector in vectors]


def enqueue_embedding(tenant_id: int, memory_ids: list[int]) -> None:
    try:
        from ..embedding import embedding_enqueue
    except ImportError:
        logger.warning(
            "formation: memories %s have no embedding and no embedding task is installed", memory_ids
        )
        return
    embedding_enqueue(tenant_id=tenant_id, memory_ids=memory_ids)


def provenance_entries(candidate: MemoryCandidate) -> list[dict[str, Any]]:
    stamp = {"surface": candidate.surface, "actor": candidate.actor, "at": timezone.now().isoformat()}
    if not candidate.provenance:
        return [stamp]
    return [{**stamp, **entry} for entry in candidate.provenance]


def graph_for_new(
    memory: Memory, candidate: MemoryCandidate, neighbours: list[Neighbour], skip_ids: set[int]
) -> None:
    node = graph.node_for_memory(memory)
    provenance_edges(memory, node, candidate)
    if memory.key:
        topic = graph.node_for(
            tenant_id=memory.tenant_id,
            kind=GraphNodeKind.TOPIC,
            ref=normalise(memory.key) or memory.key,
            scope_kind=memory.scope_kind,
            scope_id=memory.scope_id,
            label=memory.key,
        )
        graph.edge_add(source=node, target=topic, relation=GraphRelation.ABOUT)
    related_min = formation_setting("RELATED_MIN")
    for n in neighbours:
        if n.id in skip_ids or n.id == memory.pk or n.closeness < related_min:
            continue
        other = Memory.objects.for_tenant(memory.tenant_id).get(pk=n.id)
        relation = (
            GraphRelation.CONTRADICTS if contradicts_neighbour(memory.text, n) else GraphRelation.RELATED_TO
        )
        graph.edge_add(
            source=node, target=graph.node_for_memory(other), relation=relation, weight=round(n.closeness, 4)
        )


def provenance_edges(memory: Memory, node, candidate: MemoryCandidate) -> None:
    """The new memory is `derived_from` each source of its provenance."""
    sources = graph.nodes_for(provenance_node_specs(memory, candidate))
    graph.edges_add(
        [
            graph.EdgeSpec(source=node, target=source, relation=GraphRelation.DERIVED_FROM)
            for source in sources
        ]
    )


def provenance_node_specs(memory: Memory, candidate: MemoryCandidate) -> list[graph.NodeSpec]:
    """The nodes of the candidate's provenance (tickets, runs, conversations, memories of the tenant), in its
    order. A memory that is not the tenant's is no source: it gets no node and no link."""
    specs = []
    sources = _source_memories(memory.tenant_id, candidate.provenance)
    for entry in candidate.provenance:
        kind = PROVENANCE_NODE_KINDS.get(str(entry.get("kind", "")))
        # {"kind": "ticket", "id": 12} or {"kind": "ticket", "ticket_id": 12} (the Client Brain learner's shape).
        ref = entry.get("id", entry.get(f"{entry.get('kind')}_id"))
        if kind is None or ref in (None, ""):
            continue
        if kind == GraphNodeKind.MEMORY:
            if str(ref) in sources:
                specs.append(graph.memory_node_spec(sources[str(ref)]))
            continue
        specs.append(
            graph.node_spec(
                tenant_id=memory.tenant_id,
                kind=kind,
                ref=str(ref),
                scope_kind=memory.scope_kind,
                scope_id=memory.scope_id,
                label=f"{kind} {ref}",
            )
        )
    return specs


def _source_memories(tenant_id: int, provenance: list[dict[str, Any]]) -> dict[str, Memory]:
    """The tenant's memories the provenance names (`{"kind": "memory", "id": ...}`), by id as text; one
    statement, and none when it names no memory."""
    ids = {
        int(entry["id"])
        for entry in provenance
        if entry.get("kind") == "memory" and str(entry.get("id", "")).isdigit()
    }
    if not ids:
        return {}
    rows = Memory.objects.for_tenant(tenant_id).filter(pk__in=ids)
    return {str(m.pk): m for m in rows.only("id", "tenant_id", "scope_kind", "scope_id", "key", "text")}


def row_create(candidate: MemoryCandidate, vector, model: str) -> Memory:
    return Memory.objects.create(
        tenant_id=candidate.tenant_id,
        scope_kind=candidate.scope_kind,
        scope_id=candidate.scope_id,
        type=candidate.type,
        key=candidate.key[:255],
        payload=candidate.payload,
        text=candidate.text.strip(),
        confidence=candidate.confidence,
        status=candidate.status,
        strength=candidate.strength,
        category=candidate.category,
        source=candidate.source,
        surface=candidate.surface,
        provider=candidate.provider,
        campaign_ids=candidate.campaign_ids,
        tags=candidate.tags,
        provenance=provenance_entries(candidate),
        embedding=vector,
        embedding_model=model if vector is not None else "",
    )


def row_add(
    candidate,
    vector,
    model,
    reason,
    neighbours,
    detail,
    *,
    related: int | None = None,
    contradicts: int | None = None,
) -> PromoteOutcome:
    """Write `candidate` as a new memory; `related` / `contradicts` name a row it must be linked to by
    that relation whatever its closeness (a hidden duplicate; the standing value it competes with)."""
    memory = row_create(candidate, vector, model)
    # A row held for evidence keeps why in its history, as decided (the dashboard reads it; no model runs there).
    held = {"held": detail["held"]} if "held" in detail else {}
    history_add(
        tenant_id=candidate.tenant_id,
        memory=memory,
        action=MemoryHistory.Action.ADDED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=reason,
        after={**snapshot(memory), **held},
    )
    graph_for_new(memory, candidate, neighbours, skip_ids={i for i in (related, contradicts) if i})
    for other_id, relation in ((related, GraphRelation.RELATED_TO), (contradicts, GraphRelation.CONTRADICTS)):
        if other_id:
            other = Memory.objects.for_tenant(memory.tenant_id).get(pk=other_id)
            graph.edge_add(
                source=graph.node_for_memory(memory), target=graph.node_for_memory(other), relation=relation
            )
    if vector is None:
        transaction.on_commit(lambda: enqueue_embedding(candidate.tenant_id, [memory.pk]))
    return PromoteOutcome(
        result="added",
        memory_id=memory.pk,
        reason=reason,
        related_memory_id=related or contradicts,
        detail=detail,
    )


def row_turn(competitor_id: int, standing: Memory, candidate: MemoryCandidate) -> PromoteOutcome:
    """The evidence turned (evidence.py): the competing value becomes active and supersedes `standing`."""
    competitor = Memory.objects.for_tenant(candidate.tenant_id).get(pk=competitor_id)
    before_new, before_old = snapshot(competitor), snapshot(standing)
    competitor.status = MemoryStatus.ACTIVE
    competitor.save(update_fields=["status", "updated_at"])
    standing.status, standing.superseded_by = MemoryStatus.SUPERSEDED, competitor
    standing.save(update_fields=["status", "superseded_by", "updated_at"])
    for memory, action, before in (
        (competitor, MemoryHistory.Action.STATUS_CHANGED, before_new),
        (standing, MemoryHistory.Action.SUPERSEDED, before_old),
    ):
        history_add(
            tenant_id=candidate.tenant_id,
            memory=memory,
            action=action,
            actor=candidate.actor,
            surface=candidate.surface,
            reason="evidence_turned",
            before=before,
            after=snapshot(memory),
        )
    graph.edge_add(
        source=graph.node_for_memory(competitor),
        target=graph.node_for_memory(standing),
        relation=GraphRelation.SUPERSEDES,
    )
    return PromoteOutcome(
        result="superseded", memory_id=competitor.pk, reason="evidence_turned", related_memory_id=standing.pk
    )


def row_activate(memory_id: int, candidate: MemoryCandidate, detail: dict) -> PromoteOutcome:
    """A held draft was corroborated (evidence.py): it becomes active. The caller has reinforced it (the row
    is locked) and flushed that reinforcement."""
    memory = Memory.objects.for_tenant(candidate.tenant_id).get(pk=memory_id)
    before = snapshot(memory)
    memory.status = MemoryStatus.ACTIVE
    memory.save(update_fields=["status", "updated_at"])
    history_add(
        tenant_id=candidate.tenant_id,
        memory=memory,
        action=MemoryHistory.Action.STATUS_CHANGED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=CORROBORATED_REASON,
        before=before,
        after=snapshot(memory),
    )
    return PromoteOutcome(
        result="reinforced",
        memory_id=memory.pk,
        reason=CORROBORATED_REASON,
        related_memory_id=memory.pk,
        detail=detail,
    )


def row_supersede(old_id, candidate, vector, model, reason, neighbours, detail) -> PromoteOutcome:
    old = Memory.objects.for_tenant(candidate.tenant_id).select_for_update().get(pk=old_id)
    new = row_create(candidate, vector, model)
    before = snapshot(old)
    old.status = MemoryStatus.SUPERSEDED
    old.superseded_by = new
    old.save(update_fields=["status", "superseded_by", "updated_at"])
    history_add(
        tenant_id=candidate.tenant_id,
        memory=new,
        action=MemoryHistory.Action.ADDED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=f"supersedes:{old.pk}",
        after=snapshot(new),
    )
    history_add(
        tenant_id=candidate.tenant_id,
        memory=old,
        action=MemoryHistory.Action.SUPERSEDED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=reason,
        before=before,
        after=snapshot(old),
    )
    graph_for_new(new, candidate, neighbours, skip_ids={old.pk})
    graph.edge_add(
        source=graph.node_for_memory(new),
        target=graph.node_for_memory(old),
        relation=GraphRelation.SUPERSEDES,
    )
    if vector is None:
        transaction.on_commit(lambda: enqueue_embedding(candidate.tenant_id, [new.pk]))
    return PromoteOutcome(
        result="superseded", memory_id=new.pk, reason=reason, related_memory_id=old.pk, detail=detail
    )
