"""Conversations, runs and ratings for the feedback and suggestion tests, written through the services."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from intelligence.models import AgentRun, Conversation
from intelligence.services import conversation_feedback_set, run_feedback_set

NOW = timezone.now().replace(microsecond=0)


def conversation(agent, title="Where is my parcel?", trace=None) -> Conversation:
    return Conversation.objects.create(
        tenant_id=agent.tenant_id, agent=agent, title=title, context_trace=trace
    )


def run(agent, summary="Raise the budget of campaign 12", trace=None) -> AgentRun:
    return AgentRun.objects.create(
        tenant_id=agent.tenant_id, agent=agent, summary=summary, context_trace=trace
    )


def rate(agent, comment: str, *, rating: int = -1, days_ago: float = 0, on: str = "conversation", now=None):
    """A new conversation (or run) of `agent` rated `days_ago` days before `now` (default NOW)."""
    at: datetime = (now or NOW) - timedelta(days=days_ago)
    if on == "run":
        return run_feedback_set(run=run(agent), rating=rating, comment=comment, actor="process:test", now=at)
    return conversation_feedback_set(
        conversation=conversation(agent), rating=rating, comment=comment, actor="process:test", now=at
    )
