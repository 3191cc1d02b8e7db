"""Insights → Analytics → Client Brain: the read-only operator dashboard.

GET ?status=<filter>&type=<family>&offset=<n>. Current rows by default; the status filter shows superseded,
archived or all rows instead (dashboard.STATUS_FILTERS). Without JavaScript, "Load more memories" is a link
to the next bounded offset page; with it, the next page's rows (?partial=rows) are appended in place,
skipping row ids already shown. Choosing a family or a status always restarts from the first page. No
edit, delete or reset controls: Client Brain mutation is suspended (DESIGN.md decision 10).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.shortcuts import render
from django.views import View

from tickets.tenancy.context import TenantViewMixin

from . import typed
from .dashboard import CURRENT, STATUS_FILTERS, client_brain_page, client_brain_stats


def _offset(raw: str | None) -> int:
    try:
        return max(0, int(raw or 0))
    except ValueError:
        return 0


def _query(*, status: str, family: str | None) -> str:
    """The filters' query string (without an offset), leaving out the defaults."""
    return urlencode({k: v for k, v in (("status", status), ("type", family)) if v and v != CURRENT})


class ClientBrainDashboardView(TenantViewMixin, View):
    def get(self, request):
        page = client_brain_page(
            tenant_id=request.tenant.pk,
            family=request.GET.get("type") or None,
            status=request.GET.get("status") or CURRENT,
            offset=_offset(request.GET.get("offset")),
        )
        context = {
            "page": page,
            "query": _query(status=page.status, family=page.family),
            "type_filters": [
                (family, _query(status=page.status, family=family)) for family in (None, *typed.FAMILIES)
            ],
            "status_filters": [(s, _query(status=s, family=page.family)) for s in STATUS_FILTERS],
        }
        if request.GET.get("partial") == "rows":
            return render(request, "client_brain/_rows.html", context)
        context["stats"] = client_brain_stats(tenant_id=request.tenant.pk)
        return render(request, "client_brain/dashboard.html", context)
