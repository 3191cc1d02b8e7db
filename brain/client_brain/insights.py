"""Reads for the Client Brain dashboard's charts, provenance links and search box (operator UI only).

Kept apart from `dashboard.py`'s page and totals queries, which they leave as they are: each function here is
one more bounded statement, tenant first.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q

from brain.models import BrainScopeKind
from brain.search_box import literal_in_text, search_box

from .dashboard import (
    CURRENT,
    DashboardRow,
    client_brain_groups,
    client_brain_rows,
    client_brain_stored,
    dashboard_ordered,
    status_bucket,
    status_condition,
    to_row,
)
from .tally import BINS as HISTOGRAM_BINS


def confidence_histogram(*, tenant_id: int) -> tuple[list[int], int]:
    """Current rows per tenth of valid confidence (0–0.1, …, 0.9–1.0) and the number of current rows whose
    confidence is invalid (NaN, infinite, outside 0–1 or missing). From the tally's groups (one statement
    over a few dozen rows, brain.client_brain.tally), not a scan of the rows."""
    bins = [0] * HISTOGRAM_BINS
    invalid = 0
    for group in client_brain_groups(tenant_id=tenant_id):
        if status_bucket(group.status) != CURRENT:
            continue
        if group.valid:
            bins[group.confidence_bin] += group.rows
        else:
            invalid += group.rows
    return bins, invalid


def row_tickets(*, tenant_id: int, memory_ids: list[int]) -> dict[int, list[str]]:
    """The ticket external ids each row was learned from (its provenance), for the rows shown."""
    if not memory_ids:
        return {}
    rows = client_brain_stored(tenant_id=tenant_id).filter(id__in=memory_ids).values_list("id", "provenance")
    found: dict[int, list[str]] = {}
    for memory_id, provenance in rows:
        tickets = [
            str(p.get("external_id") or p.get("ticket_id"))
            for p in (provenance if isinstance(provenance, list) else [])
            if isinstance(p, dict)
            and p.get("kind") == "ticket"
            and (p.get("external_id") or p.get("ticket_id"))
        ]
        found[memory_id] = list(dict.fromkeys(tickets))
    return found


@dataclass(frozen=True)
class SearchPage:
    """One page of what the search box found, best match first. `total` counts every row the box lists
    (`capped`: more may match than that); `next_offset` is None on the last page."""

    rows: list[DashboardRow]
    total: int
    offset: int
    next_offset: int | None
    capped: bool
    by_meaning: bool = True


def _engine_filters(tenant_id: int, status: str, family: str | None) -> dict | None:
    """The engine's filters for the rows one status filter (and family) shows: the tally's types and statuses
    of those rows (legacy types included), or None when the filter shows no row."""
    groups = [
        g
        for g in client_brain_groups(tenant_id=tenant_id)
        if (family is None or g.type == family) and (status == "all" or status_bucket(g.status) == status)
    ]
    if not groups:
        return None
    return {
        "scope_kind": BrainScopeKind.TENANT.value,
        "types": sorted({g.type for g in groups}),
        "statuses": sorted({g.status for g in groups}),
    }


def client_brain_search(
    *, tenant_id: int, query: str, status: str = CURRENT, family: str | None = None, offset: int = 0
) -> SearchPage:
    """The operator's search box: rows of one status filter (and family) that the retrieval engine finds for
    `query` (typos, stems, meaning: brain.search_box), best match first, then the rows holding it literally
    in their key or value, in the dashboard's order; one page of BRAIN_CLIENT_BRAIN_PAGE_SIZE from `offset`.
    Tenant-scoped. Not the recall into prompts (brain.client_brain.recall, word overlap as the spec says)."""
    engine_filters = _engine_filters(tenant_id, status, family)
    if engine_filters is None or not query.strip():
        return SearchPage(rows=[], total=0, offset=offset, next_offset=None, capped=False)
    shows = status_condition(status) & (Q(type=family) if family else Q())
    needle = " ".join(query.split())
    listed = client_brain_rows(tenant_id=tenant_id)  # drains the tenant's recorded activity once
    found = search_box(
        tenant_id=tenant_id,
        query=query,
        rows=client_brain_stored(tenant_id=tenant_id).filter(shows),
        literal=literal_in_text(tenant_id=tenant_id, needle=needle),
        literal_order=dashboard_ordered(listed.filter(shows)),
        **engine_filters,
    )
    size = settings.BRAIN_CLIENT_BRAIN_PAGE_SIZE
    shown = found.ids[offset : offset + size]
    by_id = {m.id: to_row(m) for m in listed.filter(id__in=shown)}
    return SearchPage(
        rows=[by_id[i] for i in shown if i in by_id],
        total=len(found.ids),
        offset=offset,
        next_offset=offset + size if len(found.ids) > offset + size else None,
        capped=found.capped,
        by_meaning=found.by_meaning,
    )
