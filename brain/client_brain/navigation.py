"""The Client Brain's navigation entry and overview card for the operator UI shell.

`nav_items(request)` is a template context processor shaped for templates/base.html's `nav_items` loop;
`home_cards(tenant)` is shaped for the overview page's AppConfig hook.
"""

from django.urls import reverse

from .dashboard import client_brain_stats


def nav_items(request) -> dict:
    if not getattr(request, "tenant", None):
        return {}
    url = reverse("client-brain-dashboard")
    match = getattr(request, "resolver_match", None)
    active = bool(match) and match.url_name == "client-brain-dashboard"
    return {"nav_items": [{"label": "Insights · Client Brain", "url": url, "active": active}]}


def home_cards(tenant) -> list[dict]:
    stats = client_brain_stats(tenant_id=tenant.pk)
    return [
        {
            "label": "Client Brain stored rows",
            "value": stats.stored_rows,
            "url": reverse("client-brain-dashboard"),
        }
    ]
