"""Insights → Analytics → Client Brain: the read-only operator dashboard.

GET ?status=<filter>&type=<family>&offset=<n>&q=<text>. Current rows by default; the status filter shows
superseded, archived or all rows instead (dashboard.STATUS_FILTERS). Without JavaScript, "Load more memories"
is a link to the next bounded offset page; with it, the next page's rows (?partial=rows) are appended in
place, skipping row ids already shown. Choosing a family or a status always restarts from the first page. A
search (`q`) goes through the retrieval engine (insights.client_brain_search: typos, stems, meaning), best
match first, under the status and family filters, paged the same way. No edit, delete or reset
controls: Client Brain mutation is suspended (DESIGN.md decision 10). Charts are server-side SVG.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.shortcuts import render
from django.views import View

from brain.client_brain import typed
from brain.client_brain.dashboard import (
    CURRENT,
    STATUS_FILTERS,
    DashboardPage,
    client_brain_page,
    client_brain_stats,
)
from brain.client_brain.insights import HISTOGRAM_BINS, client_brain_search, confidence_histogram, row_tickets
from brain.client_brain.waiting import waiting_for_evidence
from tickets.tenancy.charts import bar_chart
from tickets.tenancy.ui.mixins import TenantViewMixin
from tickets.tenancy.ui.sections import operator_ui_sections

TYPE_COLOURS = {"business": "#3b5bdb", "voice": "#7a5af8", "issues": "#f79009", "process": "#12b76a"}


def _offset(raw: str | None) -> int:
    try:
        return max(0, int(raw or 0))
    except ValueError:
        return 0


def _query(*, status: str, family: str | None, search: str = "") -> str:
    """The filters' query string (without an offset), leaving out the defaults; the search kept when given."""
    pairs = (("q", search), ("status", status), ("type", family))
    return urlencode({k: v for k, v in pairs if v and v != CURRENT})


def _with_tickets(tenant_id: int, rows) -> list[tuple]:
    tickets = row_tickets(tenant_id=tenant_id, memory_ids=[r.id for r in rows])
    return [(row, tickets.get(row.id, [])) for row in rows]


def dashboard_charts(tenant, stats) -> list[dict]:
    """The current rows by type, their confidence histogram (valid tenths, then invalid), then the sections'
    charts (the aggregate cards give the stored rows' figures)."""
    current = stats.current
    by_type = [
        (family, count, TYPE_COLOURS.get(family, "#667085")) for family, count in current.by_type.items()
    ]
    if current.legacy_type_rows:
        by_type.append(("legacy", current.legacy_type_rows, "#98a2b3"))
    bins, invalid = confidence_histogram(tenant_id=tenant.pk)
    histogram = [(f"{i / HISTOGRAM_BINS:.1f}", n, "#3b5bdb") for i, n in enumerate(bins)]
    histogram.append(("invalid", invalid, "#f04438"))
    charts = [
        {"chart": bar_chart(by_type), "caption": "Current rows by type", "testid": "chart-by-type"},
        {
            "chart": bar_chart(histogram),
            "caption": "Confidence of current rows (valid by tenth, then invalid)",
            "testid": "chart-confidence",
        },
    ]
    for section in operator_ui_sections():
        charts.extend(getattr(section, "client_brain_charts", lambda tenant: [])(tenant))
    return charts


def _page(tenant_id: int, *, status: str, family: str | None, offset: int, search: str):
    """The rows shown: a page of the dashboard's order, or, with a search, a page of what the search box
    found (best match first) under the same filters. Returns (page, the search's page or None)."""
    if not search:
        return client_brain_page(tenant_id=tenant_id, family=family, status=status, offset=offset), None
    status = status if status in STATUS_FILTERS else CURRENT
    family = family if family in typed.FAMILIES else None
    found = client_brain_search(
        tenant_id=tenant_id, query=search, status=status, family=family, offset=offset
    )
    return DashboardPage(found.rows, family, status, offset, found.next_offset), found


class ClientBrainDashboardView(TenantViewMixin, View):
    def get(self, request):
        tenant_id = request.tenant.pk
        search = " ".join((request.GET.get("q") or "").split())[:200]
        page, found = _page(
            tenant_id,
            status=request.GET.get("status") or CURRENT,
            family=request.GET.get("type") or None,
            offset=_offset(request.GET.get("offset")),
            search=search,
        )
        template_context = {
            "page": page,
            "rows": _with_tickets(tenant_id, page.rows),
            "search": search,
            "found": found,
            "query": _query(status=page.status, family=page.family, search=search),
            "clear_query": _query(status=page.status, family=page.family),
            "all_query": _query(status="all", family=None, search=search),
            "type_filters": [
                (family, _query(status=page.status, family=family, search=search))
                for family in (None, *typed.FAMILIES)
            ],
            "status_filters": [
                (s, _query(status=s, family=page.family, search=search)) for s in STATUS_FILTERS
            ],
        }
        if request.GET.get("partial") == "rows":
            return render(request, "client_brain/_rows.html", template_context)
        template_context["stats"] = stats = client_brain_stats(tenant_id=tenant_id)
        template_context["waiting"] = waiting_for_evidence(tenant_id=tenant_id)
        template_context["charts"] = dashboard_charts(request.tenant, stats) if stats.stored_rows else []
        return render(request, "client_brain/dashboard.html", template_context)
