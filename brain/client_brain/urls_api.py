from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api_views

router = SimpleRouter(trailing_slash=False)
router.register("client-brain/memories", api_views.ClientBrainMemoryViewSet, basename="client-brain-memory")

urlpatterns = [
    path("client-brain/context", api_views.ClientBrainContextView.as_view(), name="client-brain-context"),
    path("client-brain/copilot", api_views.ClientBrainCopilotView.as_view(), name="client-brain-copilot"),
    *(
        path(
            f"client-brain/{feature}",
            api_views.ClientBrainSuspendedFeatureView.as_view(feature=feature),
            name=f"client-brain-{feature}",
        )
        for feature in api_views.FEATURES_SUSPENDED
    ),
    *router.urls,
]
