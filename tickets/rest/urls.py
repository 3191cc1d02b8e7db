from django.urls import path
from rest_framework.routers import SimpleRouter

from . import views

router = SimpleRouter(trailing_slash=False)
router.register("tickets", views.TicketViewSet, basename="ticket")
router.register("learning-attempts", views.LearningAttemptViewSet, basename="learning-attempt")

ticket_children = [
    path(
        "tickets/<str:external_id>/messages",
        views.TicketMessagesView.as_view(),
        name="ticket-messages",
    ),
    path(
        "tickets/<str:external_id>/classifications",
        views.TicketClassificationsView.as_view(),
        name="ticket-classifications",
    ),
    path(
        "tickets/<str:external_id>/approvals",
        views.TicketApprovalsView.as_view(),
        name="ticket-approvals",
    ),
]

urlpatterns = [
    *ticket_children,
    *router.urls,
]
