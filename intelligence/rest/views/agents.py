"""REST for agents, their memories and the runtime context (all on tickets/tenancy/drf: tenant from the key).

Agent memories live in `brain`; these views reach them only through `brain.api` (dataclasses) and
`intelligence.services` (which writes through promote() and brain's memory services).
"""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.response import Response
from rest_framework.viewsets import GenericViewSet

from brain import api as brain_api
from config.rest import PAGE_PARAMETERS, gate_rejected_response, page_bounds
from config.schema import ErrorSerializer, page_of
from tickets.tenancy import replicas
from tickets.tenancy.drf import TenantAPIView, TenantScopedMixin
from tickets.tenancy.models import ApiKey

from ... import services
from ...models import Agent
from ...runtime import OMITTED_DETAIL_LIMIT
from ...services import runs
from ..serializers.agents import (
    AgentMemoryEditSerializer,
    AgentMemoryFilterSerializer,
    AgentMemorySerializer,
    AgentMemoryStatusSerializer,
    AgentMemorySupersedeSerializer,
    AgentMemoryWriteSerializer,
    AgentSerializer,
    NotePromoteSerializer,
)
from ..serializers.runs import RuntimeContextRequestSerializer, RuntimeContextResponseSerializer


def actor_for(request) -> str:
    if isinstance(request.auth, ApiKey):
        return f"api-key:{request.auth.prefix}"
    return f"user:{request.user.pk}"


# A name another agent of the tenant has is a conflict with what is stored: 409 (AgentNameTaken).
_NAMED = {409: ErrorSerializer}


@extend_schema_view(
    create=extend_schema(responses={201: AgentSerializer, **_NAMED}),
    update=extend_schema(responses={200: AgentSerializer, **_NAMED}),
    partial_update=extend_schema(responses={200: AgentSerializer, **_NAMED}),
)
class AgentViewSet(
    TenantScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    GenericViewSet,
):
    """The tenant's agents, with their learning config (spec defaults filled) and budget overrides. The list
    filters on `kind` and on an exact `name` (how a script finds an agent it knows by name)."""

    queryset = Agent.objects.all()
    serializer_class = AgentSerializer
    filterset_fields = ["kind", "name"]

    def perform_create(self, serializer):
        serializer.instance = services.agent_create(tenant=self.tenant, **serializer.validated_data)

    def perform_update(self, serializer):
        services.agent_update(agent=serializer.instance, **serializer.validated_data)


class _AgentScoped(TenantAPIView):
    """The URL's agent is resolved by the tenancy base before the handler runs (one statement:
    `selectors.agent_for_tenant`, registered in IntelligenceConfig.ready()); handlers get `agent`. A memory's
    text is `content` here, so a formation gate refusal names that field (brain/rest/errors.py)."""

    url_parents = {"agent_pk": "agent"}
    gate_rejected_field = "content"

    def get_record(self, agent: Agent, memory_pk: int, *, editable: bool = True):
        """The agent's memory, an operator's or (to read) a note the agent wrote; a note to change is a 409."""
        record = brain_api.agent_memory_get(
            tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_pk, written_by="any"
        )
        if record is None:
            raise Http404
        if editable and record.written_by == "agent":
            raise services.NoteKeptAsWritten(record.id)
        return record


def _outcome_response(agent: Agent, outcome, *, created_status: int = status.HTTP_201_CREATED) -> Response:
    if not outcome.written:
        return gate_rejected_response(outcome.reason, _AgentScoped.gate_rejected_field)
    # A duplicate reinforces the memory it repeats: the answer shows that memory (never `memory: null`).
    memory_id = outcome.memory_id or outcome.related_memory_id
    record = brain_api.agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id)
    return Response(
        {
            "result": outcome.result,
            "reason": outcome.reason,
            "related_memory_id": outcome.related_memory_id,
            "memory": AgentMemorySerializer(record).data if record else None,
        },
        status=created_status if outcome.result in ("added", "superseded") else status.HTTP_200_OK,
    )


class AgentMemoryListView(_AgentScoped):
    """GET: the agent's memories, filtered and paginated. POST: add one (through promote's gate)."""

    @extend_schema(
        parameters=[AgentMemoryFilterSerializer, *PAGE_PARAMETERS],
        responses=page_of(AgentMemorySerializer, name="AgentMemoryPage"),
        operation_id="v1_agents_memories_list",
    )
    def get(self, request, agent: Agent):
        params = AgentMemoryFilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        limit, offset = page_bounds(request.query_params, default_limit=25)
        page = brain_api.agent_memory_list(
            tenant_id=agent.tenant_id, agent_id=agent.pk, limit=limit, offset=offset, **params.validated_data
        )
        return Response(
            {
                "count": page.total,
                "offset": page.offset,
                "limit": page.limit,
                "results": AgentMemorySerializer(page.items, many=True).data,
            }
        )

    @extend_schema(
        request=AgentMemoryWriteSerializer,
        responses={
            201: OpenApiResponse(description="added"),
            200: OpenApiResponse(description="reinforced an existing memory"),
            422: ErrorSerializer,
        },
    )
    def post(self, request, agent: Agent):
        data = AgentMemoryWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        outcome = services.agent_memory_add(agent=agent, actor=actor_for(request), **data.validated_data)
        return _outcome_response(agent, outcome)


class AgentMemoryDetailView(_AgentScoped):
    """GET one memory with its supersede chain: an operator memory, or a note the agent wrote itself (memory-
    append, chat-mine; `written_by` "agent", its chain itself alone). PATCH an operator memory's content,
    taxonomy or scope; a note is kept as written (409: promote it instead)."""

    @extend_schema(responses=AgentMemorySerializer)
    def get(self, request, agent: Agent, pk: int):
        record = self.get_record(agent, pk, editable=False)
        if record.written_by == "agent":
            return Response({**AgentMemorySerializer(record).data, "chain": [record.id]})
        chain = brain_api.agent_memory_chain(
            tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=record.id
        )
        return Response({**AgentMemorySerializer(record).data, "chain": [m.id for m in chain]})

    @extend_schema(
        request=AgentMemoryEditSerializer,
        responses={200: AgentMemorySerializer, 409: ErrorSerializer, 422: ErrorSerializer},
    )
    def patch(self, request, agent: Agent, pk: int):
        record = self.get_record(agent, pk)
        data = AgentMemoryEditSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        services.agent_memory_edit(
            agent=agent, memory_id=record.id, actor=actor_for(request), **data.validated_data
        )
        return Response(AgentMemorySerializer(self.get_record(agent, record.id)).data)


class AgentMemoryStatusView(_AgentScoped):
    """POST {"status": "active" | "stale" | "archived" | "draft"}; a superseded memory keeps its status (409)."""

    @extend_schema(
        request=AgentMemoryStatusSerializer, responses={200: AgentMemorySerializer, 409: ErrorSerializer}
    )
    def post(self, request, agent: Agent, pk: int):
        record = self.get_record(agent, pk)
        data = AgentMemoryStatusSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.agent_memory_set_status(
            agent=agent, memory_id=record.id, actor=actor_for(request), **data.validated_data
        )
        return Response(AgentMemorySerializer(self.get_record(agent, record.id)).data)


class AgentMemorySupersedeView(_AgentScoped):
    """POST {"content": ...}: a newer memory replaces this one (same taxonomy and scope unless given)."""

    @extend_schema(
        request=AgentMemorySupersedeSerializer,
        responses={201: OpenApiResponse(description="superseded"), 409: ErrorSerializer},
    )
    def post(self, request, agent: Agent, pk: int):
        record = self.get_record(agent, pk)
        data = AgentMemorySupersedeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        outcome = services.agent_memory_supersede(
            agent=agent, memory_id=record.id, actor=actor_for(request), **data.validated_data
        )
        return _outcome_response(agent, outcome)


class AgentNotePromoteView(_AgentScoped):
    """POST {"category", "strength": "preference" | "hard_rule", "status", "content"}: a note the agent wrote
    itself becomes an operator memory (through the gate; `derived_from` the note, whose history records it).
    201 with the new memory; 200 when an operator memory already says it (reinforced); 422 when the gate
    refuses it; 404 when the memory is not a note of this agent."""

    @extend_schema(
        request=NotePromoteSerializer,
        responses={
            201: OpenApiResponse(description="promoted: the new operator memory"),
            200: OpenApiResponse(description="an operator memory already said it: reinforced"),
            422: ErrorSerializer,
        },
    )
    def post(self, request, agent: Agent, pk: int):
        note = brain_api.agent_memory_get(
            tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=pk, written_by="agent"
        )
        if note is None:
            raise Http404
        data = NotePromoteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = {"text": note.text, **data.validated_data}
        outcome = services.agent_note_promote(
            agent=agent, note_id=note.id, actor=actor_for(request), **values
        )
        return _outcome_response(agent, outcome)


def context_response(assembly, inactive: dict[str, int], trace) -> dict:
    sections = []
    for s in assembly.sections:
        data = s.as_dict()
        data["tags"] = [f"[mem:{i}]" for i in s.memory_ids]
        sections.append(data)
    omitted = [o.as_dict() for o in assembly.omitted[:OMITTED_DETAIL_LIMIT]]
    return {
        "trace_id": trace.pk,
        "agent_id": trace.agent_id,
        "sections": sections,
        "chars": {**{s.name: s.chars for s in assembly.sections}, "total": assembly.total_chars},
        "budget": assembly.budget.as_dict(),
        "injected_memory_ids": assembly.injected_memory_ids,
        "omitted": omitted,
        "omitted_counts": assembly.omitted_counts,
        "omitted_truncated": len(assembly.omitted) > OMITTED_DETAIL_LIMIT,
        # Memories of the agent that were not candidates at all, per status (only active ones are injected).
        "not_active_counts": inactive,
        # The agent's own notes that match the conversation: never injected; searched on demand.
        "notes_matching": assembly.notes_matching,
        "prompt": assembly.prompt(),
    }


class AgentContextView(_AgentScoped):
    """POST: what the agent's prompt gets for this conversation, within budget, with a stored trace id; opens
    or continues the caller's conversation (knowledge agents) or run (action agents) and returns its id."""

    @extend_schema(
        request=RuntimeContextRequestSerializer,
        # 409: a run_id for a knowledge agent, a conversation_id for an action agent (RecordOfOtherKind).
        responses={200: RuntimeContextResponseSerializer, 409: ErrorSerializer},
    )
    def post(self, request, agent: Agent):
        data = RuntimeContextRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        keys = {"conversation_id": values.pop("conversation_id"), "run_id": values.pop("run_id")}
        assembly, inactive, trace, record = runs.agent_context_open(
            agent=agent, request=services.ContextRequest(**values), **keys
        )
        data = {**context_response(assembly, inactive, trace), record.kind: record.as_dict()}
        return Response(data, headers=replicas.reads_header())  # with read replicas: where its reads went
