from django.urls import path

from . import search_views

urlpatterns = [
    path("brain/search", search_views.BrainSearchView.as_view(), name="brain-search"),
    path("brain/ask", search_views.BrainAskView.as_view(), name="brain-ask"),
]
