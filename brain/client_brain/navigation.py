"""The "Insights · Client Brain" entry of the main navigation and its overview card.

Listed in the OPERATOR_UI_SECTIONS setting: `nav_item(request)` gives the navigation entry (None outside a
tenant) and `home_cards(tenant)` the overview page's card.
"""

from django.urls import reverse

from .dashboard import client_brain_stats


def nav_item(request) -> dict | None:
    if getattr(request, "tenant", None) is None:
        return None
    match = getattr(request, "resolver_match", None)
    active = bool(match and match.url_name == "client-brain-dashboard")
    return {"label": "Insights · Client Brain", "url": reverse("client-brain-dashboard"), "active": active}


def home_cards(tenant) -> list[dict]:
    stats = client_brain_stats(tenant_id=tenant.pk)
    return [
        {
            "label": "Client Brain typed current rows",
            "value": stats.typed_rows,
            "url": reverse("client-brain-dashboard"),
        }
    ]
