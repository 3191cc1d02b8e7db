from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("tenant/switch/", views.switch_tenant_view, name="switch-tenant"),
    path("tenant/api-keys/", views.ApiKeysView.as_view(), name="tenant-api-keys"),
    path("tenant/api-keys/<int:pk>/revoke/", views.ApiKeyRevokeView.as_view(), name="tenant-api-key-revoke"),
    path("tenant/members/", views.MembersView.as_view(), name="tenant-members"),
    path("tenant/members/<int:pk>/", views.MemberChangeView.as_view(), name="tenant-member-change"),
    path("tenant/members/<int:pk>/remove/", views.MemberRemoveView.as_view(), name="tenant-member-remove"),
    path(
        "tenant/invitations/<int:pk>/revoke/",
        views.InvitationRevokeView.as_view(),
        name="tenant-invitation-revoke",
    ),
    path("invitations/", views.InvitationsView.as_view(), name="invitations"),
    path("invitations/<int:pk>/", views.InvitationsView.as_view(), name="invitation-answer"),
    path("invitations/link/<str:token>/", views.InvitationLinkView.as_view(), name="invitation-link"),
]
