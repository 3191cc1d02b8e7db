"""Selectors for Insights → Analytics → Client Brain (the read-only dashboard) and its REST list.

Everything is tenant-wide and computed in the database: the Typed Rows aggregate applies the shared
four-family guard as SQL (`typed_condition()`), so no tenant value is fetched to count it. What is current
is what is shown: a superseded or archived row is no longer current, so the rows and every aggregate but
the stored totals per status leave it out unless a status filter asks for it (`STATUS_FILTERS`). Stored and
typed totals keep rows with invalid historical confidence; the average takes only finite 0–1 values,
and the rows it excludes are counted separately for the warning. The aggregates over the rows scan all of
the tenant's rows, so each process keeps them under the tenant scope's memory state (brain.memory_state),
which every write to a Client Brain row changes; recorded activity changes without such a write, and is
summed afresh from the activity table on every call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.db.models import Count, Q, Sum

from brain.activity import activity_count_expression
from brain.caches import StateCache
from brain.memory_state import memory_state
from brain.models import BrainScopeKind, Memory, MemoryActivity, MemoryStatus, MemoryType

from . import typed

# Types that belong to other write surfaces (agent memories, notes, lessons, chat-mined, facts): not
# Client Brain rows even when stored at tenant scope. Any other type is Client Brain, legacy or current.
OTHER_SURFACE_TYPES = (
    MemoryType.AGENT_MEMORY,
    MemoryType.NOTE,
    MemoryType.LESSON,
    MemoryType.CHAT,
    MemoryType.FACT,
)
VALID_CONFIDENCE = Q(confidence__gte=0.0, confidence__lte=1.0)  # PostgreSQL: NaN > 1, so NaN is outside
# What makes a memory row a Client Brain row (any status): the tenant's scope, not another surface's type.
CLIENT_BRAIN_ROW = Q(scope_kind=BrainScopeKind.TENANT) & ~Q(type__in=OTHER_SURFACE_TYPES)

# A row that is no longer current: replaced by a newer memory, or archived. Any other status is current.
# Plain strings: a TextChoices member hashes by its name, so it would miss a status read from the database.
RETIRED_STATUSES = (MemoryStatus.SUPERSEDED.value, MemoryStatus.ARCHIVED.value)
CURRENT = "current"
# The dashboard's and the REST list's status filter, default first.
STATUS_FILTERS = (CURRENT, *RETIRED_STATUSES, "all")


def is_client_brain_row(memory: Memory) -> bool:
    """The Python form of CLIENT_BRAIN_ROW, for one row already loaded (the admin's read-only check)."""
    return memory.scope_kind == BrainScopeKind.TENANT and memory.type not in OTHER_SURFACE_TYPES


def status_condition(status: str) -> Q:
    """The rows one STATUS_FILTERS value shows (`Q()` for "all"). Raises ValueError for another value."""
    if status == CURRENT:
        return ~Q(status__in=RETIRED_STATUSES)
    if status == "all":
        return Q()
    if status in RETIRED_STATUSES:
        return Q(status=status)
    raise ValueError(f"status must be one of {', '.join(STATUS_FILTERS)}, not {status!r}")


def status_bucket(status: str) -> str:
    """Which of current / superseded / archived a stored status counts under."""
    return status if status in RETIRED_STATUSES else CURRENT


def client_brain_stored(*, tenant_id: int):
    """Every stored Client Brain row of the tenant (every status, legacy types and invalid confidence)."""
    return Memory.objects.for_tenant(tenant_id).filter(CLIENT_BRAIN_ROW)


def client_brain_rows(*, tenant_id: int):
    """The stored rows annotated with `typed` (the SQL guard) and `activity_count` (the memory's
    recorded activity, 0 when it has none), for listing."""
    return client_brain_stored(tenant_id=tenant_id).annotate(
        typed=typed.typed_condition(), activity_count=activity_count_expression()
    )


@dataclass(frozen=True)
class DashboardStats:
    """Tenant-wide counts. `stored_rows` is every stored row and `rows_by_status` splits it into current,
    superseded and archived; every other figure counts current rows only (what recall may still use)."""

    stored_rows: int
    rows_by_status: dict[str, int]
    typed_rows: int
    average_confidence: float | None
    invalid_confidence_rows: int
    recorded_activity: int
    by_type: dict[str, int]
    legacy_type_rows: int

    @property
    def current_rows(self) -> int:
        return self.rows_by_status[CURRENT]


# Per process: the tenant's row aggregates (all but recorded activity), under the tenant scope's state.
_ROW_TOTALS = StateCache(
    "client-brain-dashboard-totals", size=64, keyed_on="(tenant,) and the memory state of its tenant scope"
)


def client_brain_stats(*, tenant_id: int) -> DashboardStats:
    """Tenant-wide aggregates, independent of any row filter."""
    # Taken before the rows are read: cached totals are at least as new as this state.
    state = memory_state(tenant_id, scope_kind=BrainScopeKind.TENANT)
    totals = _ROW_TOTALS.get((int(tenant_id),), state, lambda: _row_totals(tenant_id))
    return replace(totals, recorded_activity=_recorded_activity(tenant_id))


def _row_totals(tenant_id: int) -> DashboardStats:
    """The aggregates of the stored rows (recorded activity left at 0): one scan grouped by type and
    status, no values fetched (the partial sums of the current groups are added up here)."""
    groups = list(
        client_brain_stored(tenant_id=tenant_id)
        .order_by()
        .values("type", "status")
        .annotate(
            stored=Count("id"),
            typed_rows=Count("id", filter=typed.typed_condition()),
            valid=Count("id", filter=VALID_CONFIDENCE),
            confidence_sum=Sum("confidence", filter=VALID_CONFIDENCE),
        )
    )
    by_status = dict.fromkeys((CURRENT, *RETIRED_STATUSES), 0)
    for g in groups:
        by_status[status_bucket(g["status"])] += g["stored"]
    current = [g for g in groups if status_bucket(g["status"]) == CURRENT]
    valid = sum(g["valid"] for g in current)
    confidence_sum = sum(g["confidence_sum"] or 0.0 for g in current)
    counts: dict[str, int] = {}
    for g in current:
        counts[g["type"]] = counts.get(g["type"], 0) + g["stored"]
    by_type = {family: counts.pop(family, 0) for family in typed.FAMILIES}
    return DashboardStats(
        stored_rows=sum(by_status.values()),
        rows_by_status=by_status,
        typed_rows=sum(g["typed_rows"] for g in current),
        average_confidence=confidence_sum / valid if valid else None,
        invalid_confidence_rows=by_status[CURRENT] - valid,
        recorded_activity=0,
        by_type=by_type,
        legacy_type_rows=sum(counts.values()),
    )


def _recorded_activity(tenant_id: int) -> int:
    """The recorded activity of the tenant's current rows: from the counter rows (only memories with
    activity have one), not a scan of the memories."""
    total = (
        MemoryActivity.objects.for_tenant(tenant_id)
        .filter(memory__scope_kind=BrainScopeKind.TENANT)
        .exclude(memory__type__in=OTHER_SURFACE_TYPES)
        .exclude(memory__status__in=RETIRED_STATUSES)
        .aggregate(total=Sum("count"))["total"]
    )
    return total or 0


def confidence_display(value: float | None) -> tuple[str, bool]:
    """How a stored confidence reads, and whether it is valid (finite within 0–1)."""
    if value is None:
        return "missing", False
    if math.isnan(value):
        return "NaN", False
    if math.isinf(value):
        return ("∞" if value > 0 else "−∞"), False
    if not 0.0 <= value <= 1.0:
        return f"{value:g} (out of range)", False
    return f"{value:.2f}", True


@dataclass(frozen=True)
class DashboardRow:
    id: int
    type: str
    key: str
    value: str
    payload: Any
    confidence: float | None
    confidence_display: str
    confidence_valid: bool
    typed: bool
    status: str
    superseded_by_id: int | None
    activity_count: int
    created_at: Any

    @property
    def legacy(self) -> bool:
        """Unsupported type or shape: shown as legacy memory format."""
        return not self.typed


@dataclass(frozen=True)
class DashboardPage:
    rows: list[DashboardRow]
    family: str | None
    status: str
    offset: int
    next_offset: int | None


def dashboard_ordered(queryset):
    """Recorded activity, then confidence, then id (a queryset from `client_brain_rows()`, which
    annotates `activity_count`). PostgreSQL puts NaN and missing confidence above every number in
    descending order: such rows lead their activity group, with their invalid-confidence label."""
    return queryset.order_by("-activity_count", "-confidence", "id")


def to_row(memory: Memory) -> DashboardRow:
    display, valid = confidence_display(memory.confidence)
    value = typed.render_value(memory.type, memory.payload) if memory.typed else (memory.text or "")
    if not value:
        value = typed.render_value("", memory.payload)
    return DashboardRow(
        id=memory.id,
        type=memory.type,
        key=memory.key,
        value=value,
        payload=memory.payload,
        confidence=memory.confidence if valid else None,
        confidence_display=display,
        confidence_valid=valid,
        typed=memory.typed,
        status=memory.status,
        superseded_by_id=memory.superseded_by_id,
        activity_count=memory.activity_count,
        created_at=memory.created_at,
    )


def client_brain_page(
    *, tenant_id: int, family: str | None = None, status: str = CURRENT, offset: int = 0
) -> DashboardPage:
    """One bounded offset page of stored rows (BRAIN_CLIENT_BRAIN_PAGE_SIZE) of one status filter (current
    rows unless `status` names another of STATUS_FILTERS; an unknown value means current). Offset paging
    is not a stable snapshot: rows may shift between requests, and the page may repeat an id already shown."""
    size = settings.BRAIN_CLIENT_BRAIN_PAGE_SIZE
    offset = max(0, offset)
    if status not in STATUS_FILTERS:
        status = CURRENT
    rows = client_brain_rows(tenant_id=tenant_id).filter(status_condition(status))
    if family in typed.FAMILIES:
        rows = rows.filter(type=family)
    else:
        family = None
    fetched = list(dashboard_ordered(rows)[offset : offset + size + 1])
    next_offset = offset + size if len(fetched) > size else None
    return DashboardPage(
        rows=[to_row(m) for m in fetched[:size]],
        family=family,
        status=status,
        offset=offset,
        next_offset=next_offset,
    )
