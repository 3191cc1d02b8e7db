"""REST for feedback and suggestions (on tickets/tenancy/drf: the tenant from the key or the session).

- `POST /api/v1/conversations/{id}/feedback`, `POST /api/v1/runs/{id}/feedback`: {"rating": 1 | -1,
  "comment": "..."} — for agents and helpdesk integrations; re-rating replaces the rating, the earlier one
  stays in the history (returned). The rating is the JSON number: "1", true, 1.0 and null are 400s.
- `GET /api/v1/agents/{id}/suggestions`: the review queue (suggested drafts) with its count;
  `POST .../suggestions/{memory_id}/activate` (optional edits: content, category, strength, scope) and
  `POST .../suggestions/{memory_id}/dismiss` {"reason": "..."}.
A conversation, run, agent or suggestion of another tenant is a 404, as a missing one is.
"""

from __future__ import annotations

import json

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import status
from rest_framework.response import Response

from config import serializers
from config.schema import page_of
from tickets.tenancy.drf import TenantAPIView

from ... import selectors
from ...models import Conversation
from ...services import feedback, suggestions
from ..serializers.agents import AgentMemoryEditSerializer, AgentMemorySerializer
from .agents import _AgentScoped, actor_for

RATING_HELP = "Must be 1 (thumbs up) or -1 (thumbs down): send the JSON number 1 or -1"


@extend_schema_field({"type": "integer", "enum": list(feedback.RATINGS)})
class RatingField(serializers.Field):
    """The JSON number 1 or -1 and nothing else: not the string "1", not true, not 1.0, not null (issue 26:
    a choice field compared the text of the value, so "1" passed)."""

    def __init__(self, **kwargs):
        messages = {
            "invalid": RATING_HELP + ", not {input}.",
            "required": RATING_HELP + ".",
            "null": RATING_HELP + ", not null.",
        }
        super().__init__(error_messages=messages, **kwargs)

    def to_internal_value(self, data):
        if type(data) is not int or data not in feedback.RATINGS:
            self.fail("invalid", input=json.dumps(data)[:40])
        return data

    def to_representation(self, value):
        return value


class FeedbackSerializer(serializers.Serializer):
    rating = RatingField()
    comment = serializers.CharField(
        max_length=feedback.COMMENT_MAX_CHARS, required=False, allow_blank=True, default=""
    )


class DismissSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=suggestions.REASON_MAX_CHARS, trim_whitespace=True)


def feedback_payload(record) -> dict:
    return {
        "id": record.pk,
        "kind": "conversation" if isinstance(record, Conversation) else "run",
        "agent_id": record.agent_id,
        "feedback_rating": record.feedback_rating,
        "feedback_comment": record.feedback_comment,
        "feedback_at": record.feedback_at,
        "history": [
            {"rating": h.rating, "comment": h.comment, "rated_at": h.rated_at, "actor": h.actor}
            for h in selectors.feedback_history(record)
        ],
    }


def _rate(request, record, service) -> Response:
    data = FeedbackSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    updated = service(
        record,
        rating=data.validated_data["rating"],
        comment=data.validated_data["comment"],
        actor=actor_for(request),
    )
    return Response(feedback_payload(updated))


class ConversationFeedbackView(TenantAPIView):
    """POST {"rating": 1 | -1, "comment": "..."}: rate the conversation (feedbackAt stamped by the server)."""

    url_parents = {"pk": "conversation"}

    @extend_schema(request=FeedbackSerializer, responses={200: None})
    def post(self, request, conversation):
        return _rate(
            request, conversation, lambda r, **kw: feedback.conversation_feedback_set(conversation=r, **kw)
        )


class RunFeedbackView(TenantAPIView):
    """POST {"rating": 1 | -1, "comment": "..."}: rate the agent run."""

    url_parents = {"pk": "run"}

    @extend_schema(request=FeedbackSerializer, responses={200: None})
    def post(self, request, run):
        return _rate(request, run, lambda r, **kw: feedback.run_feedback_set(run=r, **kw))


class SuggestionListView(_AgentScoped):
    """GET: the agent's suggestions waiting for review (source suggested, status draft), newest first."""

    @extend_schema(
        responses=page_of(AgentMemorySerializer, name="SuggestionPage", offset=False),
        operation_id="v1_agents_suggestions_list",
    )
    def get(self, request, agent):
        page = selectors.suggestion_queue(agent)
        return Response({"count": page.total, "results": AgentMemorySerializer(page.items, many=True).data})


class SuggestionActivateView(_AgentScoped):
    """POST {} or edits ({"content": ...} and/or category, strength, provider, campaign_ids, tags): the
    suggestion becomes active, its source stays "suggested"; edited content passes the gate again."""

    @extend_schema(request=AgentMemoryEditSerializer, responses=AgentMemorySerializer)
    def post(self, request, agent, pk: int):
        data = AgentMemoryEditSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        record = suggestions.suggestion_activate(
            agent=agent, memory_id=pk, actor=actor_for(request), **data.validated_data
        )
        return Response(AgentMemorySerializer(record).data)


class SuggestionDismissView(_AgentScoped):
    """POST {"reason": "..."}: the suggestion is archived; neither it nor a near duplicate is proposed again."""

    @extend_schema(request=DismissSerializer, responses={200: None})
    def post(self, request, agent, pk: int):
        data = DismissSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        dismissal = suggestions.suggestion_dismiss(
            agent=agent, memory_id=pk, reason=data.validated_data["reason"], actor=actor_for(request)
        )
        return Response(
            {"memory_id": dismissal.memory_id, "status": "archived", "reason": dismissal.reason},
            status=status.HTTP_200_OK,
        )
