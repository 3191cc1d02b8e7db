"""Formation services: `promote()` — the only way a memory is written — and the operator edits on top of it.

promote(candidate):  gate → judge (skipped for operators' manual memories, never the gate) → hard
duplicate backstop → add / reinforce / supersede, or reject with a reason code. Every outcome, rejections
included, is a `MemoryHistory` row; new rows get their embedding (the vector computed for the backstop is
stored directly; without an embedder, the embedding task is enqueued after commit); the BrainGraph edges
are written in the same transaction.

Concurrency: every write to one tenant + scope takes a transaction-scoped advisory lock on that scope
before it looks for neighbours, so 50 concurrent promotes of one fact (threads or processes) see each
other's committed rows and leave exactly one memory. A promote() on its own holds one lock at a time, so
promotes cannot deadlock on each other; a caller that promotes into several scopes inside its own
transaction holds each lock until it commits, and should promote in a fixed scope order (PostgreSQL
detects and breaks a lock cycle with an error, it never hangs). Embedding and retrieval ranking (the slow
parts) run before the lock.
"""

from __future__ import annotations

import logging
import math
from dataclasses import replace
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from .. import graph
from ..models import (
    SETTABLE_STATUSES,
    BrainScopeKind,
    GraphNodeKind,
    GraphRelation,
    Memory,
    MemoryHistory,
    MemoryStatus,
    WriteSurface,
)
from ..types import MemoryCandidate, PromoteOutcome
from .gate import GateReason, gate_check, redact
from .judge import (
    LIVE_STATUSES,
    Neighbour,
    backstop_duplicate,
    find_neighbours,
    formation_setting,
    judge,
    recall_neighbour_ids,
    recent_note_duplicate,
)
from .personal_data import may_hold_contact, published_contacts
from .text import normalise, numbers_conflict

logger = logging.getLogger(__name__)

PROVENANCE_NODE_KINDS = {
    "ticket": GraphNodeKind.TICKET,
    "run": GraphNodeKind.RUN,
    "conversation": GraphNodeKind.CONVERSATION,
}


class MemoryNotFound(LookupError):
    """No memory with that id in that tenant (another tenant's memory is not found either)."""


class GateRejected(ValueError):
    """An operator edit's new content did not pass formation: the gate's reason code, or
    `backstop_duplicate` with `duplicate_of` naming the memory of the scope it would duplicate."""

    def __init__(self, reason: str, detail: str = "", *, duplicate_of: int | None = None):
        super().__init__(f"rejected by the formation gate: {reason}" + (f" ({detail})" if detail else ""))
        self.reason, self.detail, self.duplicate_of = reason, detail, duplicate_of


class MemorySuperseded(ValueError):
    """A superseded memory keeps its status: the newer memory that replaced it is the live version."""

    def __init__(self, memory_id: int, superseded_by_id: int | None):
        super().__init__(f"memory {memory_id} was superseded by {superseded_by_id}; change that one instead")
        self.memory_id, self.superseded_by_id = memory_id, superseded_by_id


# --- helpers -------------------------------------------------------------------------------------------


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


def _history(*, tenant_id, memory, action, actor, surface="", reason="", before=None, after=None) -> None:
    MemoryHistory.objects.create(
        tenant_id=tenant_id,
        memory=memory,
        action=action,
        actor=actor[:120],
        surface=surface,
        reason=reason[:64],
        before=before,
        after=after,
    )


def _lock_scope(tenant_id: int, scope_kind: str, scope_id: str) -> None:
    """Serialise formation inside one tenant + scope until the transaction ends (pg advisory xact lock)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            [f"brain.formation:{tenant_id}:{scope_kind}:{scope_id}"],
        )


def _embed(text: str) -> tuple[list[float] | None, str]:
    """The candidate's vector and embedder name, or (None, "") when no embedder can answer now."""
    try:
        from ..embedders import EmbedderError
        from ..embedding import current_embedding_model, embed_text_now
    except ImportError:
        return None, ""
    try:
        vector = embed_text_now(text)
        model = current_embedding_model()
    except EmbedderError as exc:
        logger.warning("formation: no vector for the backstop (%s); the embedding task will fill it", exc)
        return None, ""
    return [float(x) for x in vector], model


def _enqueue_embedding(tenant_id: int, memory_ids: list[int]) -> None:
    try:
        from ..embedding import embedding_enqueue
    except ImportError:
        logger.warning(
            "formation: memories %s have no embedding and no embedding task is installed", memory_ids
        )
        return
    embedding_enqueue(tenant_id=tenant_id, memory_ids=memory_ids)


def _provenance_entries(candidate: MemoryCandidate) -> list[dict[str, Any]]:
    stamp = {"surface": candidate.surface, "actor": candidate.actor, "at": timezone.now().isoformat()}
    if not candidate.provenance:
        return [stamp]
    return [{**stamp, **entry} for entry in candidate.provenance]


def _injected_texts(candidate: MemoryCandidate) -> list[str]:
    texts = list(candidate.injected_texts)
    if candidate.injected_memory_ids:
        texts += list(
            Memory.objects.for_tenant(candidate.tenant_id)
            .filter(pk__in=list(candidate.injected_memory_ids))
            .values_list("text", flat=True)
        )
    return texts


def _reject(candidate: MemoryCandidate, reason: str, detail: str = "") -> PromoteOutcome:
    _history(
        tenant_id=candidate.tenant_id,
        memory=None,
        action=MemoryHistory.Action.REJECTED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=reason,
        # Redacted: a rejected secret must not be kept in the history either.
        after={
            "text": redact(candidate.text or "")[:500],
            "type": candidate.type,
            "key": candidate.key,
            "scope_kind": candidate.scope_kind,
            "scope_id": candidate.scope_id,
            "detail": detail,
        },
    )
    return PromoteOutcome(result="rejected", memory_id=None, reason=reason, detail={"gate_detail": detail})


def _write_graph_for_new(
    memory: Memory, candidate: MemoryCandidate, neighbours: list[Neighbour], skip_ids: set[int]
) -> None:
    node = graph.node_for_memory(memory)
    _write_provenance_edges(memory, node, candidate, GraphRelation.DERIVED_FROM)
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
            GraphRelation.CONTRADICTS
            if numbers_conflict(memory.text, n.text) and n.token_overlap >= 0.5
            else GraphRelation.RELATED_TO
        )
        graph.edge_add(
            source=node, target=graph.node_for_memory(other), relation=relation, weight=round(n.closeness, 4)
        )


def _write_provenance_edges(memory: Memory, node, candidate: MemoryCandidate, relation: str) -> None:
    for entry in candidate.provenance:
        kind = PROVENANCE_NODE_KINDS.get(str(entry.get("kind", "")))
        # {"kind": "ticket", "id": 12} or {"kind": "ticket", "ticket_id": 12} (the Client Brain learner's shape).
        ref = entry.get("id", entry.get(f"{entry.get('kind')}_id"))
        if kind is None or ref in (None, ""):
            continue
        source = graph.node_for(
            tenant_id=memory.tenant_id,
            kind=kind,
            ref=str(ref),
            scope_kind=memory.scope_kind,
            scope_id=memory.scope_id,
            label=f"{kind} {ref}",
        )
        if relation == GraphRelation.DERIVED_FROM:
            graph.edge_add(source=node, target=source, relation=GraphRelation.DERIVED_FROM)
        else:  # the source that saw the fact again reinforces the memory
            graph.edge_add(source=source, target=node, relation=GraphRelation.REINFORCES)


def _create(candidate: MemoryCandidate, vector, model: str) -> Memory:
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
        provenance=_provenance_entries(candidate),
        embedding=vector,
        embedding_model=model if vector is not None else "",
    )


def _reinforce(memory_id: int, candidate: MemoryCandidate, reason: str, detail: dict) -> PromoteOutcome:
    memory = Memory.objects.for_tenant(candidate.tenant_id).select_for_update().get(pk=memory_id)
    before = snapshot(memory)
    memory.frequency += 1
    step = formation_setting("REINFORCE_STEP")
    if memory.confidence is not None and math.isfinite(memory.confidence) and 0 <= memory.confidence <= 1:
        memory.confidence = round(min(1.0, memory.confidence + step), 6)
    memory.provenance = (list(memory.provenance or []) + _provenance_entries(candidate))[
        -formation_setting("PROVENANCE_MAX") :
    ]
    memory.save(update_fields=["frequency", "confidence", "provenance", "updated_at"])
    _history(
        tenant_id=candidate.tenant_id,
        memory=memory,
        action=MemoryHistory.Action.REINFORCED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=reason,
        before=before,
        after=snapshot(memory),
    )
    _write_provenance_edges(memory, graph.node_for_memory(memory), candidate, GraphRelation.REINFORCES)
    return PromoteOutcome(
        result="reinforced", memory_id=memory.pk, reason=reason, related_memory_id=memory.pk, detail=detail
    )


def _add(candidate, vector, model, reason, neighbours, detail) -> PromoteOutcome:
    memory = _create(candidate, vector, model)
    _history(
        tenant_id=candidate.tenant_id,
        memory=memory,
        action=MemoryHistory.Action.ADDED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=reason,
        after=snapshot(memory),
    )
    _write_graph_for_new(memory, candidate, neighbours, skip_ids=set())
    if vector is None:
        transaction.on_commit(lambda: _enqueue_embedding(candidate.tenant_id, [memory.pk]))
    return PromoteOutcome(result="added", memory_id=memory.pk, reason=reason, detail=detail)


def _supersede(old_id, candidate, vector, model, reason, neighbours, detail) -> PromoteOutcome:
    old = Memory.objects.for_tenant(candidate.tenant_id).select_for_update().get(pk=old_id)
    new = _create(candidate, vector, model)
    before = snapshot(old)
    old.status = MemoryStatus.SUPERSEDED
    old.superseded_by = new
    old.save(update_fields=["status", "superseded_by", "updated_at"])
    _history(
        tenant_id=candidate.tenant_id,
        memory=new,
        action=MemoryHistory.Action.ADDED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=f"supersedes:{old.pk}",
        after=snapshot(new),
    )
    _history(
        tenant_id=candidate.tenant_id,
        memory=old,
        action=MemoryHistory.Action.SUPERSEDED,
        actor=candidate.actor,
        surface=candidate.surface,
        reason=reason,
        before=before,
        after=snapshot(old),
    )
    _write_graph_for_new(new, candidate, neighbours, skip_ids={old.pk})
    graph.edge_add(
        source=graph.node_for_memory(new),
        target=graph.node_for_memory(old),
        relation=GraphRelation.SUPERSEDES,
    )
    if vector is None:
        transaction.on_commit(lambda: _enqueue_embedding(candidate.tenant_id, [new.pk]))
    return PromoteOutcome(
        result="superseded", memory_id=new.pk, reason=reason, related_memory_id=old.pk, detail=detail
    )


# --- promote -------------------------------------------------------------------------------------------


def promote(candidate: MemoryCandidate) -> PromoteOutcome:
    """Decide what becomes of `candidate`: added, reinforced, superseded, or rejected with a reason code.

    The only way a memory is written. Tenant-scoped (candidate.tenant_id); opens its own transaction
    (atomic: the row, its history and its graph edges commit together); safe to call concurrently.
    Not idempotent by design — promoting the same fact twice reinforces it (frequency 2).
    Raises ValueError for a candidate no surface can legitimately send (unknown scope kind or status,
    a tenant scope with an owner id): a caller's bug, not a gate decision.
    """
    if candidate.scope_kind not in BrainScopeKind.values:
        raise ValueError(
            f"scope_kind must be one of {', '.join(BrainScopeKind.values)}, not {candidate.scope_kind!r}"
        )
    if candidate.status not in set(MemoryStatus.values) - {MemoryStatus.SUPERSEDED}:
        raise ValueError(f"a new memory's status cannot be {candidate.status!r}")
    if candidate.scope_kind == BrainScopeKind.TENANT and candidate.scope_id:
        raise ValueError("the tenant scope has no owner id: leave scope_id empty")
    text = (candidate.text or "").strip()
    values = candidate.payload.get("values") if isinstance(candidate.payload, dict) else None
    with transaction.atomic():
        verdict = gate_check(
            text=text,
            template=candidate.template,
            values=values if isinstance(values, dict) else None,
            system_prompt=candidate.system_prompt,
            injected_texts=_injected_texts(candidate),
            published_contacts=published_contacts(candidate.tenant_id) if may_hold_contact(text) else (),
            source_texts=candidate.source_texts,
        )
        if not verdict.passed:
            return _reject(candidate, verdict.reason, verdict.detail)
    candidate = replace(candidate, text=text)
    # Before the lock: the slow parts (embedding, retrieval ranking) must not serialise the scope. Rows
    # committed meanwhile are still seen by the direct neighbour query and the backstop, inside the lock.
    vector, model = _embed(text)
    recall_ids = None
    if not candidate.skip_judge:
        recall_ids = recall_neighbour_ids(
            tenant_id=candidate.tenant_id,
            scope_kind=candidate.scope_kind,
            scope_id=candidate.scope_id,
            text=text,
            vector=vector,
            model=model,
        )
    with transaction.atomic():
        _lock_scope(candidate.tenant_id, candidate.scope_kind, candidate.scope_id)
        return _promote_locked(candidate, vector, model, recall_ids)


def _promote_locked(candidate: MemoryCandidate, vector, model: str, recall_ids=None) -> PromoteOutcome:
    tid = candidate.tenant_id
    scope = {"tenant_id": tid, "scope_kind": candidate.scope_kind, "scope_id": candidate.scope_id}

    if candidate.surface == WriteSurface.MEMORY_APPEND:
        twin = recent_note_duplicate(**scope, text=candidate.text)
        if twin is not None:
            return _reinforce(twin.id, candidate, "duplicate_recent_note", {"judge": "skipped"})

    neighbours = find_neighbours(
        **scope,
        text=candidate.text,
        key=candidate.key,
        vector=vector,
        model=model,
        recall_ids=recall_ids or [],
    )
    if candidate.supersedes_id is not None and candidate.supersedes_id not in {n.id for n in neighbours}:
        target = (
            Memory.objects.for_tenant(tid)
            .filter(
                pk=candidate.supersedes_id,
                status__in=LIVE_STATUSES,
                scope_kind=candidate.scope_kind,
                scope_id=candidate.scope_id,
            )
            .values("id", "key", "text", "status")
            .first()
        )
        if target is None:
            return _reject(candidate, "supersede_target_not_found", f"memory {candidate.supersedes_id}")
        neighbours.append(Neighbour(**target, cosine=None, lexical=0.0, token_overlap=0.0))

    if candidate.skip_judge:
        if candidate.supersedes_id is not None:
            old = next(n for n in neighbours if n.id == candidate.supersedes_id)
            if normalise(old.text) == normalise(candidate.text):
                return _reinforce(old.id, candidate, "same_value", {"judge": "skipped"})
            return _supersede(
                old.id, candidate, vector, model, "operator_supersede", neighbours, {"judge": "skipped"}
            )
        decision_name, target_id, reason, judge_name = "add", None, "manual", "skipped"
    else:
        if candidate.supersedes_id is not None:
            decision_name, target_id, reason, judge_name = _judge_with_hint(candidate, neighbours)
        else:
            decision = judge(
                text=candidate.text, key=candidate.key, type=candidate.type, neighbours=neighbours
            )
            decision_name, target_id, reason, judge_name = (
                decision.decision,
                decision.target_id,
                decision.reason,
                decision.judge,
            )
    detail = {"judge": judge_name, "judge_decision": decision_name, "backstop": False}

    if decision_name == "reinforce":
        return _reinforce(target_id, candidate, reason or "same_fact", detail)
    if decision_name == "supersede":
        return _supersede(target_id, candidate, vector, model, reason or "newer_value", neighbours, detail)

    # Whatever the judge said, a duplicate of a standing memory reinforces it instead of a second copy.
    twin = backstop_duplicate(**scope, text=candidate.text, vector=vector, model=model, key=candidate.key)
    if twin is not None:
        detail = {
            **detail,
            "backstop": True,
            "cosine": twin.cosine,
            "lexical": twin.lexical,
            "token_overlap": twin.token_overlap,
        }
        return _reinforce(twin.id, candidate, "backstop_duplicate", detail)
    return _add(candidate, vector, model, reason or "new_fact", neighbours, detail)


def _judge_with_hint(
    candidate: MemoryCandidate, neighbours: list[Neighbour]
) -> tuple[str, int | None, str, str]:
    """A producer proposed superseding a memory: the judge decides; an `add` verdict keeps both."""
    decision = judge(text=candidate.text, key=candidate.key, type=candidate.type, neighbours=neighbours)
    if decision.decision == "add":
        old = next(n for n in neighbours if n.id == candidate.supersedes_id)
        if normalise(old.text) == normalise(candidate.text):
            return "reinforce", old.id, "same_value", decision.judge
        if decision.judge.startswith("local"):
            return "supersede", old.id, "proposed_supersede", decision.judge
    return decision.decision, decision.target_id, decision.reason, decision.judge


# --- operator edits (the Intelligence tab) --------------------------------------------------------------

EDITABLE_FIELDS = {
    "text",
    "key",
    "payload",
    "strength",
    "category",
    "confidence",
    "provider",
    "campaign_ids",
    "tags",
    "type",
}


def _get(tenant_id: int, memory_id: int, *, lock: bool = True) -> Memory:
    qs = Memory.objects.for_tenant(tenant_id)
    if lock:
        qs = qs.select_for_update()
    try:
        return qs.get(pk=memory_id)
    except Memory.DoesNotExist:
        raise MemoryNotFound(f"memory {memory_id} not found") from None


def memory_update(*, tenant_id: int, memory_id: int, actor: str, **changes: Any) -> None:
    """Change a memory's content or classification; records before/after. Tenant-scoped; atomic.

    New text passes the same checks as a new memory: the gate, then promote's duplicate backstop against
    the other memories of its scope (under the same scope lock as promote()). A refusal is recorded in the
    history (on this memory) and raises `GateRejected`; nothing changes. The status has its own service
    (`memory_set_status`). Unknown fields raise ValueError; a missing or foreign memory MemoryNotFound.
    A text change re-embeds the row (now when an embedder answers, else by the embedding task after commit).
    """
    unknown = set(changes) - EDITABLE_FIELDS
    if unknown:
        raise ValueError(f"these fields cannot be edited here: {', '.join(sorted(unknown))}")
    vector, model = None, ""
    if "text" in changes:
        changes["text"] = (changes["text"] or "").strip()
        verdict = gate_check(text=changes["text"])
        if not verdict.passed:
            refusal = GateRejected(verdict.reason, verdict.detail)
            with transaction.atomic():
                _record_refusal(tenant_id, _get(tenant_id, memory_id), actor, changes["text"], refusal)
            raise refusal
        vector, model = _embed(changes["text"])  # outside the locks
    with transaction.atomic():
        memory = _get_for_edit(tenant_id, memory_id, lock_scope="text" in changes)
        before = snapshot(memory)
        new_text = "text" in changes and normalise(changes["text"]) != normalise(before["text"])
        refusal = _duplicate_refusal(memory, changes["text"], vector, model) if new_text else None
        if refusal is not None:
            _record_refusal(tenant_id, memory, actor, changes["text"], refusal)
        else:
            _apply_edit(memory, changes, new_text, vector, model)
            _history(
                tenant_id=tenant_id,
                memory=memory,
                action=MemoryHistory.Action.UPDATED,
                actor=actor,
                surface=WriteSurface.OPERATOR,
                before=before,
                after=snapshot(memory),
            )
    if refusal is not None:
        raise refusal


def _get_for_edit(tenant_id: int, memory_id: int, *, lock_scope: bool) -> Memory:
    """The row, locked; first its scope's formation lock when the edit may write a duplicate (the same
    order as promote(): scope, then row)."""
    if lock_scope:
        scope = Memory.objects.for_tenant(tenant_id).filter(pk=memory_id).values("scope_kind", "scope_id")
        scope = scope.first()
        if scope is None:
            raise MemoryNotFound(f"memory {memory_id} not found")
        _lock_scope(tenant_id, scope["scope_kind"], scope["scope_id"])
    return _get(tenant_id, memory_id)


def _duplicate_refusal(memory: Memory, text: str, vector, model: str) -> GateRejected | None:
    """promote()'s backstop for an edit: another memory of the scope that `text` duplicates. The memory's
    own former wording is no duplicate (when it is the closest, the edit is a rewording)."""
    twin = backstop_duplicate(
        tenant_id=memory.tenant_id,
        scope_kind=memory.scope_kind,
        scope_id=memory.scope_id,
        text=text,
        vector=vector,
        model=model,
    )
    if twin is None or twin.id == memory.pk:
        return None
    return GateRejected("backstop_duplicate", f"duplicates memory {twin.id}", duplicate_of=twin.id)


def _record_refusal(tenant_id: int, memory: Memory, actor: str, text: str, refusal: GateRejected) -> None:
    _history(
        tenant_id=tenant_id,
        memory=memory,
        action=MemoryHistory.Action.REJECTED,
        actor=actor,
        surface=WriteSurface.OPERATOR,
        reason=refusal.reason,
        before=snapshot(memory),
        after={"text": redact(text)[:500], "detail": refusal.detail},
    )


def _apply_edit(memory: Memory, changes: dict[str, Any], new_text: bool, vector, model: str) -> None:
    for field_name, value in changes.items():
        setattr(memory, field_name, value)
    fields = list(changes)
    if new_text:
        memory.embedding, memory.embedding_model = vector, (model if vector is not None else "")
        fields += ["embedding", "embedding_model"]
        if vector is None:
            tenant_id, memory_id = memory.tenant_id, memory.pk
            transaction.on_commit(lambda: _enqueue_embedding(tenant_id, [memory_id]))
    memory.save(update_fields=[*fields, "updated_at"])


@transaction.atomic
def memory_set_status(*, tenant_id: int, memory_id: int, status: str, actor: str) -> None:
    """Move a memory to `status` (active, draft, stale, archived); records the change. Idempotent.

    `superseded` is not set here: a supersede needs its successor (`memory_supersede`). A superseded
    memory keeps its status (raises `MemorySuperseded`): reviving it would leave two live versions.
    """
    if status not in SETTABLE_STATUSES:
        raise ValueError(f"status must be one of {', '.join(sorted(SETTABLE_STATUSES))}, not {status!r}")
    memory = _get(tenant_id, memory_id)
    if memory.status == MemoryStatus.SUPERSEDED:
        raise MemorySuperseded(memory.pk, memory.superseded_by_id)
    if memory.status == status:
        return
    before = snapshot(memory)
    memory.status = status
    memory.save(update_fields=["status", "updated_at"])
    _history(
        tenant_id=tenant_id,
        memory=memory,
        action=MemoryHistory.Action.ARCHIVED
        if status == MemoryStatus.ARCHIVED
        else MemoryHistory.Action.STATUS_CHANGED,
        actor=actor,
        surface=WriteSurface.OPERATOR,
        before=before,
        after=snapshot(memory),
    )


def memory_supersede(*, tenant_id: int, old_memory_id: int, candidate: MemoryCandidate) -> PromoteOutcome:
    """Replace a memory with a newer value: the gate runs, the judge does not; the old row is
    `superseded` with `superseded_by` set and a `supersedes` graph edge. The new memory stays in the old
    one's scope and keeps its key unless the candidate gives one. Raises MemoryNotFound across tenants.
    """
    if candidate.tenant_id != tenant_id:
        raise ValueError("the candidate belongs to another tenant")
    old = Memory.objects.for_tenant(tenant_id).filter(pk=old_memory_id).first()
    if old is None:
        raise MemoryNotFound(f"memory {old_memory_id} not found")
    return promote(
        replace(
            candidate,
            scope_kind=old.scope_kind,
            scope_id=old.scope_id,
            key=candidate.key or old.key,
            supersedes_id=old.pk,
            skip_judge=True,
        )
    )


__all__ = [
    "GateReason",
    "GateRejected",
    "MemoryNotFound",
    "MemorySuperseded",
    "memory_set_status",
    "memory_supersede",
    "memory_update",
    "promote",
]
