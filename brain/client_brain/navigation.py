"""The "Insights · Client Brain" entry of the main navigation and its overview card.

`nav_item(request)` returns the entry shaped for templates/base.html's `nav_items` loop (or None outside a
tenant), for a project-level context processor that collects every app's entries. Until one sets
`nav_has_client_brain`, the dashboard adds its own link. `home_cards(tenant)` is shaped for the
overview page's AppConfig hook.
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
            "label": "Client Brain typed rows",
            "value": stats.typed_rows,
            "url": reverse("client-brain-dashboard"),
        }
    ]
