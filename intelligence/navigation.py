"""The "Agents" entry of the main navigation, shaped for templates/base.html's `nav_items` loop.

Registered from the app's ready() (tickets.tenancy.ui.sections): `nav_item(request)` gives the navigation
entry (None outside a tenant) and `home_cards(tenant)` the overview page's card.
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


def setup_steps(tenant) -> list[dict]:
    """The first-run checklist's agent steps: an agent, then an active rule for it."""
    from brain import api as brain_api

    from .selectors import agents_for_tenant

    agents = list(agents_for_tenant(tenant)[:20])
    has_rule = any(
        m.strength == brain_api.MemoryStrength.HARD_RULE
        for agent in agents
        for m in brain_api.agent_memories_active(tenant_id=tenant.pk, agent_id=agent.pk)
    )
    first = agents[0] if agents else None
    return [
        {
            "label": "Create an agent",
            "done": bool(agents),
            "url": reverse("intelligence-agents"),
            "help": "One per AI agent you run: a support bot, an ads optimiser.",
        },
        {
            "label": "Give it a rule",
            "done": has_rule,
            "url": reverse("intelligence-memory-add", args=[first.pk])
            if first
            else reverse("intelligence-agents"),
            "help": "Something it must always follow, e.g. “Never promise a refund before checking the order.”",
        },
    ]


def week_changes(tenant, since) -> list[dict]:
    from .models import ContextTrace

    calls = ContextTrace.objects.for_tenant(tenant).filter(created_at__gte=since, origin="api").count()
    if not calls:
        return []
    return [{"text": f"Agents asked for their context {calls} time{'s' if calls != 1 else ''}.", "url": None}]


def first_agent(tenant):
    """The tenant's first agent by name (the API keys page's ready curl names it), or None."""
    from .selectors import agents_for_tenant

    return agents_for_tenant(tenant).first()
