"""Invitations in a real headless Chromium against a live server: an admin invites two addresses, a newcomer
sets a password through the one-time link, an existing user accepts on their Invitations page. Screenshots of
each page go to var/screenshots/tenancy/."""

import re
from pathlib import Path

import pytest

from tests.browser import chromium_page
from tests.conftest import make_member
from tickets.tenancy.models import Membership, Role

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots" / "tenancy"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shot(page, name):
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def sign_in(page, url, username, password="pw-for-tests-1"):
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")


def test_invite_then_a_newcomer_and_an_existing_user_accept(live_server, tenant, other_tenant, settings):
    settings.BRAIN_INVITATION_LINK_SHOWN = True  # development: no mail server
    SHOTS.mkdir(parents=True, exist_ok=True)
    make_member(tenant, Role.ADMIN, username="ada")
    alice = make_member(other_tenant, Role.OPERATOR, username="alice")
    alice.email = "alice@example.com"
    alice.save(update_fields=["email"])

    with chromium_page() as page:
        sign_in(page, live_server.url, "ada")
        page.wait_for_url(re.compile(r"/$"))
        page.click("nav.main >> text=Members")
        page.fill("#id_email", "alice@example.com")
        page.select_option("#id_role", "viewer")
        page.click("[data-testid=invite-form] button")
        page.wait_for_selector(".messages .success")
        page.fill("#id_email", "new.person@example.com")
        page.click("[data-testid=invite-form] button")
        page.wait_for_selector("[data-testid=invitation-link]")
        link = page.inner_text("[data-testid=invitation-link] .secret").strip()
        assert "alice@example.com" in page.inner_text("[data-testid=invitations]")
        shot(page, "01-members-with-invitations")

    with chromium_page() as page:
        page.goto(link)
        page.wait_for_selector("[data-testid=set-password-form]")
        shot(page, "02-invitation-link")
        page.fill("#id_password1", "a long walk to the harbour 42")
        page.fill("#id_password2", "a long walk to the harbour 42")
        page.click("[data-testid=set-password-form] button")
        page.wait_for_selector(".messages .success")
        assert "Welcome" in page.inner_text(".messages")
        assert page.inner_text("[data-testid=current-tenant]") == tenant.name
        shot(page, "03-newcomer-joined")
        page.goto(link)
        page.wait_for_selector("[data-testid=link-invalid]")
        shot(page, "04-link-used")

    with chromium_page() as page:
        sign_in(page, live_server.url, "alice")
        page.wait_for_url(re.compile(r"/$"))
        page.click("text=Invitations")
        page.wait_for_selector("[data-testid=my-invitations]")
        shot(page, "05-my-invitations")
        page.click("[data-testid=my-invitations] >> text=Accept")
        page.wait_for_selector(".messages .success")
        assert f"You joined {tenant.name}" in page.inner_text(".messages")
        shot(page, "06-accepted")

    assert Membership.objects.for_tenant(tenant).get(user=alice).role == Role.VIEWER
