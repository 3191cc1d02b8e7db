from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from .health import healthz

api_v1 = [
    path("", include("tickets.tenancy.urls_api")),
    path("", include("tickets.urls_api")),
    path("", include("brain.endpoints.urls")),
    path("", include("intelligence.urls_api")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("", include("brain.client_brain.urls")),
    path("", include("intelligence.urls")),
    path("", include("tickets.tenancy.urls")),
    path("", include("tickets.webhooks.urls")),
]
