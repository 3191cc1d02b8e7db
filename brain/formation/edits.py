"""Operator edits of a memory in place (the Intelligence tab, REST): content, status, supersede.

Each runs inside the memory's scope lock, in the same order as `promote()` (scope, then row), and new
content passes the same gate and duplicate backstop as a new memory.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.db import transaction

from ..models import AGENT_WRITTEN_TYPES, SETTABLE_STATUSES, Memory, MemoryHistory, MemoryStatus, WriteSurface
from ..types import MemoryCandidate, PromoteOutcome
from .backstop import backstop_duplicate, duplicate_types
from .gate import gate_check
from .refusals import refusal_record
from .services import GateRejected, MemoryNotFound, MemorySuperseded, promote
from .text import normalise
from .writes import embed_for_write, enqueue_embedding, history_add, scope_lock, snapshot

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
        # An operator's deliberate edit, like their new memory, may name a customer (gate.PERSONAL_DATA_SURFACES)
        # and instruct the agent in their own words (services.operator_wrote).
        verdict = gate_check(text=changes["text"], personal_data=False, instructions_allowed=True)
        if not verdict.passed:
            refusal = GateRejected(verdict.reason, verdict.detail)
            with transaction.atomic():
                _record_refusal(tenant_id, _get(tenant_id, memory_id), actor, changes["text"], refusal)
            raise refusal
        vector, model = embed_for_write(changes["text"])  # outside the locks
    with transaction.atomic():
        memory = _get_for_edit(tenant_id, memory_id, lock_scope="text" in changes)
        before = snapshot(memory)
        new_text = "text" in changes and normalise(changes["text"]) != normalise(before["text"])
        refusal = _duplicate_refusal(memory, changes["text"], vector, model) if new_text else None
        if refusal is not None:
            _record_refusal(tenant_id, memory, actor, changes["text"], refusal)
        else:
            _apply_edit(memory, changes, new_text, vector, model)
            history_add(
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
        scope_lock(tenant_id, scope["scope_kind"], scope["scope_id"])
    return _get(tenant_id, memory_id)


def _duplicate_refusal(memory: Memory, text: str, vector, model: str) -> GateRejected | None:
    """promote()'s backstop for an edit: another memory of the scope that `text` duplicates, by the same
    rule as a new memory of its type (`duplicate_types`). The memory's own former wording is no duplicate."""
    twin = backstop_duplicate(
        tenant_id=memory.tenant_id,
        scope_kind=memory.scope_kind,
        scope_id=memory.scope_id,
        text=text,
        vector=vector,
        model=model,
        types=duplicate_types(memory.type),
        exclude_id=memory.pk,
    )
    if twin is None:
        return None
    return GateRejected("backstop_duplicate", f"duplicates memory {twin.id}", duplicate_of=twin.id)


def _record_refusal(tenant_id: int, memory: Memory, actor: str, text: str, refusal: GateRejected) -> None:
    history_add(
        tenant_id=tenant_id,
        memory=memory,
        action=MemoryHistory.Action.REJECTED,
        actor=actor,
        surface=WriteSurface.OPERATOR,
        reason=refusal.reason,
        before=snapshot(memory),
        after=refusal_record(
            text,
            detail=refusal.detail,
            memory_type=memory.type,
            key=memory.key,
            scope_kind=memory.scope_kind,
            scope_id=memory.scope_id,
        ),
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
            transaction.on_commit(lambda: enqueue_embedding(tenant_id, [memory_id]))
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
    history_add(
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


def note_promote(*, tenant_id: int, note_id: int, candidate: MemoryCandidate) -> PromoteOutcome:
    """Make a note an agent wrote itself (memory-append, chat-mined: `AGENT_WRITTEN_TYPES`) a memory of the
    operator's: `candidate` goes through promote() in the note's scope — the gate decides, and the note is no
    duplicate of it (an operator memory's duplicates are other operator memories) — with the note in its
    provenance, so the new memory is linked `derived_from` the note in the BrainGraph. When it is written
    (added, or an existing memory reinforced), the note's history records the promotion (`after["memory_id"]`);
    the note itself does not change. Atomic; tenant-scoped: MemoryNotFound for a missing memory, another
    tenant's, or one that is not an agent's note. A refusal is promote's outcome, recorded as promote records it.
    """
    if candidate.tenant_id != tenant_id:
        raise ValueError("the candidate belongs to another tenant")
    note = (
        Memory.objects.for_tenant(tenant_id).filter(pk=note_id, type__in=AGENT_WRITTEN_TYPES).first()
    )  # not locked: promote() takes the scope's lock, then rows (the one order every write keeps)
    if note is None:
        raise MemoryNotFound(f"note {note_id} not found")
    with transaction.atomic():
        outcome = promote(
            replace(
                candidate,
                scope_kind=note.scope_kind,
                scope_id=note.scope_id,
                provenance=[*candidate.provenance, {"kind": "memory", "id": note.pk}],
                supersedes_id=None,
            )
        )
        if outcome.written:
            history_add(
                tenant_id=tenant_id,
                memory=note,
                action=MemoryHistory.Action.PROMOTED,
                actor=candidate.actor,
                surface=WriteSurface.OPERATOR,
                reason=outcome.reason,
                after={
                    "memory_id": outcome.memory_id or outcome.related_memory_id,
                    "result": outcome.result,
                    "strength": candidate.strength,
                    "category": candidate.category,
                    "status": candidate.status,
                },
            )
    return outcome
