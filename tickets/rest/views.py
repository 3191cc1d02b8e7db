"""REST for the helpdesk integration: tickets by their helpdesk id, their messages, classifications and
approval evidence, status changes (which start learning), and the learning attempts that resulted.

Tickets are addressed by `external_id` (the helpdesk's id). `POST /tickets` is an upsert: sending the
same ticket again updates it (200) instead of creating a second one (201). Every queryset comes from the
tenant of the key or session (tickets.tenancy.drf), so another tenant's ticket is simply not found. Input
the services refuse (`TicketInputError`) is a 400 saying what to fix (tickets/rest/errors.py).
"""

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.viewsets import GenericViewSet

from .. import services
from ..models import Approval, Classification, LearningAttempt, Message, Ticket
from ..tenancy.drf import TenantGenericAPIView, TenantScopedMixin
from .serializers import (
    ApprovalSerializer,
    ClassificationSerializer,
    LearningAttemptSerializer,
    MessageSerializer,
    TicketSerializer,
    TicketStatusSerializer,
    TicketUpdateSerializer,
)


class TicketViewSet(
    TenantScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    GenericViewSet,
):
    """List, read, create-or-update (POST) and update (PUT/PATCH) the tenant's tickets."""

    queryset = Ticket.objects.all()
    serializer_class = TicketSerializer
    lookup_field = "external_id"
    lookup_value_regex = "[^/]+"
    filterset_fields = ["status"]

    @extend_schema(request=TicketSerializer, responses={200: TicketSerializer, 201: TicketSerializer})
    def create(self, request, *args, **kwargs):
        """Upsert by `external_id`: 201 when the ticket is new, 200 when it existed (and was updated)."""
        serializer = TicketSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        ticket, created = services.ticket_upsert(
            tenant=self.tenant,
            external_id=data["external_id"],
            subject=data.get("subject"),
            requester=data.get("requester"),
            status=data.get("status"),
        )
        return Response(
            TicketSerializer(ticket).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )

    def _update(self, request, partial: bool):
        ticket = self.get_object()
        serializer = TicketUpdateSerializer(ticket, data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        ticket, _ = services.ticket_upsert(
            tenant=self.tenant,
            external_id=ticket.external_id,
            subject=data.get("subject"),
            requester=data.get("requester"),
            status=data.get("status"),
        )
        return Response(TicketSerializer(ticket).data)

    @extend_schema(request=TicketUpdateSerializer, responses=TicketSerializer)
    def update(self, request, *args, **kwargs):
        return self._update(request, partial=False)

    @extend_schema(request=TicketUpdateSerializer, responses=TicketSerializer)
    def partial_update(self, request, *args, **kwargs):
        return self._update(request, partial=True)

    @extend_schema(request=TicketStatusSerializer, responses=TicketSerializer)
    @action(detail=True, methods=["post"], url_path="status", url_name="status")
    def change_status(self, request, external_id=None):
        """Change the status. Newly entering solved, closed or resolved starts a learning attempt."""
        ticket = self.get_object()
        serializer = TicketStatusSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        ticket = services.ticket_transition(ticket=ticket, status=serializer.validated_data["status"])
        return Response(TicketSerializer(ticket).data)


class _TicketChildView(mixins.ListModelMixin, TenantGenericAPIView):
    """A list of one ticket's rows (GET) and adding one (POST). The tenancy base resolves the URL's
    ticket before the handler runs; an unknown ticket (or another tenant's) is a 404."""

    url_parents = {"external_id": "ticket"}

    def refine_queryset(self, queryset):
        return queryset.filter(ticket=self.kwargs["ticket"])

    def get(self, request, *args, **kwargs):
        return self.list(request, *args, **kwargs)


class TicketMessagesView(_TicketChildView):
    """The ticket's messages, oldest first. Adding one with an `external_id` already seen returns it (200)."""

    queryset = Message.objects.order_by("sent_at", "id")
    serializer_class = MessageSerializer
    filterset_fields = ["direction", "is_note"]

    @extend_schema(request=MessageSerializer, responses={201: MessageSerializer, 200: MessageSerializer})
    def post(self, request, ticket, **kwargs):
        serializer = MessageSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        message, created = services.message_add(ticket=ticket, **serializer.validated_data)
        return Response(
            MessageSerializer(message).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


class TicketClassificationsView(_TicketChildView):
    """The ticket's classifications, latest first (the latest one is what learning reads)."""

    queryset = Classification.objects.order_by("-created_at", "-id")
    serializer_class = ClassificationSerializer

    @extend_schema(request=ClassificationSerializer, responses={201: ClassificationSerializer})
    def post(self, request, ticket, **kwargs):
        serializer = ClassificationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        classification = services.classification_add(ticket=ticket, **serializer.validated_data)
        return Response(ClassificationSerializer(classification).data, status=status.HTTP_201_CREATED)


class TicketApprovalsView(_TicketChildView):
    """The ticket's approval evidence: proposed actions, approved or rejected, by whom, when."""

    queryset = Approval.objects.order_by("-decided_at", "-id")
    serializer_class = ApprovalSerializer
    filterset_fields = ["decision", "kind"]

    @extend_schema(request=ApprovalSerializer, responses={201: ApprovalSerializer})
    def post(self, request, ticket, **kwargs):
        serializer = ApprovalSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        approval = services.approval_record(ticket=ticket, **serializer.validated_data)
        return Response(ApprovalSerializer(approval).data, status=status.HTTP_201_CREATED)


class LearningAttemptViewSet(
    TenantScopedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, GenericViewSet
):
    """Learning attempts, newest first: outcome, skip reason and what promote() did with each candidate."""

    queryset = LearningAttempt.objects.order_by("-created_at", "-id")
    serializer_class = LearningAttemptSerializer
    filterset_fields = ["status", "skip_reason", "trigger", "ticket_external_id"]
