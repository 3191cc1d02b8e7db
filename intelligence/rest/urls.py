from django.urls import path
from rest_framework.routers import SimpleRouter

from .views import agents, feedback, runs

router = SimpleRouter(trailing_slash=False)
router.register("agents", agents.AgentViewSet, basename="agent")

urlpatterns = [
    *router.urls,
    path("agents/<int:agent_pk>/context", agents.AgentContextView.as_view(), name="agent-context"),
    path("agents/<int:agent_pk>/memories", agents.AgentMemoryListView.as_view(), name="agent-memory-list"),
    path(
        "agents/<int:agent_pk>/memories/<int:pk>",
        agents.AgentMemoryDetailView.as_view(),
        name="agent-memory-detail",
    ),
    path(
        "agents/<int:agent_pk>/memories/<int:pk>/status",
        agents.AgentMemoryStatusView.as_view(),
        name="agent-memory-status",
    ),
    path(
        "agents/<int:agent_pk>/memories/<int:pk>/promote",
        agents.AgentNotePromoteView.as_view(),
        name="agent-memory-promote",
    ),
    path(
        "agents/<int:agent_pk>/memories/<int:pk>/supersede",
        agents.AgentMemorySupersedeView.as_view(),
        name="agent-memory-supersede",
    ),
    # Feedback and suggestions (intelligence/rest/views/feedback.py).
    path(
        "conversations/<int:pk>/feedback",
        feedback.ConversationFeedbackView.as_view(),
        name="conversation-feedback",
    ),
    path("runs/<int:pk>/feedback", feedback.RunFeedbackView.as_view(), name="run-feedback"),
    path(
        "agents/<int:agent_pk>/suggestions",
        feedback.SuggestionListView.as_view(),
        name="agent-suggestion-list",
    ),
    path(
        "agents/<int:agent_pk>/suggestions/<int:pk>/activate",
        feedback.SuggestionActivateView.as_view(),
        name="agent-suggestion-activate",
    ),
    path(
        "agents/<int:agent_pk>/suggestions/<int:pk>/dismiss",
        feedback.SuggestionDismissView.as_view(),
        name="agent-suggestion-dismiss",
    ),
    # Conversations and runs as records, proposed actions, outcomes, verdicts (intelligence/rest/views/runs.py).
    path(
        "conversations/<int:conversation_pk>/messages",
        runs.ConversationMessagesView.as_view(),
        name="conversation-messages",
    ),
    path("runs/<int:run_pk>", runs.RunDetailView.as_view(), name="run-detail"),
    path("runs/<int:run_pk>/response", runs.RunResponseView.as_view(), name="run-response"),
    path("runs/<int:run_pk>/outcome", runs.RunOutcomeView.as_view(), name="run-outcome"),
    path(
        "runs/<int:run_pk>/actions/<int:pk>/approve",
        runs.ActionApproveView.as_view(),
        name="run-action-approve",
    ),
    path(
        "runs/<int:run_pk>/actions/<int:pk>/reject",
        runs.ActionRejectView.as_view(),
        name="run-action-reject",
    ),
    path("verdicts", runs.VerdictView.as_view(), name="verdicts"),
]
