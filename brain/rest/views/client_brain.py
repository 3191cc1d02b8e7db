"""Client Brain over REST (/api/v1/client-brain/...), acting inside the caller's tenant only.

- POST context: the typed context for a ticket-agent run (initial or continuation).
- GET copilot?q=: Copilot's memory tool.
- GET memories, memories/{id}, stats: the dashboard's data, read-only and paginated; the list shows
  current rows unless `?status=` asks for superseded, archived or all rows, and each row says its status.
- Every mutation (POST/PUT/PATCH/DELETE on memories, reset) answers 405 saying it is suspended
  (DESIGN.md decision 10). A detail mutation first looks the row up in the caller's tenant, so another
  tenant's id is the same 404 as a missing one.
"""

from __future__ import annotations

from dataclasses import asdict

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.viewsets import GenericViewSet

from brain.activity import activity_count_expression, activity_drain
from brain.client_brain import typed
from brain.client_brain.copilot import client_brain_copilot
from brain.client_brain.dashboard import (
    CLIENT_BRAIN_ROW,
    OrderedRows,
    client_brain_stats,
    to_row,
)
from brain.client_brain.recall import client_brain_context
from brain.models import Memory
from config.rest import error_response
from config.schema import page_of
from tickets.tenancy.drf import TenantAPIView, TenantScopedMixin
from tickets.tenancy.models import Role

from ..serializers.client_brain import (
    ClientBrainContextRequestSerializer,
    ClientBrainContextResponseSerializer,
    ClientBrainCopilotMemorySerializer,
    ClientBrainMemoryListParamsSerializer,
    ClientBrainStatsSerializer,
    ClientBrainStoredMemorySerializer,
)

SUSPENDED = (
    "Client Brain mutation endpoints are suspended: memories cannot be created, edited, deleted or reset "
    "over the API. They are learned from eligible resolved tickets; use GET to read them."
)


FEATURES_SUSPENDED = {
    "prune": "Client Brain pruning is suspended: memories are not forgotten automatically, and no time "
    "window or decay applies.",
    "contribute": "Cross-tenant contribution is suspended while deterministic privacy, provenance, "
    "withdrawal and evidence controls are completed: a tenant's memories stay its own.",
    "bootstrap": "Global bootstrap is suspended while deterministic privacy, provenance, withdrawal and "
    "evidence controls are completed: a new tenant's Client Brain starts empty.",
}


def suspended(
    message: str = SUSPENDED, code: str = "mutation_suspended", allow: str = "GET, HEAD, OPTIONS"
) -> Response:
    response = error_response(code, message, status.HTTP_405_METHOD_NOT_ALLOWED)
    response["Allow"] = allow
    return response


class ClientBrainSuspendedFeatureView(TenantAPIView):
    """Pruning, cross-tenant contribution and global bootstrap: suspended, and saying so (decision 10)."""

    feature = ""

    @extend_schema(request=None, responses={405: None})
    def post(self, request):
        return suspended(FEATURES_SUSPENDED[self.feature], code="feature_suspended", allow="")


class ClientBrainContextView(TenantAPIView):
    """Typed Client Brain context for a ticket-agent run, with `[mem:ID]` tags, omitted counts and a trace."""

    # A read for the caller (POST only because the ticket text does not fit a query string); its one
    # side effect is the recorded-activity counter of the selected memories.
    write_role = Role.VIEWER

    @extend_schema(
        request=ClientBrainContextRequestSerializer, responses=ClientBrainContextResponseSerializer
    )
    def post(self, request):
        serializer = ClientBrainContextRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        params = dict(serializer.validated_data)
        ticket_id = params.pop("ticket_id", None)
        if ticket_id:
            # The ticket's text comes from the tickets app through the lookup it registered by name (brain
            # never imports tickets); a missing ticket and another tenant's answer the same 404.
            try:
                text = self.parent("ticket_recall_text", ticket_id)
            except Http404:
                raise NotFound(f"No ticket with id {ticket_id!r}.") from None
            params.update(text)
        brain_context = client_brain_context(tenant_id=self.tenant.pk, **params)
        data = brain_context.as_dict()
        data.pop("tenant_id")
        return Response(ClientBrainContextResponseSerializer(data).data)


class ClientBrainCopilotView(TenantAPIView):
    """Copilot's memory tool: at most 30 rows, confidence finite within 0–1."""

    @extend_schema(
        parameters=[OpenApiParameter("q", str, description="The operator's question or keywords.")],
        responses=page_of(ClientBrainCopilotMemorySerializer, name="ClientBrainCopilotPage", offset=False),
        operation_id="v1_client_brain_copilot_list",
    )
    def get(self, request):
        query = request.query_params.get("q", "")
        if len(query) > 1000:
            raise ValidationError({"q": "Keep the query under 1000 characters."})
        rows = client_brain_copilot(tenant_id=self.tenant.pk, query=query)
        data = [{**asdict(row), "tag": row.tag} for row in rows]
        return Response(
            {"count": len(data), "results": ClientBrainCopilotMemorySerializer(data, many=True).data}
        )


class ClientBrainMemoryViewSet(
    TenantScopedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, GenericViewSet
):
    """Stored Client Brain rows (the dashboard's data): read-only, paginated, `?status=` and `?type=`
    filters on the list (a row is retrieved by id whatever its status)."""

    queryset = Memory.objects.filter(CLIENT_BRAIN_ROW)
    serializer_class = ClientBrainStoredMemorySerializer

    def refine_queryset(self, queryset):
        # One row at a time (retrieve, and the lookups of the suspended mutations): no order to keep. Its
        # count is read after the tenant's recorded activity is drained, as the list's are.
        activity_drain(tenant_id=self.tenant.pk)
        return queryset.annotate(typed=typed.typed_condition(), activity_count=activity_count_expression())

    def _rows(self, memories):
        return [{**asdict(row), "legacy": row.legacy} for row in map(to_row, memories)]

    @extend_schema(
        parameters=[ClientBrainMemoryListParamsSerializer],
        responses=ClientBrainStoredMemorySerializer(many=True),
    )
    def list(self, request, *args, **kwargs):
        params = ClientBrainMemoryListParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        # The dashboard's own rows and order (dashboard_rows), counted from the tally: list and page agree.
        rows = OrderedRows(
            tenant_id=self.tenant.pk,
            status=params.validated_data["status"],
            family=params.validated_data.get("type") or None,
        )
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(
            ClientBrainStoredMemorySerializer(self._rows(page), many=True).data
        )

    def retrieve(self, request, *args, **kwargs):
        return Response(ClientBrainStoredMemorySerializer(self._rows([self.get_object()])[0]).data)

    @extend_schema(request=None, responses={405: None})
    def create(self, request, *args, **kwargs):
        return suspended()

    @extend_schema(request=None, responses={405: None})
    def update(self, request, *args, **kwargs):
        self.get_object()
        return suspended()

    @extend_schema(request=None, responses={405: None})
    def partial_update(self, request, *args, **kwargs):
        self.get_object()
        return suspended()

    @extend_schema(request=None, responses={405: None})
    def destroy(self, request, *args, **kwargs):
        self.get_object()
        return suspended()

    @extend_schema(request=None, responses={405: None})
    @action(detail=False, methods=["post", "delete"])
    def reset(self, request):
        return suspended()

    @extend_schema(responses=ClientBrainStatsSerializer)
    @action(detail=False, methods=["get"])
    def stats(self, request):
        return Response(ClientBrainStatsSerializer(asdict(client_brain_stats(tenant_id=self.tenant.pk))).data)
