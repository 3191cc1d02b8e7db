"""The helpdesk's part of the operator UI (registered from TicketsConfig.ready()): no navigation entry of its
own (the Learning page is reached from the Client Brain page), the "first ticket" setup step, this week's
learning on the overview, and the learned-per-day chart on the Client Brain dashboard."""

from __future__ import annotations

from django.urls import reverse

from .tenancy.charts import stacked_columns

OUTCOME_SERIES = [
    ("added", "Added", "#12b76a"),
    ("reinforced", "Reinforced", "#3b5bdb"),
    ("superseded", "Superseded", "#f79009"),
    ("rejected", "Rejected", "#f04438"),
]


def nav_item(request) -> dict | None:
    return None


def home_cards(tenant) -> list[dict]:
    return []


def setup_steps(tenant) -> list[dict]:
    from .models import Ticket

    return [
        {
            "label": "Connect a helpdesk: its first resolved ticket",
            "done": Ticket.objects.for_tenant(tenant).exists(),
            "url": reverse("learning"),
            "help": "Send tickets to POST /api/v1/tickets with an API key; resolved ones teach the Client Brain.",
        }
    ]


def week_changes(tenant, since) -> list[dict]:
    from django.db.models import Count, Sum
    from django.template.defaultfilters import pluralize

    from .models import LearningAttempt

    totals = (
        LearningAttempt.objects.for_tenant(tenant)
        .filter(created_at__gte=since)
        .aggregate(attempts=Count("id"), added=Sum("added"), reinforced=Sum("reinforced"))
    )
    if not totals["attempts"]:
        return []
    added = totals["added"] or 0
    return [
        {
            "text": f"Learning read {totals['attempts']} ticket{pluralize(totals['attempts'])}: "
            f"{added} new Client Brain memor{pluralize(added, 'y,ies')}, {totals['reinforced'] or 0} confirmed "
            "again.",
            "url": reverse("learning"),
        }
    ]


def learned_chart(tenant):
    """Learned per day, stacked by outcome (the last 14 days)."""
    from .selectors import learned_per_day

    days = learned_per_day(tenant=tenant)
    return stacked_columns([(d.strftime("%d %b"), values) for d, values in days], OUTCOME_SERIES)


def client_brain_charts(tenant) -> list[dict]:
    return [
        {
            "chart": learned_chart(tenant),
            "caption": "Learned per day (last 14 days)",
            "testid": "chart-learned",
            "empty_text": "Nothing learned in the last 14 days.",
        }
    ]
