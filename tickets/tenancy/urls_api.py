from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api

router = SimpleRouter(trailing_slash=False)
router.register("api-keys", api.ApiKeyViewSet, basename="api-key")
router.register("members", api.MembershipViewSet, basename="member")

urlpatterns = [
    path("tenant", api.CurrentTenantView.as_view(), name="current-tenant"),
    *router.urls,
]
