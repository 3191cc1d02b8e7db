from django.urls import path
from rest_framework.routers import SimpleRouter

from . import helpdesk_api

router = SimpleRouter(trailing_slash=False)
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
    *ticket_children,
    *router.urls,
]
