from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api, feedback_api

router = SimpleRouter(trailing_slash=False)
router.register("agents", api.AgentViewSet, basename="agent")

urlpatterns = [
    *router.urls,
    path("agents/<int:agent_pk>/context", api.AgentContextView.as_view(), name="agent-context"),
    path("agents/<int:agent_pk>/memories", api.AgentMemoryListView.as_view(), name="agent-memory-list"),
    path(
        "agents/<int:agent_pk>/memories/<int:pk>",
        api.AgentMemoryDetailView.as_view(),
        name="agent-memory-detail",
    ),
    path(
        "agents/<int:agent_pk>/memories/<int:pk>/status",
        api.AgentMemoryStatusView.as_view(),
        name="agent-memory-status",
    ),
    path(
        "agents/<int:agent_pk>/memories/<int:pk>/supersede",
        api.AgentMemorySupersedeView.as_view(),
        name="agent-memory-supersede",
    ),
    # Feedback and suggestions (intelligence/feedback_api.py).
    path(
        "conversations/<int:pk>/feedback",
        feedback_api.ConversationFeedbackView.as_view(),
        name="conversation-feedback",
    ),
    path("runs/<int:pk>/feedback", feedback_api.RunFeedbackView.as_view(), name="run-feedback"),
    path(
        "agents/<int:agent_pk>/suggestions",
        feedback_api.SuggestionListView.as_view(),
        name="agent-suggestion-list",
    ),
    path(
        "agents/<int:agent_pk>/suggestions/<int:pk>/activate",
        feedback_api.SuggestionActivateView.as_view(),
        name="agent-suggestion-activate",
    ),
    path(
        "agents/<int:agent_pk>/suggestions/<int:pk>/dismiss",
        feedback_api.SuggestionDismissView.as_view(),
        name="agent-suggestion-dismiss",
    ),
]
