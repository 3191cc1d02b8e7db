"""Operator feedback on conversations and runs (spec: Feedback Loop): the signal that drives suggestions.

A rating is the integer 1 or -1 (not True, 1.0 or "1") with an optional comment (at most COMMENT_MAX_CHARS);
the server stamps `feedback_at`.
Re-rating replaces the record's current rating and keeps every earlier one in `FeedbackHistory`. After the
rating commits, the suggestion task is enqueued when the agent's threshold of new ratings is reached
(`intelligence.services.suggestions.suggestions_enqueue_if_due`).

Services take the record they change (resolved in the caller's tenant by the tenancy layer); the reads of
ratings are in `intelligence.selectors`.
"""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from ..models import AgentRun, Conversation, FeedbackHistory

COMMENT_MAX_CHARS = 2000
RATINGS = (1, -1)


def _clean_feedback(rating, comment) -> tuple[int, str]:
    errors = {}
    # The integer itself: 1.0 == 1 and True == 1 in Python, but neither is a rating (issue 26).
    if type(rating) is not int or rating not in RATINGS:
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
