from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api

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
]
