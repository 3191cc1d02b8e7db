from django.urls import path

from . import views

urlpatterns = [
    path(
        "insights/analytics/client-brain/",
        views.ClientBrainDashboardView.as_view(),
        name="client-brain-dashboard",
    ),
]
