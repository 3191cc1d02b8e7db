"""Formation reads: a memory's history as plain values, and rejection counts per surface and reason."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count

from ..models import MemoryHistory


@dataclass(frozen=True)
class MemoryHistoryEntry:
    id: int
    memory_id: int | None
    action: str
    actor: str
    surface: str
    reason: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    at: datetime


def memory_history(*, tenant_id: int, memory_id: int, limit: int = 200) -> list[MemoryHistoryEntry]:
    """Every recorded change of one memory of `tenant_id`, newest first ([] for another tenant's id)."""
    rows = (
        MemoryHistory.objects.for_tenant(tenant_id).filter(memory_id=memory_id).order_by("-at", "-id")[:limit]
    )
    return [
        MemoryHistoryEntry(
            id=h.pk,
            memory_id=h.memory_id,
            action=h.action,
            actor=h.actor,
            surface=h.surface,
            reason=h.reason,
            before=h.before,
            after=h.after,
            at=h.at,
        )
        for h in rows
    ]


@dataclass(frozen=True)
class RejectionCount:
    surface: str
    reason: str
    count: int


def gate_rejection_counts(*, tenant_id: int | None = None) -> list[RejectionCount]:
    """Rejections grouped by surface × reason, largest first; all tenants when `tenant_id` is None (admin)."""
    rejected = MemoryHistory.objects.filter(action=MemoryHistory.Action.REJECTED)
    qs = rejected.all_tenants() if tenant_id is None else rejected.for_tenant(tenant_id)
    rows = qs.values("surface", "reason").annotate(n=Count("id")).order_by("-n", "surface", "reason")
    return [RejectionCount(surface=r["surface"], reason=r["reason"], count=r["n"]) for r in rows]
