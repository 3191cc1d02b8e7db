"""The dashboard's "waiting for evidence": Client Brain policy rows held as drafts until corroborated.

A learned business fact or process rule that grants money, credit, access or data, is written in a language the
grant check cannot read, or contradicts a standing row, is a draft until tickets of enough different customers
within the learning window have taught it (brain/formation/evidence.py). The operator sees each such row with
how far its evidence goes. Read-only and tenant-scoped, like the rest of the dashboard.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from brain.formation.evidence import HELD_TYPES, corroboration, learning_window_days, policy_hold
from brain.formation.reading import language_name
from brain.models import BrainEdge, BrainScopeKind, GraphRelation, Memory, MemoryHistory, MemoryStatus

WAITING_LIMIT = 50


@dataclass(frozen=True)
class WaitingRow:
    id: int
    type: str
    key: str
    text: str
    customers: int  # different customers whose tickets taught it inside the window
    tickets: int
    needed: int
    why: str  # what it gives ("gives money: refunds (unlimited)"), an unread language, or the memory it contradicts


@dataclass(frozen=True)
class WaitingForEvidence:
    rows: list[WaitingRow]  # the most recently taught first, at most WAITING_LIMIT
    total: int
    window_days: int


def waiting_for_evidence(*, tenant_id: int, limit: int = WAITING_LIMIT) -> WaitingForEvidence:
    """The tenant's held rows (draft business facts and process rules) with their evidence so far."""
    held = Memory.objects.for_tenant(tenant_id).filter(
        scope_kind=BrainScopeKind.TENANT, type__in=sorted(HELD_TYPES), status=MemoryStatus.DRAFT
    )
    window = learning_window_days(tenant_id)
    rows = []
    memories = list(
        held.order_by("-updated_at", "-id").only("id", "type", "key", "text", "payload", "provenance")[:limit]
    )
    contradicted = _contradicted(tenant_id, [memory.pk for memory in memories])
    recorded = _recorded_holds(tenant_id, [memory.pk for memory in memories])
    for memory in memories:
        support = corroboration(memory.provenance, window_days=window)
        rows.append(
            WaitingRow(
                id=memory.pk,
                type=memory.type,
                key=memory.key,
                text=memory.text,
                customers=support.customers,
                tickets=support.tickets,
                needed=support.needed,
                why=_why(memory, contradicted.get(memory.pk), recorded.get(memory.pk)),
            )
        )
    return WaitingForEvidence(
        rows=rows, total=held.count() if len(rows) == limit else len(rows), window_days=window
    )


def _recorded_holds(tenant_id: int, memory_ids: list[int]) -> dict[int, dict]:
    """Why each row was held, as formation recorded it when it added the row (its `added` history's `held`), in
    one statement; rows added before it was recorded are absent."""
    added = (
        MemoryHistory.objects.for_tenant(tenant_id)
        .filter(memory_id__in=memory_ids, action=MemoryHistory.Action.ADDED, after__has_key="held")
        .values_list("memory_id", "after")
    )
    return {memory_id: after["held"] for memory_id, after in added if isinstance(after.get("held"), dict)}


def _why(memory: Memory, contradicted: tuple[int, str] | None, recorded: dict | None = None) -> str:
    """The recorded reason, else the vocabulary's and the language check's read now (the grant model is not run
    in a request: a row it held has its reason recorded)."""
    held = recorded or policy_hold(memory.type, memory.payload, memory.text, model=False) or {}
    if "grant" in held:
        return f"gives {held['grant']}"
    if "unread" in held:
        return f"written in {language_name(held['unread'])}, which the grant check does not read"
    if "reads_as_grant" in held:
        return f"reads as a grant of money, credit, access or data (the grant model's score {held['reads_as_grant']})"
    if contradicted is not None:
        return f"contradicts #{contradicted[0]}: {contradicted[1]}"
    return "differs from a memory in use"


def _contradicted(tenant_id: int, memory_ids: list[int]) -> dict[int, tuple[int, str]]:
    """For each held memory, an active memory it contradicts (the graph's `contradicts` edge, either way), in one
    statement."""
    active = MemoryStatus.ACTIVE
    edges = (
        BrainEdge.objects.for_tenant(tenant_id)
        .filter(relation=GraphRelation.CONTRADICTS)
        .filter(
            Q(source__memory_id__in=memory_ids, target__memory__status=active)
            | Q(target__memory_id__in=memory_ids, source__memory__status=active)
        )
        .values_list("source__memory_id", "source__memory__text", "target__memory_id", "target__memory__text")
    )
    held, found = set(memory_ids), {}
    for source_id, source_text, target_id, target_text in edges:
        if source_id in held:
            found.setdefault(source_id, (target_id, target_text))
        if target_id in held:
            found.setdefault(target_id, (source_id, source_text))
    return found
