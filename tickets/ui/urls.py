from django.urls import path

from . import views

urlpatterns = [
    path("insights/learning/", views.LearningView.as_view(), name="learning"),
]
