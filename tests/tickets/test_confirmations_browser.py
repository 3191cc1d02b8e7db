"""Issue 28, item 8: revoking an API key and removing a member ask first, in a real headless Chromium at 1280 px
and at 390 px (a phone), with JavaScript switched off: the confirmation is a page of its own, not a script's
confirm(). Cancel changes nothing; the confirmed action says what it did. Screenshots of each step go to
var/screenshots/confirm-<width>/."""

import re
from pathlib import Path

import pytest

from tests.browser import chromium_page
from tests.conftest import make_member
from tickets.tenancy import services
from tickets.tenancy.models import ApiKey, Membership, Role

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, base, username):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))


def fits(page, width):
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1


@pytest.mark.parametrize("width", [1280, 390])
def test_revoking_a_key_and_removing_a_member_ask_first(live_server, tenant, width):
    shots = SHOTS / f"confirm-{width}"
    shots.mkdir(parents=True, exist_ok=True)
    make_member(tenant, Role.ADMIN, username="ada")
    leaver = Membership.objects.for_tenant(tenant).get(
        user=make_member(tenant, Role.VIEWER, username="leaver")
    )
    key, _ = services.api_key_create(tenant=tenant, name="Helpdesk bot")
    base = live_server.url

    def shot(name):
        page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
        fits(page, width)

    with chromium_page(width=width, height=900) as page:
        sign_in(page, base, "ada")
        page.goto(f"{base}/tenant/api-keys/")
        shot("01-api-keys")
        page.click(f"[data-testid=revoke-{key.pk}]")
        page.wait_for_selector("[data-testid=confirm]")
        assert "Revoke the key “Helpdesk bot”?" in page.inner_text("[data-testid=confirm]")
        shot("02-revoke-confirm")
        page.click("[data-testid=cancel]")
        page.wait_for_url(re.compile(r"/tenant/api-keys/$"))
        assert ApiKey.objects.for_tenant(tenant).get(pk=key.pk).revoked_at is None
        page.click(f"[data-testid=revoke-{key.pk}]")
        page.click("[data-testid=confirm-button]")
        page.wait_for_selector(".messages .success")
        assert "Revoked key “Helpdesk bot”" in page.inner_text(".messages")
        assert ApiKey.objects.for_tenant(tenant).get(pk=key.pk).revoked_at is not None
        shot("03-revoked")

        page.goto(f"{base}/tenant/members/")
        shot("04-members")
        page.click(f"[data-testid=remove-{leaver.pk}]")
        page.wait_for_selector("[data-testid=confirm]")
        assert "Remove leaver from Acme Support?" in page.inner_text("[data-testid=confirm]")
        shot("05-remove-confirm")
        page.click("[data-testid=cancel]")
        page.wait_for_url(re.compile(r"/tenant/members/$"))
        assert Membership.objects.for_tenant(tenant).filter(pk=leaver.pk).exists()
        page.click(f"[data-testid=remove-{leaver.pk}]")
        page.click("[data-testid=confirm-button]")
        page.wait_for_selector(".messages .success")
        assert "Removed leaver from Acme Support." in page.inner_text(".messages")
        assert not Membership.objects.for_tenant(tenant).filter(pk=leaver.pk).exists()
        shot("06-removed")


def test_the_confirmation_works_without_javascript(live_server, tenant):
    make_member(tenant, Role.ADMIN, username="ada")
    key, _ = services.api_key_create(tenant=tenant, name="Old key")
    base = live_server.url
    with chromium_page(width=1280, height=900, java_script_enabled=False) as page:
        sign_in(page, base, "ada")
        page.goto(f"{base}/tenant/api-keys/")
        page.click(f"[data-testid=revoke-{key.pk}]")
        page.click("[data-testid=confirm-button]")
        page.wait_for_selector(".messages .success")
        assert ApiKey.objects.for_tenant(tenant).get(pk=key.pk).revoked_at is not None
