"""The write surfaces for agents (tenant API key): memory-append, lessons, chat-mine; and a memory's graph neighbours.

Every surface builds `MemoryCandidate`s and calls `promote()`: the same gate, judge and backstop for all.
A write answers 201, a reinforcement of an existing memory 200, and a gate rejection 422 with code
`rejected` (config.rest.gate_rejected_response, the rule of every write surface) and the outcome beside the
error; chat-mine, which writes many candidates, answers 422 only when the gate refused every one it mined.
The tenant comes from the key, never the body.
"""

from __future__ import annotations

import re
from dataclasses import asdict

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from brain.formation import promote
from brain.formation.miner import mine_conversation
from brain.graph import graph_neighbours
from brain.models import BrainScopeKind, Memory, MemorySource, MemoryStrength, MemoryType, WriteSurface
from brain.types import MemoryCandidate, PromoteOutcome
from config.rest import Pagination, gate_rejected_response
from config.schema import ErrorSerializer
from tickets.tenancy.drf import TenantAPIView, TenantGenericAPIView

from ..serializers.formation import (
    ChatMineResponseSerializer,
    ChatMineSerializer,
    GraphNeighbourSerializer,
    LessonSerializer,
    MemoryAppendSerializer,
    OutcomeResponseSerializer,
)

_FIELD = re.compile(r"\{\{\s*([A-Za-z_][\w.\-]*)\s*\}\}|\{\s*([A-Za-z_][\w.\-]*)\s*\}")


def render_lesson(template: str, values: dict[str, str]) -> str:
    """Fill `{field}` / `{{field}}` with `values`; a field without a value stays, for the gate to reject."""

    def fill(match: re.Match) -> str:
        name = match.group(1) or match.group(2)
        value = str(values.get(name, "") or "").strip()
        return value if value else match.group(0)

    return _FIELD.sub(fill, template)


def _actor(request) -> str:
    key = getattr(request, "auth", None)
    prefix = getattr(key, "prefix", None)
    if prefix:
        return f"api-key:{prefix}"
    return f"user:{request.user.pk}" if getattr(request.user, "pk", None) else "api"


def _outcome(outcome: PromoteOutcome, text: str | None = None) -> dict:
    data = {
        "result": outcome.result,
        "memory_id": outcome.memory_id,
        "reason": outcome.reason,
        "related_memory_id": outcome.related_memory_id,
    }
    if text is not None:
        data["text"] = text
    return data


def _status(outcomes: list[PromoteOutcome]) -> int:
    return (
        status.HTTP_201_CREATED
        if any(o.result in ("added", "superseded") for o in outcomes)
        else status.HTTP_200_OK
    )


def _provenance(run_id: str, **more: str) -> list[dict]:
    entries = [{"kind": "run", "id": run_id}] if run_id else []
    entries += [{"kind": kind, "id": ref} for kind, ref in more.items() if ref]
    return entries


class MemoryAppendView(TenantAPIView):
    """An agent's explicit "remember this": a note in the agent's own scope, deduplicated against its recent notes.

    `agent_id` must be an agent of the caller's tenant (resolved by the tenancy base's "agent" resolver,
    which intelligence registers: brain does not import intelligence); otherwise 404, nothing written.
    """

    @extend_schema(
        request=MemoryAppendSerializer,
        responses={200: OutcomeResponseSerializer, 201: OutcomeResponseSerializer, 422: ErrorSerializer},
    )
    def post(self, request):
        serializer = MemoryAppendSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        agent = self.parent("agent", data["agent_id"])
        outcome = promote(
            MemoryCandidate(
                tenant_id=self.tenant.pk,
                type=MemoryType.NOTE,
                text=data["text"],
                key=data["key"],
                surface=WriteSurface.MEMORY_APPEND,
                scope_kind=BrainScopeKind.AGENT,
                scope_id=str(agent.pk),
                strength=MemoryStrength.CONTEXT_NOTE,
                source=MemorySource.DERIVED,
                provenance=_provenance(data["run_id"]),
                actor=_actor(request),
                system_prompt=data["system_prompt"],
                injected_texts=data["injected_texts"],
                injected_memory_ids=data["injected_memory_ids"],
            )
        )
        if not outcome.written:
            return gate_rejected_response(outcome.reason, "text", outcome=_outcome(outcome))
        return Response({"outcome": _outcome(outcome)}, status=_status([outcome]))


class LessonView(TenantAPIView):
    """An App's learned outcome: its template filled with values, in the App's scope."""

    @extend_schema(
        request=LessonSerializer,
        responses={200: OutcomeResponseSerializer, 201: OutcomeResponseSerializer, 422: ErrorSerializer},
    )
    def post(self, request):
        serializer = LessonSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        text = render_lesson(data["template"], data["values"])
        outcome = promote(
            MemoryCandidate(
                tenant_id=self.tenant.pk,
                type=MemoryType.LESSON,
                text=text,
                key=data["key"],
                surface=WriteSurface.APP_LESSON,
                scope_kind=BrainScopeKind.APP,
                scope_id=data["app_id"],
                payload={"template": data["template"], "values": data["values"], "outcome": data["outcome"]},
                template=data["template"],
                provenance=_provenance(data["run_id"]),
                actor=_actor(request),
                system_prompt=data["system_prompt"],
                injected_texts=data["injected_texts"],
                injected_memory_ids=data["injected_memory_ids"],
            )
        )
        if not outcome.written:
            return gate_rejected_response(outcome.reason, "template", outcome=_outcome(outcome, text))
        return Response({"outcome": _outcome(outcome, text)}, status=_status([outcome]))


class ChatMineView(TenantAPIView):
    """Memories mined from a conversation transcript: the miner proposes, `promote()` decides each one.

    Mined memories belong to the agent's scope when `agent_id` is given (an agent of the caller's tenant,
    else 404), else to the conversation's.
    """

    @extend_schema(
        request=ChatMineSerializer,
        responses={200: ChatMineResponseSerializer, 201: ChatMineResponseSerializer, 422: ErrorSerializer},
    )
    def post(self, request):
        serializer = ChatMineSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        scope_kind, scope_id = (
            (BrainScopeKind.AGENT, str(self.parent("agent", data["agent_id"]).pk))
            if data["agent_id"]
            else (BrainScopeKind.CONVERSATION, data["conversation_id"])
        )
        mined, miner = mine_conversation(messages=data["messages"])
        outcomes = []
        for item in mined:
            outcome = promote(
                MemoryCandidate(
                    tenant_id=self.tenant.pk,
                    type=MemoryType.CHAT,
                    text=item.text,
                    key=item.key,
                    surface=WriteSurface.CHAT,
                    scope_kind=scope_kind,
                    scope_id=scope_id,
                    provenance=_provenance(data["run_id"], conversation=data["conversation_id"]),
                    actor=_actor(request),
                    system_prompt=data["system_prompt"],
                    injected_texts=data["injected_texts"],
                    injected_memory_ids=data["injected_memory_ids"],
                )
            )
            outcomes.append((outcome, item.text))
        body = {"miner": miner, "outcomes": [_outcome(o, t) for o, t in outcomes]}
        if outcomes and not any(o.written for o, _ in outcomes):
            return gate_rejected_response(outcomes[0][0].reason, "messages", **body)
        return Response(body, status=_status([o for o, _ in outcomes]))


class MemoryNeighboursView(TenantGenericAPIView):
    """A memory's direct BrainGraph relations (paginated). Another tenant's memory is a 404."""

    queryset = Memory.objects.all()
    pagination_class = Pagination
    serializer_class = GraphNeighbourSerializer

    @extend_schema(responses=GraphNeighbourSerializer(many=True))
    def get(self, request, pk: int):
        memory = self.get_object()
        neighbours = graph_neighbours(tenant_id=self.tenant.pk, memory_id=memory.pk, limit=1000)
        page = self.paginate_queryset([asdict(n) for n in neighbours])
        return self.get_paginated_response(GraphNeighbourSerializer(page, many=True).data)
