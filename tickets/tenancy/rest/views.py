"""REST for the tenant itself, its API keys and its members (admins only for keys and members)."""

from django.utils.cache import add_never_cache_headers
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.viewsets import GenericViewSet

from .. import services
from ..drf import TenantAPIView, TenantScopedMixin
from ..models import ApiKey, Membership, Role
from .serializers import (
    ApiKeyCreatedSerializer,
    ApiKeySerializer,
    MembershipSerializer,
    TenantSerializer,
)


class CurrentTenantView(TenantAPIView):
    """The tenant this key or session acts in, and the caller's role there."""

    @extend_schema(responses=TenantSerializer)
    def get(self, request):
        return Response(TenantSerializer(self.tenant, context={"role": request.role}).data)


class ApiKeyViewSet(
    TenantScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    GenericViewSet,
):
    """Admins list, create and revoke the tenant's keys. The full key is in the create response only."""

    queryset = ApiKey.objects.select_related("created_by")
    serializer_class = ApiKeySerializer
    read_role = Role.ADMIN
    write_role = Role.ADMIN
    filterset_fields = ["role"]

    @extend_schema(request=ApiKeySerializer, responses={201: ApiKeyCreatedSerializer})
    def create(self, request, *args, **kwargs):
        serializer = ApiKeySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = request.user if getattr(request.user, "pk", None) else None
        key, full_key = services.api_key_create(
            tenant=self.tenant,
            name=serializer.validated_data["name"],
            role=serializer.validated_data.get("role", Role.OPERATOR),
            created_by=user,
        )
        key.key = full_key
        response = Response(ApiKeyCreatedSerializer(key).data, status=status.HTTP_201_CREATED)
        add_never_cache_headers(response)  # it carries the secret: no cache or proxy may keep it
        return response

    @extend_schema(request=None, responses=ApiKeySerializer)
    @action(detail=True, methods=["post"])
    def revoke(self, request, pk=None):
        key = services.api_key_revoke(key=self.get_object())
        return Response(ApiKeySerializer(key).data)


class MembershipViewSet(
    TenantScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    GenericViewSet,
):
    """Admins change members' roles and remove them. People join only by accepting an invitation (the Members
    page), never by being added: there is no create."""

    queryset = Membership.objects.select_related("user")
    serializer_class = MembershipSerializer
    read_role = Role.ADMIN
    write_role = Role.ADMIN
    filterset_fields = ["role"]

    def perform_update(self, serializer):
        services.membership_set(
            tenant=self.tenant, user=serializer.instance.user, role=serializer.validated_data["role"]
        )

    def destroy(self, request, *args, **kwargs):
        services.membership_remove(membership=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    def update(self, request, *args, **kwargs):
        # A body that is not a JSON object (null, a number, a list) has no role to read: the same 400.
        if not isinstance(request.data, dict) or "role" not in request.data:
            raise ValidationError({"role": ["Send the new role: admin, operator or viewer."]})
        return super().update(request, *args, **kwargs)
