"""The one DRF base for tenant-owned resources (PostHog's TeamAndOrgViewSetMixin, Sentry's convert_args).

Before any handler runs, `initial()` resolves, in this order:
1. the caller (authentication: an API key or a signed-in user);
2. the tenant and the caller's role there (`request.tenant`, `request.role`, `self.tenant`), from the key
   or the session, never from the URL or the body;
3. the role check (TenantRolePermission) and throttling;
4. the URL's parent objects: `url_parents = {"agent_pk": "agent"}` turns the URL's `agent_pk` into the
   tenant's agent, handed to the handler as its `agent` argument, or answers 404. A parent named in a
   body (memory-append's `agent_id`) goes through the same resolvers with `self.parent(name, value)`.

Parent resolvers are registered by name by the app that owns the model (`parents.register_parent()` in
its AppConfig.ready()), so this layer imports no app and an app can resolve another app's objects (brain
resolves agents) without importing it. A missing object and another tenant's give the same 404.

Every queryset is built from the tenant: a subclass cannot override `get_queryset`, `get_object`,
`get_permissions` or `get_authenticators` (it refines with `refine_queryset`; the tenant filter is
applied after the refinement). Another tenant's object is therefore simply not found: 404.
"""

from rest_framework import generics, views, viewsets

from .authentication import resolve_api_tenant
from .parents import parent_get
from .permissions import TenantRolePermission

SEALED_METHODS = ("get_queryset", "get_object", "get_permissions", "get_authenticators")


class TenantScopedMixin:
    permission_classes = [TenantRolePermission]
    # URL kwarg -> the handler's argument holding the parent object, by its registered name.
    url_parents: dict[str, str] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in SEALED_METHODS:
            if name in cls.__dict__:
                raise TypeError(
                    f"{cls.__name__} overrides {name}; the tenancy base owns it (refine with "
                    "refine_queryset(), name URL parents in url_parents) so the tenant filter stays."
                )
        if (
            "permission_classes" in cls.__dict__
            and TenantRolePermission not in cls.__dict__["permission_classes"]
        ):
            raise TypeError(f"{cls.__name__} drops TenantRolePermission; add to it instead of replacing it.")

    def initial(self, request, *args, **kwargs):
        self.perform_authentication(request)
        acting = resolve_api_tenant(request)
        request.tenant, request.role = acting.tenant, acting.role
        self.tenant = acting.tenant
        super().initial(request, *args, **kwargs)  # negotiation, versioning, role check, throttles
        # `self.kwargs` is the very dict dispatch() hands to the handler: converting it in place passes
        # the resolved parents as the handler's arguments (as Sentry's convert_args does).
        for url_kwarg, name in self.url_parents.items():
            self.kwargs[name] = parent_get(name, self.tenant, self.kwargs.pop(url_kwarg))

    def parent(self, name: str, value):
        """A parent the request names in its body (e.g. memory-append's agent_id): the tenant's, or 404."""
        return parent_get(name, self.tenant, value)

    def refine_queryset(self, queryset):
        return queryset

    def get_queryset(self):
        return self.refine_queryset(self.queryset.all()).for_tenant(self.tenant)

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["tenant"] = getattr(self.request, "tenant", None)
        return context

    def perform_create(self, serializer):
        serializer.save(tenant=self.tenant)


class TenantAPIView(TenantScopedMixin, views.APIView):
    """A non-model endpoint acting inside the caller's tenant (search, ask, context...)."""


class TenantGenericAPIView(TenantScopedMixin, generics.GenericAPIView):
    pass


class TenantModelViewSet(TenantScopedMixin, viewsets.ModelViewSet):
    pass
