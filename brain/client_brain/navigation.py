"""The "Insights · Client Brain" entry of the main navigation and its overview card.

Registered from the app's ready() (tickets.tenancy.ui.sections): `nav_item(request)` gives the navigation
entry (None outside a tenant) and `home_cards(tenant)` the overview page's card.
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


def week_changes(tenant, since) -> list[dict]:
    """What changed in the tenant's memories since `since`: agent memories (added, edited, status changes,
    verdicts) and Client Brain rows (added, confirmed again). One grouped statement over the history."""
    from django.db.models import Count

    from brain.models import BrainScopeKind, MemoryHistory

    counts = {
        (row["memory__scope_kind"], row["action"]): row["n"]
        for row in MemoryHistory.objects.for_tenant(tenant.pk)
        .filter(at__gte=since, memory__isnull=False)
        .exclude(action=MemoryHistory.Action.EMBEDDED)
        .values("memory__scope_kind", "action")
        .annotate(n=Count("id"))
        .order_by()
    }
    agent = {a: n for (kind, a), n in counts.items() if kind == BrainScopeKind.AGENT}
    brain = {a: n for (kind, a), n in counts.items() if kind == BrainScopeKind.TENANT}
    changes = []
    if agent:
        parts = [
            f"{agent[a]} {label}"
            for a, label in (
                ("added", "added"),
                ("updated", "edited"),
                ("status_changed", "status changes"),
                ("superseded", "replaced"),
                ("verdict", "verdicts applied"),
                ("reinforced", "confirmed again"),
            )
            if agent.get(a)
        ]
        changes.append(
            {"text": "Agent memories: " + ", ".join(parts) + ".", "url": reverse("intelligence-agents")}
        )
    if brain.get("added") or brain.get("reinforced"):
        changes.append(
            {
                "text": f"Client Brain: {brain.get('added', 0)} new memories, "
                f"{brain.get('reinforced', 0)} confirmed again.",
                "url": reverse("client-brain-dashboard"),
            }
        )
    return changes
