"""The "Insights · Client Brain" entry of the main navigation and its overview card.

Registered from the app's ready() (tickets.tenancy.ui.sections): `nav_item(request)` gives the navigation
entry (None outside a tenant) and `home_cards(tenant)` the overview page's card.
"""

from django.template.defaultfilters import pluralize
from django.urls import reverse

from .dashboard import client_brain_row_totals


def nav_item(request) -> dict | None:
    if getattr(request, "tenant", None) is None:
        return None
    match = getattr(request, "resolver_match", None)
    active = bool(match and match.url_name == "client-brain-dashboard")
    return {"label": "Insights · Client Brain", "url": reverse("client-brain-dashboard"), "active": active}


def home_cards(tenant) -> list[dict]:
    # The tally's figures alone: the card shows no activity, so the overview page neither drains nor sums it.
    stats = client_brain_row_totals(tenant_id=tenant.pk)
    return [
        {
            "label": "Client Brain memories in use",
            "value": stats.current.typed_rows,
            "url": reverse("client-brain-dashboard"),
        }
    ]


def _week_family(scope_kind: str, memory_type: str) -> str | None:
    """Which page lists a memory: the Intelligence tab ("agent"), an agent's "Written by the agent" view
    ("notes"), the Client Brain dashboard ("brain"); None for rows no page lists (an App's lessons, memories
    mined into a conversation's scope)."""
    from brain.models import AGENT_WRITTEN_TYPES, BrainScopeKind, MemoryType

    from .dashboard import OTHER_SURFACE_TYPES

    if scope_kind == BrainScopeKind.AGENT:
        if memory_type == MemoryType.AGENT_MEMORY:
            return "agent"
        return "notes" if memory_type in AGENT_WRITTEN_TYPES else None
    if scope_kind == BrainScopeKind.TENANT and memory_type not in OTHER_SURFACE_TYPES:
        return "brain"
    return None


def _week_counts(tenant, since) -> tuple[dict[str, dict[str, int]], set[str]]:
    """History actions since `since` per page family, and the agents (ids) whose notes changed. One grouped
    statement over the history."""
    from django.db.models import Count

    from brain.models import MemoryHistory

    counts: dict[str, dict[str, int]] = {}
    note_agents: set[str] = set()
    rows = (
        MemoryHistory.objects.for_tenant(tenant.pk)
        .filter(at__gte=since, memory__isnull=False)
        .exclude(action=MemoryHistory.Action.EMBEDDED)
        .values("memory__scope_kind", "memory__scope_id", "memory__type", "action")
        .annotate(n=Count("id"))
        .order_by()
    )
    for row in rows:
        family = _week_family(row["memory__scope_kind"], row["memory__type"])
        if family is None:
            continue
        by_action = counts.setdefault(family, {})
        by_action[row["action"]] = by_action.get(row["action"], 0) + row["n"]
        if family == "notes":
            note_agents.add(row["memory__scope_id"])
    return counts, note_agents


def week_changes(tenant, since) -> list[dict]:
    """What changed since `since` in the memories the pages list: agent memories (the Intelligence tab: added,
    edited, status changes, verdicts), the notes agents wrote themselves (their "Written by the agent" view)
    and Client Brain rows (the dashboard: added, confirmed again). Rows no page lists are not counted."""
    counts, note_agents = _week_counts(tenant, since)
    agent, notes, brain = counts.get("agent", {}), counts.get("notes", {}), counts.get("brain", {})
    changes = []
    if agent:
        parts = [
            f"{agent[a]} {label.format(pluralize(agent[a]))}"
            for a, label in (
                ("added", "added"),
                ("updated", "edited"),
                ("status_changed", "status change{}"),
                ("superseded", "replaced"),
                ("verdict", "verdict{} applied"),
                ("reinforced", "confirmed again"),
            )
            if agent.get(a)
        ]
        if parts:
            changes.append(
                {"text": "Agent memories: " + ", ".join(parts) + ".", "url": reverse("intelligence-agents")}
            )
    if notes.get("added") or notes.get("reinforced"):
        added, again = notes.get("added", 0), notes.get("reinforced", 0)
        url = (
            reverse("intelligence-notes", args=[int(next(iter(note_agents)))])
            if len(note_agents) == 1
            else reverse("intelligence-agents")
        )
        text = f"Written by agents: {added} note{'s' if added != 1 else ''} added"
        changes.append({"text": text + (f", {again} seen again." if again else "."), "url": url})
    if brain.get("added") or brain.get("reinforced"):
        changes.append(
            {
                "text": f"Client Brain: {brain.get('added', 0)} new memor{pluralize(brain.get('added', 0), 'y,ies')}, "
                f"{brain.get('reinforced', 0)} confirmed again.",
                "url": reverse("client-brain-dashboard"),
            }
        )
    return changes
