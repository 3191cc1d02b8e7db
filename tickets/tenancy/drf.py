"""The one DRF base for tenant-owned resources (PostHog's TeamAndOrgViewSetMixin, Zulip's access_*).

Every queryset is built from the authenticated tenant; a subclass cannot override `get_queryset` (it
refines with `refine_queryset`, and the tenant filter is applied after the refinement). Another
tenant's object is therefore simply not found: 404, exactly like a missing one.
"""

from rest_framework import generics, views, viewsets

from .permissions import TenantRolePermission


class TenantScopedMixin:
    permission_classes = [TenantRolePermission]
    tenant_field = "tenant"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "get_queryset" in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} overrides get_queryset; refine with refine_queryset() so the tenant filter stays."
            )
        if (
            "permission_classes" in cls.__dict__
            and TenantRolePermission not in cls.__dict__["permission_classes"]
        ):
            raise TypeError(f"{cls.__name__} drops TenantRolePermission; add to it instead of replacing it.")

    @property
    def tenant(self):
        return self.request.tenant

    def refine_queryset(self, queryset):
        return queryset

    def get_queryset(self):
        queryset = self.refine_queryset(self.queryset.all())
        return queryset.filter(**{f"{self.tenant_field}_id": self.request.tenant.pk})

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["tenant"] = getattr(self.request, "tenant", None)
        return context

    def perform_create(self, serializer):
        serializer.save(**{self.tenant_field: self.request.tenant})


class TenantAPIView(TenantScopedMixin, views.APIView):
    """A non-model endpoint acting inside the caller's tenant (search, ask, context...)."""


class TenantGenericAPIView(TenantScopedMixin, generics.GenericAPIView):
    pass


class TenantModelViewSet(TenantScopedMixin, viewsets.ModelViewSet):
    pass


class TenantReadOnlyViewSet(TenantScopedMixin, viewsets.ReadOnlyModelViewSet):
    pass
