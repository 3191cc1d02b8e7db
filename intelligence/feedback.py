"""Operator feedback on conversations and runs (spec: Feedback Loop): the signal that drives suggestions.

A rating is 1 or -1 with an optional comment (at most COMMENT_MAX_CHARS); the server stamps `feedback_at`.
Re-rating replaces the record's current rating and keeps every earlier one in `FeedbackHistory`. After the
rating commits, the suggestion task is enqueued when the agent's threshold of new ratings is reached
(`intelligence.suggestions.suggestions_enqueue_if_due`).

Services take the record they change (resolved in the caller's tenant by the tenancy layer); selectors
take the tenant first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from .models import AgentRun, Conversation, FeedbackHistory

COMMENT_MAX_CHARS = 2000
RATINGS = (1, -1)


def _clean_feedback(rating, comment) -> tuple[int, str]:
    errors = {}
    if isinstance(rating, bool) or rating not in RATINGS:
        errors["rating"] = "Must be 1 (thumbs up) or -1 (thumbs down)."
    comment = "" if comment is None else comment
    if not isinstance(comment, str):
        errors["comment"] = "Must be text."
    elif len(comment.strip()) > COMMENT_MAX_CHARS:
        errors["comment"] = f"At most {COMMENT_MAX_CHARS} characters."
    if errors:
        raise ValidationError(errors)
    return int(rating), comment.strip()


def _feedback_set(record, *, rating, comment, actor: str, now: datetime | None):
    from .suggestions import suggestions_enqueue_if_due

    rating, comment = _clean_feedback(rating, comment)
    now = now or timezone.now()
    locked = type(record).objects.for_tenant(record.tenant_id).select_for_update().get(pk=record.pk)
    locked.feedback_rating, locked.feedback_comment, locked.feedback_at = rating, comment, now
    locked.save(update_fields=["feedback_rating", "feedback_comment", "feedback_at"])
    FeedbackHistory.objects.create(
        tenant_id=locked.tenant_id,
        agent_id=locked.agent_id,
        conversation=locked if isinstance(locked, Conversation) else None,
        run=locked if isinstance(locked, AgentRun) else None,
        rating=rating,
        comment=comment,
        rated_at=now,
        actor=actor[:120],
    )
    tenant_id, agent_id = locked.tenant_id, locked.agent_id
    transaction.on_commit(lambda: suggestions_enqueue_if_due(tenant_id=tenant_id, agent_id=agent_id))
    return locked


@transaction.atomic
def conversation_feedback_set(
    *, conversation: Conversation, rating: int, comment: str = "", actor: str, now: datetime | None = None
) -> Conversation:
    """Rate a conversation 1 or -1 (ValidationError otherwise); replaces its rating, keeps the earlier one in
    the history. `now` is the server's clock (tests drive it). Returns the updated conversation."""
    return _feedback_set(conversation, rating=rating, comment=comment, actor=actor, now=now)


@transaction.atomic
def run_feedback_set(
    *, run: AgentRun, rating: int, comment: str = "", actor: str, now: datetime | None = None
) -> AgentRun:
    """Rate an agent run, as `conversation_feedback_set` does a conversation."""
    return _feedback_set(run, rating=rating, comment=comment, actor=actor, now=now)


# --- selectors -----------------------------------------------------------------------------------------


def conversations_recent(tenant, agent, limit: int = 25) -> QuerySet[Conversation]:
    return (
        Conversation.objects.for_tenant(tenant)
        .filter(agent=agent)
        .select_related("context_trace")
        .order_by("-created_at", "-id")[:limit]
    )


def runs_recent(tenant, agent, limit: int = 25) -> QuerySet[AgentRun]:
    return (
        AgentRun.objects.for_tenant(tenant)
        .filter(agent=agent)
        .select_related("context_trace")
        .order_by("-created_at", "-id")[:limit]
    )


def feedback_history(record) -> list[FeedbackHistory]:
    """Every rating the record was given, oldest first (the last one is its current rating)."""
    return list(FeedbackHistory.objects.for_tenant(record.tenant_id).filter(**{_kind(record): record}))


def _kind(record) -> str:
    return "conversation" if isinstance(record, Conversation) else "run"


@dataclass(frozen=True)
class RatedRecord:
    """A rated conversation or run, as suggestion reads it."""

    kind: str  # "conversation" | "run"
    id: int
    rating: int
    comment: str
    feedback_at: datetime

    @property
    def ref(self) -> str:
        return f"{self.kind}:{self.id}"


def rated_records(tenant_id: int, agent_id: int, *, since: datetime | None) -> list[RatedRecord]:
    """The agent's rated conversations and runs whose rating was given at or after `since` (None: all time),
    oldest first."""
    out: list[RatedRecord] = []
    for kind, model in (("conversation", Conversation), ("run", AgentRun)):
        rows = model.objects.for_tenant(tenant_id).filter(agent_id=agent_id, feedback_rating__isnull=False)
        if since is not None:
            rows = rows.filter(feedback_at__gte=since)
        for pk, rating, comment, at in rows.values_list(
            "pk", "feedback_rating", "feedback_comment", "feedback_at"
        ):
            out.append(RatedRecord(kind=kind, id=pk, rating=rating, comment=comment, feedback_at=at))
    out.sort(key=lambda r: (r.feedback_at, r.kind, r.id))
    return out


def new_ratings_count(tenant_id: int, agent_id: int, *, after: datetime | None) -> int:
    """How many of the agent's conversations and runs were rated after `after` (None: ever)."""
    total = 0
    for model in (Conversation, AgentRun):
        rows = model.objects.for_tenant(tenant_id).filter(agent_id=agent_id, feedback_rating__isnull=False)
        if after is not None:
            rows = rows.filter(feedback_at__gt=after)
        total += rows.count()
    return total
