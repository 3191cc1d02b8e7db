"""Selectors for Insights → Analytics → Client Brain (the read-only dashboard) and its REST list.

Everything is tenant-wide and computed in the database: the Typed Rows aggregate applies the shared
four-family guard as SQL (`typed_condition()`), so no tenant value is fetched to count it. What is current
is what is listed: a superseded or archived row is no longer current, so the rows leave it out unless a status
filter asks for it (`STATUS_FILTERS`). The aggregates count every stored row, as `client_brain.txt` says
(typed rows, all stored rows, average valid stored confidence, invalid-confidence rows, recorded activity,
stored counts by type), and the same figures for the current rows stand beside them. Stored and typed totals
keep rows with invalid historical confidence; the average takes only finite 0–1 values, and the rows it
excludes are counted separately for the warning. The aggregates over the rows are read
from the tally a trigger keeps per group of rows (brain.client_brain.tally), so no view, not even the first
after a write, scans the tenant's rows; recorded activity changes without a write to the rows, and is
summed afresh from the counter table on every call.

The page and the REST list read one order, `dashboard_ordered()`'s, through `dashboard_rows()`: the rows
with recorded activity from the counter table by count, then the rest from the confidence index, so a
page sorts only the rows of its first count groups instead of every row of the tenant (issue 17).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.db.models import Exists, F, IntegerField, OuterRef, Q, Sum, Value

from brain.activity import activity_count_expression, activity_drain
from brain.models import BrainScopeKind, Memory, MemoryActivity, MemoryHistory, MemoryStatus, MemoryType

from . import typed
from .tally import TallyGroup, tally_groups

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
# The history reason of an evaluator verdict recorded on a Client Brain row, which does not move it: Client
# Brain rows are not graded by outcomes (DESIGN.md decision 15; brain/verdicts.py writes it, the dashboard
# counts it).
VERDICT_NOT_GRADED = "verdict_not_graded"

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
    recorded activity, 0 when it has none), for listing. The tenant's recorded activity is drained first."""
    activity_drain(tenant_id=tenant_id)
    return client_brain_stored(tenant_id=tenant_id).annotate(
        typed=typed.typed_condition(), activity_count=activity_count_expression()
    )


@dataclass(frozen=True)
class RowFigures:
    """The aggregates `client_brain.txt` lists, over one set of rows: how many, how many typed, the average of
    the valid (finite 0–1) confidences, how many have an invalid one, their recorded activity, and how many of
    each family (`by_type`) or of an unsupported type (`legacy_type_rows`)."""

    rows: int
    typed_rows: int
    average_confidence: float | None
    invalid_confidence_rows: int
    recorded_activity: int
    by_type: dict[str, int]
    legacy_type_rows: int


@dataclass(frozen=True)
class DashboardStats:
    """Tenant-wide counts. The spec's figures count every stored row, whatever its status ("Stored and
    typed-row totals retain invalid historical confidence for visibility"): `stored_rows`, `typed_rows`,
    `average_confidence` (valid stored confidence), `invalid_confidence_rows`, `recorded_activity`, `by_type`
    and `legacy_type_rows`. Beside them, `rows_by_status` splits the stored rows into current, superseded and
    archived, and `current` gives the same figures for the current rows only (what recall may still use)."""

    stored_rows: int
    rows_by_status: dict[str, int]
    typed_rows: int
    average_confidence: float | None
    invalid_confidence_rows: int
    recorded_activity: int
    by_type: dict[str, int]
    legacy_type_rows: int
    current: RowFigures
    # Evaluator verdicts recorded on Client Brain rows (one per row and verdict), every status: they are in
    # the rows' history and move nothing (VERDICT_NOT_GRADED).
    verdicts_recorded: int = 0


def client_brain_stats(*, tenant_id: int) -> DashboardStats:
    """Tenant-wide aggregates, independent of any row filter: the rows' figures from the tally that a
    trigger keeps (brain.client_brain.tally: a few dozen group rows, however many memories), recorded
    activity summed afresh (the tenant's recorded activity drained first), and the verdicts recorded on the
    rows counted afresh."""
    activity_drain(tenant_id=tenant_id)
    totals = client_brain_row_totals(tenant_id=tenant_id)
    stored_activity, current_activity = _recorded_activity(tenant_id)
    return replace(
        totals,
        recorded_activity=stored_activity,
        current=replace(totals.current, recorded_activity=current_activity),
        verdicts_recorded=client_brain_verdicts_recorded(tenant_id=tenant_id),
    )


def client_brain_verdicts_recorded(*, tenant_id: int) -> int:
    """How many verdict entries the tenant's Client Brain rows have in their history: read from the history's
    (tenant, action, surface, reason) index, so only those entries are counted, not the tenant's rows."""
    return (
        MemoryHistory.objects.for_tenant(tenant_id)
        .filter(action=MemoryHistory.Action.VERDICT, surface="verdict", reason=VERDICT_NOT_GRADED)
        .count()
    )


def client_brain_groups(*, tenant_id: int) -> list[TallyGroup]:
    """The tally's groups of the tenant's stored Client Brain rows (other surfaces' types left out)."""
    return [g for g in tally_groups(tenant_id=tenant_id) if g.type not in OTHER_SURFACE_TYPES]


def _figures(groups: list[TallyGroup]) -> RowFigures:
    """The spec's aggregates over some of the tally's groups (recorded activity left at 0)."""
    valid = sum(g.rows for g in groups if g.valid)
    confidence_sum = sum(g.confidence_sum for g in groups if g.valid)
    counts: dict[str, int] = {}
    for g in groups:
        counts[g.type] = counts.get(g.type, 0) + g.rows
    by_type = {family: counts.pop(family, 0) for family in typed.FAMILIES}
    rows = sum(g.rows for g in groups)
    return RowFigures(
        rows=rows,
        typed_rows=sum(g.rows for g in groups if g.typed),
        average_confidence=confidence_sum / valid if valid else None,
        invalid_confidence_rows=rows - valid,
        recorded_activity=0,
        by_type=by_type,
        legacy_type_rows=sum(counts.values()),
    )


def client_brain_row_totals(*, tenant_id: int) -> DashboardStats:
    """The aggregates of the stored rows and of the current ones (recorded activity and verdicts left at 0),
    added up from the tally's groups: `client_brain_stats` without the reads of the activity and verdicts."""
    groups = client_brain_groups(tenant_id=tenant_id)
    by_status = dict.fromkeys((CURRENT, *RETIRED_STATUSES), 0)
    for g in groups:
        by_status[status_bucket(g.status)] += g.rows
    stored = _figures(groups)
    return DashboardStats(
        stored_rows=stored.rows,
        rows_by_status=by_status,
        typed_rows=stored.typed_rows,
        average_confidence=stored.average_confidence,
        invalid_confidence_rows=stored.invalid_confidence_rows,
        recorded_activity=0,
        by_type=stored.by_type,
        legacy_type_rows=stored.legacy_type_rows,
        current=_figures([g for g in groups if status_bucket(g.status) == CURRENT]),
    )


def rows_counted(*, tenant_id: int, status: str = CURRENT, family: str | None = None) -> int:
    """How many stored rows one status filter (and family) shows: what `dashboard_rows` pages through."""
    if status not in STATUS_FILTERS:
        raise ValueError(f"status must be one of {', '.join(STATUS_FILTERS)}, not {status!r}")
    return sum(
        g.rows
        for g in client_brain_groups(tenant_id=tenant_id)
        if (family is None or g.type == family) and (status == "all" or status_bucket(g.status) == status)
    )


def _recorded_activity(tenant_id: int) -> tuple[int, int]:
    """The recorded activity of the tenant's stored Client Brain rows, and of its current ones, in reads that
    need not join every counter row to its memory: the sum of all the tenant's counter rows (index
    `memoryactivity_tenant_count` holds the counts), less the activity of the tenant's memories that are not
    Client Brain rows (another scope, another surface's type); the current rows' is that, less the activity of
    the superseded and archived Client Brain rows (found through the memory indexes, usually few)."""
    counters = MemoryActivity.objects.for_tenant(tenant_id)
    total = counters.aggregate(total=Sum("count"))["total"] or 0
    if not total:
        return 0, 0
    memories = Memory.objects.for_tenant(tenant_id)
    elsewhere = memories.filter(
        Q(scope_kind__lt=BrainScopeKind.TENANT)
        | Q(scope_kind__gt=BrainScopeKind.TENANT)
        | Q(type__in=OTHER_SURFACE_TYPES)
    )
    retired = memories.filter(CLIENT_BRAIN_ROW & Q(status__in=RETIRED_STATUSES))
    other = counters.filter(memory__in=elsewhere).aggregate(total=Sum("count"))["total"] or 0
    stored = total - other
    retired_activity = counters.filter(memory__in=retired).aggregate(total=Sum("count"))["total"] or 0
    return stored, stored - retired_activity


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
    """THE dashboard order as one ORDER BY: recorded activity, then confidence, then id (a queryset from
    `client_brain_rows()`, which annotates `activity_count`). PostgreSQL puts NaN and missing confidence
    above every number in descending order: such rows lead their activity group, with their
    invalid-confidence label. It sorts every row it is given: fine for a bounded set (the search box's
    matches); the page and the REST list read the same order through `dashboard_rows()`."""
    return queryset.order_by("-activity_count", "-confidence", "id")


# The columns `to_row()` reads: a page leaves the embedding (384 floats as text), the tsvector and the
# provenance in the database.
ROW_FIELDS = (
    "id",
    "tenant_id",
    "type",
    "key",
    "payload",
    "text",
    "confidence",
    "status",
    "superseded_by_id",
    "created_at",
)


def _filtered(tenant_id: int, status: str, family: str | None):
    rows = client_brain_stored(tenant_id=tenant_id).filter(status_condition(status)).only(*ROW_FIELDS)
    return rows.filter(type=family) if family else rows


def _with_activity(rows, tenant_id: int):
    """The rows with recorded activity, in dashboard order: read from the counter rows by count, highest
    first (index `memoryactivity_tenant_count`), so only the first count groups are joined and sorted."""
    return (
        rows.filter(activity__tenant_id=tenant_id, activity__count__gt=0)
        .annotate(typed=typed.typed_condition(), activity_count=F("activity__count"))
        .order_by(F("activity__count").desc(), "-confidence", "id")
    )


def _without_activity(rows, tenant_id: int):
    """The rows without recorded activity (no counter row, or a count of 0), by confidence then id: the
    partial index `memory_client_brain_page` in that order, less the rows that have a counter."""
    counted = MemoryActivity.objects.for_tenant(tenant_id).filter(memory_id=OuterRef("pk"), count__gt=0)
    return (
        rows.filter(~Exists(counted))
        .annotate(typed=typed.typed_condition(), activity_count=Value(0, output_field=IntegerField()))
        .order_by("-confidence", "id")
    )


def dashboard_rows(
    *, tenant_id: int, status: str = CURRENT, family: str | None = None, offset: int = 0, limit: int
) -> list[Memory]:
    """Rows `offset` to `offset + limit` of one status filter (and family), in `dashboard_ordered()`'s order,
    annotated as `client_brain_rows()` annotates them: the dashboard's page and the REST list.

    Two statements instead of one sort of every row: the rows with recorded activity come first in that
    order, from the counter table; when the page reaches past them, the rows without activity follow,
    from the confidence index. Only a page that starts past every row with activity counts them (to know
    how far into the second part it starts). The tenant's recorded activity is drained first. Tenant-scoped;
    `status` one of STATUS_FILTERS.
    """
    activity_drain(tenant_id=tenant_id)
    rows = _filtered(tenant_id, status, family)
    page = list(_with_activity(rows, tenant_id)[offset : offset + limit])
    if len(page) == limit or limit <= 0:
        return page
    # Short: the rows with activity end on this page (skip none of the rest), or before it (skip the part
    # of the offset that lies past them).
    skip = 0 if page or not offset else max(0, offset - _with_activity(rows, tenant_id).count())
    return page + list(_without_activity(rows, tenant_id)[skip : skip + limit - len(page)])


class OrderedRows:
    """The rows of one filter in dashboard order for a paginator: `count()` (from the tally) and slices
    (`dashboard_rows`), as DRF's limit/offset pagination asks of a queryset."""

    def __init__(self, *, tenant_id: int, status: str = CURRENT, family: str | None = None):
        self.tenant_id, self.status, self.family = tenant_id, status, family

    def count(self) -> int:
        return rows_counted(tenant_id=self.tenant_id, status=self.status, family=self.family)

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, bounds: slice) -> list[Memory]:
        if not isinstance(bounds, slice) or bounds.step not in (None, 1) or bounds.stop is None:
            raise TypeError("OrderedRows takes a bounded slice")
        start = bounds.start or 0
        return dashboard_rows(
            tenant_id=self.tenant_id,
            status=self.status,
            family=self.family,
            offset=start,
            limit=max(0, bounds.stop - start),
        )


def to_row(memory: Memory) -> DashboardRow:
    display, valid = confidence_display(memory.confidence)
    value = typed.display_value(memory.type, memory.payload) if memory.typed else (memory.text or "")
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
    if family not in typed.FAMILIES:
        family = None
    fetched = dashboard_rows(tenant_id=tenant_id, status=status, family=family, offset=offset, limit=size + 1)
    next_offset = offset + size if len(fetched) > size else None
    return DashboardPage(
        rows=[to_row(m) for m in fetched[:size]],
        family=family,
        status=status,
        offset=offset,
        next_offset=next_offset,
    )


def client_brain_texts(*, tenant_id: int, memory_ids) -> dict[int, str]:
    """{id: readable text} of the tenant's Client Brain rows among `memory_ids`, in any status (one query):
    what a trace's Client Brain chips and the Learning page show instead of an id or a key. An id that is not
    one of the tenant's Client Brain rows is absent."""
    ids = {int(i) for i in memory_ids if str(i).isdigit()}
    if not ids:
        return {}
    rows = (
        client_brain_stored(tenant_id=tenant_id)
        .filter(pk__in=ids)
        .values_list("id", "type", "payload", "text")
    )
    return {
        pk: (typed.display_value(type_, payload) if typed.is_typed(type_, payload) else text)
        or typed.render_value("", payload)
        for pk, type_, payload, text in rows
    }
