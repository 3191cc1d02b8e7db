"""Brain's REST endpoints (/api/v1/brain/..., /api/v1/client-brain/...), all on the tenancy base."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from .views import client_brain, formation, search

router = SimpleRouter(trailing_slash=False)
router.register(
    "client-brain/memories", client_brain.ClientBrainMemoryViewSet, basename="client-brain-memory"
)

urlpatterns = [
    path("brain/search", search.BrainSearchView.as_view(), name="brain-search"),
    path("brain/ask", search.BrainAskView.as_view(), name="brain-ask"),
    # Formation write surfaces and the graph (formation.py).
    path("brain/memory-append", formation.MemoryAppendView.as_view(), name="brain-memory-append"),
    path("brain/lessons", formation.LessonView.as_view(), name="brain-lessons"),
    path("brain/chat-mine", formation.ChatMineView.as_view(), name="brain-chat-mine"),
    path(
        "brain/memories/<int:pk>/neighbours",
        formation.MemoryNeighboursView.as_view(),
        name="brain-memory-neighbours",
    ),
    # Client Brain (client_brain.py).
    path("client-brain/context", client_brain.ClientBrainContextView.as_view(), name="client-brain-context"),
    path("client-brain/copilot", client_brain.ClientBrainCopilotView.as_view(), name="client-brain-copilot"),
    *(
        path(
            f"client-brain/{feature}",
            client_brain.ClientBrainSuspendedFeatureView.as_view(feature=feature),
            name=f"client-brain-{feature}",
        )
        for feature in client_brain.FEATURES_SUSPENDED
    ),
    *router.urls,
]
