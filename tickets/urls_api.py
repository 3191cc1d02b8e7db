from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api, helpdesk_api

router = SimpleRouter(trailing_slash=False)
router.register("api-keys", api.ApiKeyViewSet, basename="api-key")
router.register("members", api.MembershipViewSet, basename="member")
router.register("tickets", helpdesk_api.TicketViewSet, basename="ticket")
router.register("learning-attempts", helpdesk_api.LearningAttemptViewSet, basename="learning-attempt")

ticket_children = [
    path(
        "tickets/<str:external_id>/messages",
        helpdesk_api.TicketMessagesView.as_view(),
        name="ticket-messages",
    ),
    path(
        "tickets/<str:external_id>/classifications",
        helpdesk_api.TicketClassificationsView.as_view(),
        name="ticket-classifications",
    ),
    path(
        "tickets/<str:external_id>/approvals",
        helpdesk_api.TicketApprovalsView.as_view(),
        name="ticket-approvals",
    ),
]

urlpatterns = [
    path("tenant", api.CurrentTenantView.as_view(), name="current-tenant"),
    *ticket_children,
    *router.urls,
]
