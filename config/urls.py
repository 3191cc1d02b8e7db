from django.contrib import admin
from django.http import HttpResponse
from django.urls import include, path
from django.views.decorators.cache import cache_control
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from .health import healthz

admin.site.site_header = "The Brain administration"
admin.site.site_title = "The Brain administration"
admin.site.index_title = "Tenants, memories and learning"
# No app list down the side of every page (the index and the breadcrumbs lead everywhere): it took 300 px from
# the changelists, whose columns then scrolled inside a box at 1280 px (issue 28, item 8).
admin.site.enable_nav_sidebar = False

FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#3b5bdb"/></svg>'


@cache_control(max_age=86400, public=True)
def favicon(request):
    """The browser's /favicon.ico (the admin's pages name none): the product's dot, not a 404 in every console."""
    return HttpResponse(FAVICON, content_type="image/svg+xml")


api_v1 = [
    path("", include("tickets.tenancy.rest.urls")),
    path("", include("tickets.rest.urls")),
    path("", include("brain.rest.urls")),
    path("", include("intelligence.rest.urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("", include("brain.ui.urls")),
    path("", include("tickets.ui.urls")),
    path("", include("intelligence.ui.urls")),
    path("", include("tickets.tenancy.ui.urls")),
    path("", include("tickets.webhooks.ui.urls")),
]

handler404 = "config.rest.not_found"  # JSON under /api/, the page elsewhere
