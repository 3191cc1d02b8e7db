from django.urls import path
from rest_framework.routers import SimpleRouter

from . import views

router = SimpleRouter(trailing_slash=False)
router.register("api-keys", views.ApiKeyViewSet, basename="api-key")
router.register("members", views.MembershipViewSet, basename="member")

urlpatterns = [
    path("tenant", views.CurrentTenantView.as_view(), name="current-tenant"),
    *router.urls,
]
