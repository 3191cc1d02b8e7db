"""The "Agents" entry of the main navigation, shaped for templates/base.html's `nav_items` loop.

`nav_item(request)` returns the entry (or None outside a tenant); a project-level context processor that
collects every app's entries can call it. Intelligence pages add the link themselves unless the context
says `nav_has_agents`, so the entry is there either way.
"""

from django.urls import reverse


def nav_item(request) -> dict | None:
    if getattr(request, "tenant", None) is None:
        return None
    match = getattr(request, "resolver_match", None)
    active = bool(match and (match.url_name or "").startswith("intelligence-"))
    return {"label": "Agents", "url": reverse("intelligence-agents"), "active": active}
