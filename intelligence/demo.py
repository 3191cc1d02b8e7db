"""Demo agents for `manage.py seed_demo`: memories of every category, strength and status, written through
promote() like an operator's. Idempotent: an agent that already has memories is left as it is."""

from __future__ import annotations

from brain import api as brain_api

from . import services
from .models import Agent

ACTOR = "process:seed_demo"

# (category, strength, status, content, scope)
SUPPORT_MEMORIES = [
    (
        "instruction",
        "hard_rule",
        "active",
        "Never promise a refund before the billing team has confirmed it.",
        {},
    ),
    (
        "correction",
        "hard_rule",
        "active",
        "Order numbers have 8 digits; do not ask customers for a 6-digit code.",
        {},
    ),
    (
        "preference",
        "preference",
        "active",
        "Prefer short answers with one clear next step for delivery questions.",
        {},
    ),
    (
        "fact",
        "preference",
        "draft",
        "Customers on the premium plan get a callback within four business hours.",
        {},
    ),
    (
        "fact",
        "heuristic",
        "active",
        "Tickets about late parcels usually resolve once a tracking link is shared.",
        {},
    ),
    (
        "fact",
        "context_note",
        "active",
        "The warehouse closes for stocktaking during the first week of January.",
        {},
    ),
    (
        "instruction",
        "preference",
        "stale",
        "Offer the spring discount code when customers mention the sale.",
        {},
    ),
    (
        "correction",
        "heuristic",
        "archived",
        "Returns were handled by email before the portal launched in March.",
        {},
    ),
]
ADS_MEMORIES = [
    (
        "instruction",
        "hard_rule",
        "active",
        "Never raise a campaign's daily budget by more than 20 percent at once.",
        {},
    ),
    (
        "instruction",
        "hard_rule",
        "active",
        "On Meta, leave a new ad set in its learning phase for seven days before editing it.",
        {"provider": "meta_ads"},
    ),
    (
        "preference",
        "preference",
        "active",
        "Report spend and cost per acquisition in euros, rounded to whole numbers.",
        {"tags": ["reporting"]},
    ),
    (
        "fact",
        "heuristic",
        "active",
        "Spring sale search campaigns convert best on weekday mornings.",
        {"provider": "google_ads", "campaign_ids": ["spring-sale-search"]},
    ),
    (
        "correction",
        "heuristic",
        "draft",
        "TikTok creatives under 15 seconds outperform longer cuts.",
        {"provider": "tiktok_ads"},
    ),
    ("fact", "context_note", "active", "The client's fiscal year starts in April; budgets reset then.", {}),
    (
        "fact",
        "preference",
        "archived",
        "DV360 display campaigns were paused for the whole of last summer.",
        {"provider": "dv360"},
    ),
]
# The memory to supersede in each agent, and its newer value (shows a chain in the tab).
SUPERSEDE = {
    "Support assistant": (
        "Order numbers have 8 digits; do not ask customers for a 6-digit code.",
        "Order numbers have 10 digits since the shop moved platforms; older orders keep 8.",
    ),
    "Ads optimiser": (
        "Never raise a campaign's daily budget by more than 20 percent at once.",
        "Never raise a campaign's daily budget by more than 15 percent in one day.",
    ),
}
AGENTS = [
    ("Support assistant", "knowledge", "Answers customer tickets from the helpdesk.", SUPPORT_MEMORIES),
    ("Ads optimiser", "action", "Proposes budget and bid changes on the ad platforms.", ADS_MEMORIES),
]


def seed_demo(tenant, stdout) -> None:
    for name, kind, description, memories in AGENTS:
        agent = Agent.objects.for_tenant(tenant).filter(name=name).first() or services.agent_create(
            tenant=tenant, name=name, kind=kind, description=description
        )
        if brain_api.agent_memory_list(tenant_id=tenant.pk, agent_id=agent.pk, limit=1).total:
            stdout.write(f"  {tenant.name}: agent “{name}” already has memories; left as it is.")
            continue
        ids: dict[str, int] = {}
        for category, strength, status, text, scope in memories:
            outcome = services.agent_memory_add(
                agent=agent,
                actor=ACTOR,
                category=category,
                strength=strength,
                status=status,
                text=text,
                **scope,
            )
            if outcome.written:
                ids[text] = outcome.memory_id
            else:
                stdout.write(f"  {tenant.name}: the gate rejected a demo memory ({outcome.reason}): {text}")
        old_text, new_text = SUPERSEDE[name]
        if old_text in ids:
            services.agent_memory_supersede(agent=agent, memory_id=ids[old_text], actor=ACTOR, text=new_text)
        total = brain_api.agent_memory_list(tenant_id=tenant.pk, agent_id=agent.pk, limit=1).total
        stdout.write(
            f"  {tenant.name}: agent “{name}” with {total} memories (every category, strength and status)."
        )
