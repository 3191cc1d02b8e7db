"""Reads for the Client Brain dashboard's charts, provenance links and search box (operator UI only).

Kept apart from `dashboard.py`'s page and totals queries, which they leave as they are: each function here is
one more bounded statement, tenant first.
"""

from __future__ import annotations

from django.db.models import Q

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

SEARCH_LIMIT = 50


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


def client_brain_search(*, tenant_id: int, query: str, status: str = "current") -> list[DashboardRow]:
    """Up to SEARCH_LIMIT rows of one status filter whose key or value contains `query` (case-insensitive; the
    trigram index serves it), in the dashboard's order."""
    rows = (
        client_brain_rows(tenant_id=tenant_id)
        .filter(status_condition(status))
        .filter(Q(key__icontains=query) | Q(text__icontains=query))
    )
    return [to_row(m) for m in dashboard_ordered(rows)[:SEARCH_LIMIT]]
