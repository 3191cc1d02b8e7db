"""REST for conversations and runs as records: responses, proposed actions and their approval, outcomes, and
evaluator verdicts (issue 14, sections 1, 4 and 5). On the tenancy base: the tenant comes from the key or
the session, the URL's conversation / run is resolved in it before the handler runs (404 otherwise)."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from tickets.tenancy.drf import TenantAPIView

from ... import selectors
from ...models import AgentRun, Conversation, ProposedActionStatus
from ...services import runs
from ..serializers.runs import (
    ConversationMessageSerializer,
    DecisionSerializer,
    OutcomeSerializer,
    RunResponseSerializer,
    RunSerializer,
    VerdictRequestSerializer,
    verdict_result_data,
)
from .agents import actor_for


def run_data(run: AgentRun) -> dict:
    return RunSerializer(run, context={"actions": list(selectors.run_actions(run))}).data


class ConversationMessagesView(TenantAPIView):
    """POST {"text", "trace_id"?}: the agent's response for a turn (read later for `[mem:ID]` citations)."""

    url_parents = {"conversation_pk": "conversation"}

    @extend_schema(
        request=ConversationMessageSerializer, responses={201: OpenApiResponse(description="stored")}
    )
    def post(self, request, conversation: Conversation):
        data = ConversationMessageSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        turn = runs.conversation_message_add(conversation=conversation, **data.validated_data)
        return Response(
            {
                "conversation_id": conversation.pk,
                "turn_id": turn.pk,
                "trace_id": turn.context_trace_id,
                "responded_at": turn.responded_at,
            },
            status=status.HTTP_201_CREATED,
        )


class _RunScoped(TenantAPIView):
    url_parents = {"run_pk": "run"}


class RunDetailView(_RunScoped):
    """GET: the run, its response, outcome and proposed actions."""

    @extend_schema(responses=RunSerializer)
    def get(self, request, run: AgentRun):
        return Response(run_data(run))


class RunResponseView(_RunScoped):
    """POST {"text", "proposed_actions": [{"type", "payload", "recommendation"}]}: what the run answered."""

    @extend_schema(request=RunResponseSerializer, responses=RunSerializer)
    def post(self, request, run: AgentRun):
        data = RunResponseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = runs.run_response_record(run=run, **data.validated_data)
        return Response(run_data(run))


class RunOutcomeView(_RunScoped):
    """POST {"outcome": "success" | "failure"}: judged once the agent's evaluation delay has passed."""

    @extend_schema(request=OutcomeSerializer, responses=RunSerializer)
    def post(self, request, run: AgentRun):
        data = OutcomeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = runs.run_outcome_record(run=run, **data.validated_data)
        return Response(run_data(run))


class _ActionDecisionView(_RunScoped):
    decision: str = ""

    @extend_schema(request=DecisionSerializer, responses={200: OpenApiResponse(description="decided")})
    def post(self, request, run: AgentRun, pk: int):
        action = selectors.proposed_action_for_run(run, pk)
        if action is None:
            raise Http404
        data = DecisionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        runs.proposed_action_decide(
            action=action, decision=self.decision, actor=actor_for(request), **data.validated_data
        )
        return Response(run_data(run))


class ActionApproveView(_ActionDecisionView):
    """POST {"reason"?}: approve; the agent may learn a pattern from it (learn from approved actions)."""

    decision = ProposedActionStatus.APPROVED


class ActionRejectView(_ActionDecisionView):
    """POST {"reason"?}: reject; the agent may learn what to avoid (learn from rejected recommendations)."""

    decision = ProposedActionStatus.REJECTED


class VerdictView(TenantAPIView):
    """POST {"trace_id" | "run_id" | "conversation_id", "verdict": "pass" | "fail", "response_text",
    "verdict_key"?}: nudge the confidence of every memory injected there, by at most one delta per context
    trace and memory over every verdict on that trace, alone or through its run or conversation (brain/verdicts.py).
    201 when applied; a repeat of the same (record, verdict key) is 200 with `applied: false` and moves nothing."""

    @extend_schema(request=VerdictRequestSerializer, responses={201: OpenApiResponse(description="applied")})
    def post(self, request):
        data = VerdictRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        judged = {
            name: self.parent(name, values[f"{name}_id"])
            for name in ("trace", "run", "conversation")
            if values.get(f"{name}_id") is not None
        }
        result = runs.verdict_apply(
            tenant_id=self.tenant.pk,
            verdict=values["verdict"],
            actor=actor_for(request),
            response_text=values["response_text"],
            verdict_key=values["verdict_key"],
            **judged,
        )
        return Response(
            verdict_result_data(result),
            status=status.HTTP_201_CREATED if result.applied else status.HTTP_200_OK,
        )
