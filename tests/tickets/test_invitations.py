"""Membership needs consent (issue 15, finding 8): admins invite by e-mail; people join only by accepting."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from tests.conftest import make_member
from tests.tickets.factories import UserFactory
from tickets.tenancy.models import Invitation, Membership, Role

pytestmark = pytest.mark.django_db

LINK = re.compile(r"https?://[^\s<\"]+/invitations/link/[\w-]+/")


@pytest.fixture
def invite(django_capture_on_commit_callbacks):
    """POST the invite form; the e-mail goes out after the commit, as it does outside a test transaction."""

    def post(client, email, role="operator"):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(reverse("tenant-members"), {"email": email, "role": role})

    return post


def user_with_email(username, email, tenant=None, role=Role.VIEWER):
    user = make_member(tenant, role, username=username) if tenant else UserFactory(username=username)
    user.email = email
    user.save(update_fields=["email"])
    return user


def members_of(tenant):
    return set(Membership.objects.for_tenant(tenant).values_list("user__username", flat=True))


def test_an_admin_cannot_add_an_existing_user_by_username(client, tenant, other_tenant):
    """The finding: posting a username made that user a member, without their consent."""
    make_member(other_tenant, Role.ADMIN, username="globex-boss")
    admin = make_member(tenant, Role.ADMIN)
    assert not admin.is_staff
    client.force_login(admin)
    html = client.post(
        reverse("tenant-members"), {"username": "globex-boss", "role": "viewer"}
    ).content.decode()
    assert "globex-boss" not in members_of(tenant)
    assert "globex-boss" not in html
    assert APIClient(enforce_csrf_checks=False).post(reverse("member-list")).status_code in (401, 403)
    api = APIClient()
    api.force_login(admin)
    assert api.post(reverse("member-list"), {"username": "globex-boss"}, format="json").status_code == 405
    assert "globex-boss" not in members_of(tenant)


def test_the_answer_never_reveals_whether_an_address_has_an_account(
    client, tenant, other_tenant, mailoutbox, invite
):
    user_with_email("alice", "alice@example.com", tenant=other_tenant)
    client.force_login(make_member(tenant, Role.ADMIN))
    answers = []
    for email in ("alice@example.com", "nobody@example.com"):
        html = invite(client, email).content.decode()
        message = re.search(r'<li class="success"[^>]*>(.*?)</li>', html, re.S).group(1)
        answers.append(message.replace(email, "ADDRESS"))
    assert answers[0] == answers[1]
    assert members_of(tenant) == {f"{tenant.slug}-admin"}  # nobody joined by being invited
    assert [m.to for m in mailoutbox] == [["alice@example.com"], ["nobody@example.com"]]


def test_an_existing_user_accepts_on_their_invitations_page(client, tenant, other_tenant, mailoutbox, invite):
    alice = user_with_email("alice", "Alice@Example.com", tenant=other_tenant)
    client.force_login(make_member(tenant, Role.ADMIN))
    invite(client, "alice@example.com", role="viewer")
    assert "alice" not in members_of(tenant)

    alice_client = Client()
    alice_client.force_login(alice)
    page = alice_client.get(reverse("invitations")).content.decode()
    assert tenant.name in page and "Accept" in page
    invitation = Invitation.objects.for_tenant(tenant).get()
    response = alice_client.post(reverse("invitation-answer", args=[invitation.pk]), {"action": "accept"})
    assert response.status_code == 302
    assert Membership.objects.for_tenant(tenant).get(user=alice).role == Role.VIEWER
    # Single use: answered once, it is no longer waiting, and its link no longer works.
    again = alice_client.post(reverse("invitation-answer", args=[invitation.pk]), {"action": "accept"})
    assert again.status_code == 404
    link = LINK.search(mailoutbox[0].body).group(0)
    assert Client().get(link).status_code == 404


def test_declining_leaves_the_user_out(client, tenant, invite):
    alice = user_with_email("alice", "alice@example.com")
    client.force_login(make_member(tenant, Role.ADMIN))
    invite(client, "alice@example.com")
    invitation = Invitation.objects.for_tenant(tenant).get()
    alice_client = Client()
    alice_client.force_login(alice)
    alice_client.post(reverse("invitation-answer", args=[invitation.pk]), {"action": "decline"})
    assert "alice" not in members_of(tenant)
    assert "my-invitations" not in alice_client.get(reverse("invitations")).content.decode()


def test_a_new_user_sets_a_password_through_the_one_time_link(client, tenant, settings, mailoutbox, invite):
    settings.BRAIN_INVITATION_LINK_SHOWN = True  # development: no mail server, the admin passes the link on
    client.force_login(make_member(tenant, Role.ADMIN))
    html = invite(client, "new.person@example.com").content.decode()
    link = LINK.search(html).group(0)
    assert LINK.search(mailoutbox[0].body).group(0) == link

    newcomer = Client()
    page = newcomer.get(link)
    assert page.status_code == 200 and "new.person@example.com" in page.content.decode()
    short = newcomer.post(link, {"password1": "abc", "password2": "abc"})
    assert short.status_code == 200 and "new.person@example.com" not in members_of(tenant)
    password = "a long walk to the harbour 42"
    response = newcomer.post(link, {"password1": password, "password2": password})
    assert response.status_code == 302
    assert (
        Membership.objects.for_tenant(tenant).get(user__username="new.person@example.com").role == "operator"
    )
    assert newcomer.get(reverse("home")).status_code == 200  # signed in, inside the tenant
    sign_in = {"username": "new.person@example.com", "password": password}
    assert Client().post(reverse("login"), sign_in).status_code == 302  # the password works
    # The link works once.
    assert Client().get(link).status_code == 404
    assert Client().post(link, {"password1": password, "password2": password}).status_code == 404


def test_a_link_never_changes_an_existing_account(client, tenant, settings, invite):
    settings.BRAIN_INVITATION_LINK_SHOWN = True
    alice = user_with_email("alice", "alice@example.com")
    client.force_login(make_member(tenant, Role.ADMIN))
    link = LINK.search(invite(client, "alice@example.com").content.decode()).group(0)
    password = "a long walk to the harbour 42"
    response = Client().post(link, {"password1": password, "password2": password})
    assert response.status_code == 302 and reverse("login") in response["Location"]
    alice.refresh_from_db()
    assert alice.check_password("pw-for-tests-1") and not alice.check_password(password)
    assert "alice" not in members_of(tenant)


def test_production_mails_the_link_and_never_shows_it(client, tenant, settings, mailoutbox, invite):
    settings.BRAIN_INVITATION_LINK_SHOWN = False
    client.force_login(make_member(tenant, Role.ADMIN))
    html = invite(client, "new.person@example.com").content.decode()
    assert not LINK.search(html)
    assert LINK.search(mailoutbox[0].body)
    assert tenant.name in mailoutbox[0].subject


def test_invitations_expire(client, tenant, settings, invite):
    settings.BRAIN_INVITATION_LINK_SHOWN = True
    alice = user_with_email("alice", "alice@example.com")
    client.force_login(make_member(tenant, Role.ADMIN))
    link = LINK.search(invite(client, "alice@example.com").content.decode()).group(0)
    invitation = Invitation.objects.for_tenant(tenant).get()
    Invitation.objects.for_tenant(tenant).update(expires_at=timezone.now() - timedelta(seconds=1))
    alice_client = Client()
    alice_client.force_login(alice)
    assert "my-invitations" not in alice_client.get(reverse("invitations")).content.decode()
    answer = alice_client.post(reverse("invitation-answer", args=[invitation.pk]), {"action": "accept"})
    assert answer.status_code == 404
    assert Client().get(link).status_code == 404
    assert "alice" not in members_of(tenant)


def test_a_new_invitation_replaces_the_pending_one_and_admins_withdraw_them(client, tenant, settings, invite):
    settings.BRAIN_INVITATION_LINK_SHOWN = True
    client.force_login(make_member(tenant, Role.ADMIN))
    first = LINK.search(invite(client, "new@example.com").content.decode()).group(0)
    second = LINK.search(invite(client, "new@example.com", role="viewer").content.decode()).group(0)
    assert Client().get(first).status_code == 404 and Client().get(second).status_code == 200
    pending = Invitation.objects.for_tenant(tenant).get(revoked_at__isnull=True)
    client.post(reverse("tenant-invitation-revoke", args=[pending.pk]))
    assert Client().get(second).status_code == 404


def test_invitations_are_tenant_scoped(client, tenant, other_tenant, settings, invite):
    """Another tenant's admin cannot see or withdraw an invitation; a user cannot answer one sent to someone
    else; an invitation makes its invitee a member of its own tenant only."""
    settings.BRAIN_INVITATION_LINK_SHOWN = True
    alice = user_with_email("alice", "alice@example.com")
    mallory = user_with_email("mallory", "mallory@example.com")
    client.force_login(make_member(tenant, Role.ADMIN))
    invite(client, "alice@example.com")
    invitation = Invitation.objects.for_tenant(tenant).get()

    other_admin = Client()
    other_admin.force_login(make_member(other_tenant, Role.ADMIN))
    assert "alice@example.com" not in other_admin.get(reverse("tenant-members")).content.decode()
    assert other_admin.post(reverse("tenant-invitation-revoke", args=[invitation.pk])).status_code == 404
    invitation.refresh_from_db()
    assert invitation.revoked_at is None

    mallory_client = Client()
    mallory_client.force_login(mallory)
    assert "my-invitations" not in mallory_client.get(reverse("invitations")).content.decode()
    stolen = mallory_client.post(reverse("invitation-answer", args=[invitation.pk]), {"action": "accept"})
    assert stolen.status_code == 404
    assert "mallory" not in members_of(tenant)

    alice_client = Client()
    alice_client.force_login(alice)
    alice_client.post(reverse("invitation-answer", args=[invitation.pk]), {"action": "accept"})
    assert "alice" in members_of(tenant) and "alice" not in members_of(other_tenant)


def test_only_admins_invite(client, tenant, invite):
    for role in (Role.OPERATOR, Role.VIEWER):
        client.force_login(make_member(tenant, role))
        assert invite(client, "someone@example.com").status_code == 403
    assert not Invitation.objects.for_tenant(tenant).exists()


def test_someone_without_a_tenant_lands_on_their_invitations(client, tenant, invite):
    admin = Client()
    admin.force_login(make_member(tenant, Role.ADMIN))
    invite(admin, "alice@example.com")
    client.force_login(user_with_email("alice", "alice@example.com"))
    response = client.get(reverse("home"))
    assert response.status_code == 302 and response["Location"] == reverse("invitations")


def test_someone_without_a_tenant_or_an_invitation_is_told_so(client, db):
    client.force_login(user_with_email("bob", "bob@example.com"))
    response = client.get(reverse("home"))
    assert response.status_code == 403 and b'data-testid="no-tenant"' in response.content
    assert reverse("invitations").encode() in response.content


def test_a_link_proves_the_address_for_its_own_invitation_only(
    client, tenant, other_tenant, settings, invite
):
    """Issue 29: with the link shown to the inviting admin (no mail server), tenant B's admin invited an address
    that tenant A had a pending admin invitation for, opened B's link, and the new account accepted A's
    invitation: it became admin of A. The link B's admin holds proves nothing about the address."""
    settings.BRAIN_INVITATION_LINK_SHOWN = True
    a_admin, b_admin = Client(), Client()
    a_admin.force_login(make_member(tenant, Role.ADMIN))
    b_admin.force_login(make_member(other_tenant, Role.ADMIN))
    invite(a_admin, "ceo@example.com", role="admin")
    b_link = LINK.search(invite(b_admin, "ceo@example.com", role="viewer").content.decode()).group(0)

    intruder = Client()
    password = "a long walk to the harbour 42"
    assert intruder.post(b_link, {"password1": password, "password2": password}).status_code == 302
    page = intruder.get(reverse("invitations")).content.decode()
    assert tenant.name not in page
    a_invitation = Invitation.objects.for_tenant(tenant).get()
    answer = intruder.post(reverse("invitation-answer", args=[a_invitation.pk]), {"action": "accept"})
    assert answer.status_code == 404
    assert "ceo@example.com" not in members_of(tenant)
    assert Invitation.objects.for_tenant(tenant).get().accepted_at is None  # still waiting for its own link
