from django.urls import path

from . import views

urlpatterns = [
    path("tenant/webhooks/", views.WebhooksView.as_view(), name="tenant-webhooks"),
    path(
        "tenant/webhooks/<int:pk>/deactivate/",
        views.WebhookDeactivateView.as_view(),
        name="tenant-webhook-deactivate",
    ),
]
