"""The "Agents" entry of the main navigation, shaped for templates/base.html's `nav_items` loop.

Listed in the OPERATOR_UI_SECTIONS setting: `nav_item(request)` gives the navigation entry (None outside a
tenant) and `home_cards(tenant)` the overview page's card.
"""

from django.urls import reverse


def nav_item(request) -> dict | None:
    if getattr(request, "tenant", None) is None:
        return None
    match = getattr(request, "resolver_match", None)
    active = bool(match and (match.url_name or "").startswith("intelligence-"))
    return {"label": "Agents", "url": reverse("intelligence-agents"), "active": active}


def home_cards(tenant) -> list[dict]:
    """The overview page's card: how many agents, linking to the agents list."""
    from .selectors import agents_for_tenant

    return [
        {"label": "agents", "value": agents_for_tenant(tenant).count(), "url": reverse("intelligence-agents")}
    ]
