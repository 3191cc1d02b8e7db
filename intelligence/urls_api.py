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

# Conversations and runs as records, proposed actions, outcomes, verdicts (intelligence/runs_api.py).
from . import runs_api  # noqa: E402

urlpatterns += [
    path(
        "conversations/<int:conversation_pk>/messages",
        runs_api.ConversationMessagesView.as_view(),
        name="conversation-messages",
    ),
    path("runs/<int:run_pk>", runs_api.RunDetailView.as_view(), name="run-detail"),
    path("runs/<int:run_pk>/response", runs_api.RunResponseView.as_view(), name="run-response"),
    path("runs/<int:run_pk>/outcome", runs_api.RunOutcomeView.as_view(), name="run-outcome"),
    path(
        "runs/<int:run_pk>/actions/<int:pk>/approve",
        runs_api.ActionApproveView.as_view(),
        name="run-action-approve",
    ),
    path(
        "runs/<int:run_pk>/actions/<int:pk>/reject",
        runs_api.ActionRejectView.as_view(),
        name="run-action-reject",
    ),
    path("verdicts", runs_api.VerdictView.as_view(), name="verdicts"),
]
