from django.urls import path

from .views import agents, feedback, notes, runs

urlpatterns = [
    path("agents/", agents.AgentListView.as_view(), name="intelligence-agents"),
    path("agents/<int:pk>/", agents.IntelligenceTabView.as_view(), name="intelligence-tab"),
    path(
        "agents/<int:pk>/memories/add/", agents.AgentMemoryAddView.as_view(), name="intelligence-memory-add"
    ),
    path(
        "agents/<int:pk>/memories/<int:memory_id>/",
        agents.AgentMemoryDetailView.as_view(),
        name="intelligence-memory",
    ),
    path(
        "agents/<int:pk>/memories/<int:memory_id>/edit/",
        agents.AgentMemoryEditView.as_view(),
        name="intelligence-memory-edit",
    ),
    path(
        "agents/<int:pk>/memories/<int:memory_id>/status/",
        agents.AgentMemoryStatusView.as_view(),
        name="intelligence-memory-status",
    ),
    path(
        "agents/<int:pk>/memories/<int:memory_id>/supersede/",
        agents.AgentMemorySupersedeView.as_view(),
        name="intelligence-memory-supersede",
    ),
    # What the agent wrote itself (intelligence/ui/views/notes.py).
    path("agents/<int:pk>/notes/", notes.AgentNotesView.as_view(), name="intelligence-notes"),
    path("agents/<int:pk>/notes/<int:memory_id>/", notes.AgentNoteView.as_view(), name="intelligence-note"),
    path(
        "agents/<int:pk>/notes/<int:memory_id>/promote/",
        notes.AgentNotePromoteView.as_view(),
        name="intelligence-note-promote",
    ),
    path("agents/<int:pk>/learning/", agents.AgentLearningView.as_view(), name="intelligence-learning"),
    path("agents/<int:pk>/budget/", agents.AgentBudgetView.as_view(), name="intelligence-budget"),
    path("agents/<int:pk>/preview/", agents.BudgetPreviewView.as_view(), name="intelligence-preview"),
    path("agents/<int:pk>/traces/", agents.AgentTracesView.as_view(), name="intelligence-traces"),
    path(
        "agents/<int:pk>/traces/<int:trace_id>/", agents.TraceDetailView.as_view(), name="intelligence-trace"
    ),
    # Feedback and suggestions (intelligence/ui/views/feedback.py).
    path(
        "agents/<int:pk>/conversations/",
        feedback.ConversationsView.as_view(),
        name="intelligence-conversations",
    ),
    path(
        "agents/<int:pk>/conversations/<int:record_id>/",
        feedback.ConversationDetailView.as_view(),
        name="intelligence-conversation",
    ),
    path(
        "agents/<int:pk>/conversations/<int:record_id>/feedback/",
        feedback.ConversationRateView.as_view(),
        name="intelligence-conversation-feedback",
    ),
    path(
        "agents/<int:pk>/runs/<int:record_id>/feedback/",
        feedback.RunRateView.as_view(),
        name="intelligence-run-feedback",
    ),
    path(
        "agents/<int:pk>/suggestions/",
        feedback.SuggestionsView.as_view(),
        name="intelligence-suggestions",
    ),
    path(
        "agents/<int:pk>/suggestions/<int:memory_id>/activate/",
        feedback.SuggestionActivateView.as_view(),
        name="intelligence-suggestion-activate",
    ),
    path(
        "agents/<int:pk>/suggestions/<int:memory_id>/dismiss/",
        feedback.SuggestionDismissView.as_view(),
        name="intelligence-suggestion-dismiss",
    ),
    # The Runs page of an action agent (intelligence/ui/views/runs.py).
    path("agents/<int:pk>/runs/", runs.AgentRunsView.as_view(), name="intelligence-runs"),
    path(
        "agents/<int:pk>/runs/<int:run_id>/actions/<int:action_id>/decide/",
        runs.ProposedActionDecideView.as_view(),
        name="intelligence-run-action-decide",
    ),
]
