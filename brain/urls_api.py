from django.urls import path

from . import formation_views, search_views

urlpatterns = [
    path("brain/search", search_views.BrainSearchView.as_view(), name="brain-search"),
    path("brain/ask", search_views.BrainAskView.as_view(), name="brain-ask"),
    # Formation write surfaces and the graph (brain/formation_views.py).
    path("brain/memory-append", formation_views.MemoryAppendView.as_view(), name="brain-memory-append"),
    path("brain/lessons", formation_views.LessonView.as_view(), name="brain-lessons"),
    path("brain/chat-mine", formation_views.ChatMineView.as_view(), name="brain-chat-mine"),
    path(
        "brain/memories/<int:pk>/neighbours",
        formation_views.MemoryNeighboursView.as_view(),
        name="brain-memory-neighbours",
    ),
]
