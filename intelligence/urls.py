from django.urls import path

from . import feedback_views, views

urlpatterns = [
    path("agents/", views.AgentListView.as_view(), name="intelligence-agents"),
    path("agents/<int:pk>/", views.IntelligenceTabView.as_view(), name="intelligence-tab"),
    path("agents/<int:pk>/memories/add/", views.AgentMemoryAddView.as_view(), name="intelligence-memory-add"),
    path(
        "agents/<int:pk>/memories/<int:memory_id>/",
        views.AgentMemoryDetailView.as_view(),
        name="intelligence-memory",
    ),
    path(
        "agents/<int:pk>/memories/<int:memory_id>/edit/",
        views.AgentMemoryEditView.as_view(),
        name="intelligence-memory-edit",
    ),
    path(
        "agents/<int:pk>/memories/<int:memory_id>/status/",
        views.AgentMemoryStatusView.as_view(),
        name="intelligence-memory-status",
    ),
    path(
        "agents/<int:pk>/memories/<int:memory_id>/supersede/",
        views.AgentMemorySupersedeView.as_view(),
        name="intelligence-memory-supersede",
    ),
    path("agents/<int:pk>/learning/", views.AgentLearningView.as_view(), name="intelligence-learning"),
    path("agents/<int:pk>/budget/", views.AgentBudgetView.as_view(), name="intelligence-budget"),
    path("agents/<int:pk>/preview/", views.BudgetPreviewView.as_view(), name="intelligence-preview"),
    path("agents/<int:pk>/traces/", views.AgentTracesView.as_view(), name="intelligence-traces"),
    # Feedback and suggestions (intelligence/feedback_views.py).
    path(
        "agents/<int:pk>/conversations/",
        feedback_views.ConversationsView.as_view(),
        name="intelligence-conversations",
    ),
    path(
        "agents/<int:pk>/conversations/<int:record_id>/feedback/",
        feedback_views.ConversationRateView.as_view(),
        name="intelligence-conversation-feedback",
    ),
    path(
        "agents/<int:pk>/runs/<int:record_id>/feedback/",
        feedback_views.RunRateView.as_view(),
        name="intelligence-run-feedback",
    ),
    path(
        "agents/<int:pk>/suggestions/",
        feedback_views.SuggestionsView.as_view(),
        name="intelligence-suggestions",
    ),
    path(
        "agents/<int:pk>/suggestions/<int:memory_id>/activate/",
        feedback_views.SuggestionActivateView.as_view(),
        name="intelligence-suggestion-activate",
    ),
    path(
        "agents/<int:pk>/suggestions/<int:memory_id>/dismiss/",
        feedback_views.SuggestionDismissView.as_view(),
        name="intelligence-suggestion-dismiss",
    ),
]

# The Runs page of an action agent (intelligence/runs_views.py).
from . import runs_views  # noqa: E402

urlpatterns += [
    path("agents/<int:pk>/runs/", runs_views.AgentRunsView.as_view(), name="intelligence-runs"),
    path(
        "agents/<int:pk>/runs/<int:run_id>/actions/<int:action_id>/decide/",
        runs_views.ProposedActionDecideView.as_view(),
        name="intelligence-run-action-decide",
    ),
]
