"""The dashboard's "waiting for evidence": Client Brain policy rows held as drafts until corroborated.

A learned business fact or process rule that grants money, credit, access or data, or contradicts a standing
row, is a draft until tickets of enough different customers within the learning window have taught it
(brain/formation/evidence.py). The operator sees each such row with how far its evidence goes. Read-only and
tenant-scoped, like the rest of the dashboard.
"""

from __future__ import annotations

from dataclasses import dataclass

from brain.formation.evidence import HELD_TYPES, corroboration, learning_window_days
from brain.models import BrainScopeKind, Memory, MemoryStatus

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
    for memory in held.order_by("-updated_at", "-id").only("id", "type", "key", "text", "provenance")[:limit]:
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
            )
        )
    return WaitingForEvidence(
        rows=rows, total=held.count() if len(rows) == limit else len(rows), window_days=window
    )
