"""Insights → Analytics → Client Brain: the read-only operator dashboard.

GET ?type=<family>&offset=<n>. Without JavaScript, "Load more memories" is a link to the next bounded
offset page; with it, the next page's rows (?partial=rows) are appended in place, skipping row ids
already shown. Choosing a family always restarts from the first page. No edit, delete or reset
controls: Client Brain mutation is suspended (DESIGN.md decision 10).
"""

from __future__ import annotations

from django.shortcuts import render
from django.views import View

from tickets.tenancy.context import TenantViewMixin

from . import typed
from .dashboard import client_brain_page, client_brain_stats


def _offset(raw: str | None) -> int:
    try:
        return max(0, int(raw or 0))
    except ValueError:
        return 0


class ClientBrainDashboardView(TenantViewMixin, View):
    def get(self, request):
        family = request.GET.get("type") or None
        page = client_brain_page(
            tenant_id=request.tenant.pk, family=family, offset=_offset(request.GET.get("offset"))
        )
        context = {"page": page, "families": typed.FAMILIES}
        if request.GET.get("partial") == "rows":
            return render(request, "client_brain/_rows.html", context)
        context["stats"] = client_brain_stats(tenant_id=request.tenant.pk)
        return render(request, "client_brain/dashboard.html", context)
