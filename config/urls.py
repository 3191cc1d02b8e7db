from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from .health import healthz

admin.site.site_header = "The Brain administration"
admin.site.site_title = "The Brain administration"
admin.site.index_title = "Tenants, memories and learning"

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
    path("", include("tickets.urls")),
    path("", include("intelligence.urls")),
    path("", include("tickets.tenancy.urls")),
]
