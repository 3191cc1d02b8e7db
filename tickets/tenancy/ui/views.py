"""Operator UI for the tenant itself: home, the tenant switcher, members, invitations and API keys."""

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import View
from django.views.decorators.http import require_POST

from .. import services
from ..models import ApiKey, Invitation, Membership, Role
from ..selectors import (
    api_keys_for_tenant,
    invitation_pending_by_token,
    invitations_pending_for_tenant,
    invitations_pending_for_user,
    members_for_tenant,
)
from .forms import ApiKeyForm, InvitationForm, InvitationPasswordForm
from .middleware import switch_tenant
from .mixins import TenantRowActionView, TenantViewMixin
from .sections import operator_ui_sections


class HomeView(TenantViewMixin, View):
    """The overview: each section's cards, what changed in the last 7 days, and, until every step is done, the
    setup checklist (an agent, a rule, an API key, a first ticket). A signed-in user with no tenant is sent
    to their pending invitations; with none, staff go on to the admin (where they work: signing in lands them
    there, with a message saying why) and anyone else gets a page that says so instead of a bare 403."""

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and request.tenant is None:
            if invitations_pending_for_user(request.user):
                return redirect("invitations")
            if request.user.is_staff:
                messages.info(
                    request,
                    "Your account belongs to no tenant, so the operator pages have nothing to show; you manage "
                    "every tenant here. To use the operator pages, add yourself to a tenant under Memberships.",
                )
                return redirect("admin:index")
            return render(request, "no_tenant.html", status=403)
        return super().dispatch(request, *args, **kwargs)

    def get(self, request):
        tenant = request.tenant
        sections = operator_ui_sections()
        since = timezone.now() - timedelta(days=7)
        steps = [step for s in sections for step in getattr(s, "setup_steps", lambda t: [])(tenant)]
        steps.insert(
            2,
            {
                "label": "Create an API key for the agent",
                "done": api_keys_for_tenant(tenant).filter(revoked_at__isnull=True).exists(),
                "url": reverse("tenant-api-keys"),
                "help": "Agents call the API with it; only admins create keys.",
            },
        )
        return render(
            request,
            "home.html",
            {
                "cards": [card for s in sections for card in s.home_cards(tenant)],
                "changes": [
                    c for s in sections for c in getattr(s, "week_changes", lambda t, d: [])(tenant, since)
                ],
                "steps": steps,
                "setup_done": all(step["done"] for step in steps),
            },
        )


@login_required
@require_POST
def switch_tenant_view(request):
    try:
        tenant_id = int(request.POST.get("tenant_id", ""))
    except ValueError:
        tenant_id = -1
    if switch_tenant(request, tenant_id):
        messages.success(request, "Switched tenant.")
    else:
        messages.error(request, "You are not a member of that tenant.")
    next_url = request.POST.get("next") or reverse("home")
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = reverse("home")
    return HttpResponseRedirect(next_url)


# The new key's secret waits in the session for the one GET after the POST (POST/redirect/GET): a reload
# then neither creates a second key nor shows the secret again.
NEW_KEY_SESSION = "brain_new_api_key"


class ApiKeysView(TenantViewMixin, View):
    required_role = Role.ADMIN
    write_role = Role.ADMIN

    def get(self, request, form=None):
        new_key = request.session.pop(NEW_KEY_SESSION, None)
        response = render(
            request,
            "tenant/api_keys.html",
            {
                "keys": api_keys_for_tenant(request.tenant),
                "form": form or ApiKeyForm(),
                "new_key": new_key,
                "api_base": request.build_absolute_uri("/api/v1/"),
                "first_agent": agents_first(request.tenant),
            },
        )
        if new_key:
            add_never_cache_headers(response)  # the page shows the secret: no cache or proxy may keep it
        return response

    def post(self, request):
        form = ApiKeyForm(request.POST)
        if not form.is_valid():
            messages.error(request, "The key was not created; fix the errors below.")
            return self.get(request, form=form)
        key, full_key = services.api_key_create(
            tenant=request.tenant,
            name=form.cleaned_data["name"],
            role=form.cleaned_data["role"],
            created_by=request.user,
        )
        request.session[NEW_KEY_SESSION] = {"name": key.name, "secret": full_key}
        messages.success(request, f"Created key “{key.name}”. Copy it now: it will not be shown again.")
        return redirect("tenant-api-keys")


def agents_first(tenant):
    """The tenant's first agent (for the ready curl), through the operator UI's sections: tenancy does not
    import the apps above it."""
    for section in operator_ui_sections():
        first = getattr(section, "first_agent", None)
        if first is not None:
            return first(tenant)
    return None


class ApiKeyRevokeView(TenantRowActionView):
    model, missing, redirect_to = ApiKey, "No such key.", "tenant-api-keys"

    def confirmation(self, key) -> dict:
        return {
            "title": "Revoke an API key",
            "question": f"Revoke the key “{key.name}”?",
            "consequence": f"Requests with it (brn_{key.prefix}_…) will get 401 at once: an agent or helpdesk "
            "still using it stops working until it is given a new key. A revoked key cannot be restored.",
            "button": "Revoke the key",
        }

    def already_done(self, key) -> str | None:
        if key.revoked_at is None:
            return None
        return f"The key “{key.name}” was already revoked on {key.revoked_at:%Y-%m-%d}."

    def act(self, key) -> str:
        services.api_key_revoke(key=key)
        return f"Revoked key “{key.name}”. Requests with it now get 401."


class MembersView(TenantViewMixin, View):
    """Members and pending invitations. Admins invite by e-mail; nobody is added without accepting."""

    required_role = Role.ADMIN
    write_role = Role.ADMIN

    def get(self, request, form=None, new_link=None):
        return render(
            request,
            "tenant/members.html",
            {
                "members": members_for_tenant(request.tenant),
                "invitations": invitations_pending_for_tenant(request.tenant),
                "form": form or InvitationForm(),
                "roles": Role.choices,
                "new_link": new_link,
                "invitation_days": settings.BRAIN_INVITATION_DAYS,
            },
        )

    def post(self, request):
        form = InvitationForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Nobody was invited; fix the errors below.")
            return self.get(request, form=form)
        invitation, link = services.invitation_create(
            tenant=request.tenant,
            email=form.cleaned_data["email"],
            role=form.cleaned_data["role"],
            invited_by=request.user,
            link_for=lambda token: request.build_absolute_uri(reverse("invitation-link", args=[token])),
        )
        # The same answer whether or not an account has this address (it names only what the admin typed).
        messages.success(
            request,
            f"Invited {invitation.email} as {invitation.get_role_display().lower()}. They become a member "
            f"when they accept; the invitation expires in {settings.BRAIN_INVITATION_DAYS} days.",
        )
        shown = link if settings.BRAIN_INVITATION_LINK_SHOWN else None
        return self.get(request, new_link=shown)


class InvitationRevokeView(TenantRowActionView):
    model, missing, redirect_to = Invitation, "No such invitation.", "tenant-members"

    def act(self, invitation) -> str:
        services.invitation_revoke(invitation=invitation)
        return f"Withdrew the invitation of {invitation.email}; its link no longer works."


class InvitationsView(LoginRequiredMixin, View):
    """The signed-in user's pending invitations (addressed to their e-mail), in any tenant: accept or decline."""

    def get(self, request, pk: int | None = None):
        return render(
            request, "tenant/invitations.html", {"invitations": invitations_pending_for_user(request.user)}
        )

    def post(self, request, pk: int):
        invitation = next((i for i in invitations_pending_for_user(request.user) if i.pk == pk), None)
        if invitation is None:  # another user's, answered, revoked or expired: the same answer
            raise Http404("No such invitation is waiting for you.")
        if request.POST.get("action") == "accept":
            services.invitation_accept(invitation=invitation, user=request.user)
            switch_tenant(request, invitation.tenant_id)
            messages.success(
                request, f"You joined {invitation.tenant.name} as {invitation.get_role_display().lower()}."
            )
            return redirect("home")
        if request.POST.get("action") == "decline":
            services.invitation_decline(invitation=invitation)
            messages.success(request, f"Declined the invitation to {invitation.tenant.name}.")
        else:
            messages.error(request, "Choose accept or decline.")
        return redirect("invitations")


class InvitationLinkView(View):
    """The one-time link: a new user sets a password and joins; an existing one is sent to sign in and accept
    on their Invitations page (an existing account is never changed through a link)."""

    def dispatch(self, request, token: str):
        invitation = invitation_pending_by_token(token)
        if invitation is None:
            return render(request, "tenant/invitation_link.html", {"invitation": None}, status=404)
        if request.user.is_authenticated:
            return redirect("invitations")
        return super().dispatch(request, invitation)

    def get(self, request, invitation, form=None):
        return render(
            request,
            "tenant/invitation_link.html",
            {"invitation": invitation, "form": form or InvitationPasswordForm(email=invitation.email)},
        )

    def post(self, request, invitation):
        form = InvitationPasswordForm(request.POST, email=invitation.email)
        if not form.is_valid():
            return self.get(request, invitation, form=form)
        try:
            user = services.invitation_accept_as_new_user(
                invitation=invitation, password=form.cleaned_data["password1"]
            )
        except services.InvitationClosed:
            user = None
        if user is None:
            messages.info(
                request,
                f"No new account was made for {invitation.email}. If you already have one, sign in and accept "
                "the invitation on your Invitations page.",
            )
            return redirect(f"{reverse('login')}?next={reverse('invitations')}")
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        switch_tenant(request, invitation.tenant_id)
        messages.success(
            request, f"Welcome! You joined {invitation.tenant.name}; you sign in as {user.username}."
        )
        return redirect("home")


class MemberRemoveView(TenantRowActionView):
    """Remove a member, after a confirmation page; the tenant's last admin stays (an error says why)."""

    model, missing, redirect_to = Membership, "No such member.", "tenant-members"
    refusals = (services.LastAdminError,)

    def confirmation(self, membership) -> dict:
        name = membership.user.username
        return {
            "title": "Remove a member",
            "question": f"Remove {name} from {self.tenant}?",
            "consequence": f"{name} loses access to {self.tenant} at once (their account stays); to come back "
            "they need a new invitation.",
            "button": f"Remove {name}",
        }

    def act(self, membership) -> str:
        services.membership_remove(membership=membership)
        return f"Removed {membership.user.username} from {self.tenant}."


class MemberChangeView(TenantViewMixin, View):
    """A member's new role. A removal goes through MemberRemoveView's confirmation."""

    required_role = Role.ADMIN
    write_role = Role.ADMIN

    def post(self, request, pk: int):
        membership = (
            Membership.objects.for_tenant(request.tenant).select_related("user").filter(pk=pk).first()
        )
        if membership is None:
            raise Http404("No such member.")
        if request.POST.get("action") == "remove":
            return redirect("tenant-member-remove", pk=membership.pk)
        role = request.POST.get("role", "")
        if role not in Role.values:
            messages.error(request, "Choose admin, operator or viewer.")
        else:
            try:
                services.membership_set(tenant=request.tenant, user=membership.user, role=role)
            except services.LastAdminError as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, f"{membership.user.username} is now {role}.")
        return redirect("tenant-members")
