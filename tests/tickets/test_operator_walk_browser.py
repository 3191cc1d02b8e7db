"""Issue 17, everywhere: headless Chromium walks every operator page at desktop width and at 390 px (a phone),
keeps a screenshot of each in var/screenshots/walk-<width>/ (git-ignored), and fails on a console error, an
uncaught script error, a failed request, an unexpected HTTP error, or (at 390 px) a layout wider than the
screen."""

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from intelligence import services as intelligence_services
from tests.browser import chromium_page
from tests.conftest import make_member
from tickets import services as ticket_services
from tickets.tenancy.models import Role

from ..intelligence.factories import add_memory, make_agent
from .learning_helpers import ticket_with_evidence

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PASSWORD = "pw-for-tests-1"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Watcher:
    """Everything a page reported that a user would call broken."""

    def __init__(self, page):
        self.problems: list[str] = []
        self.expected_status: set[int] = set()
        page.on("console", self.console)
        page.on("pageerror", lambda e: self.problems.append(f"script error: {e}"))
        page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url} {r.failure}"))
        page.on(
            "response",
            lambda r: (
                r.status >= 400
                and r.status not in self.expected_status
                and self.problems.append(f"HTTP {r.status}: {r.url}")
            ),
        )

    def console(self, message):
        # Chromium logs the status of the page's own expected error response (the styled 404) as an error too.
        expected = any(f"status of {code} " in message.text for code in self.expected_status)
        if message.type == "error" and not expected:
            self.problems.append(f"console: {message.text}")


def seed(tenant):
    """A tenant as an operator meets it after a week: an agent with memories, a runtime call, a learned ticket."""
    agent = make_agent(tenant, name="Ads optimiser", kind="action", description="Tunes paid campaigns.")
    rule = add_memory(agent, "Never raise a daily budget by more than 20 percent at once.", tags=["budget"])
    add_memory(
        agent, "Meta campaigns learn for 7 days before changes.", strength="heuristic", provider="meta_ads"
    )
    add_memory(agent, "The client's fiscal year starts in April.", strength="context_note", category="fact")
    intelligence_services.agent_context_build(
        agent=agent, request=intelligence_services.ContextRequest(conversation="Can we double the budget?")
    )
    ticket = ticket_with_evidence(tenant, "T-4242")
    ticket_services.ticket_transition(ticket=ticket, status="solved")
    return agent, rule


def sign_in(page, base, username):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))


@pytest.mark.parametrize("width", [1300, 390])
def test_every_operator_page_renders_cleanly(live_server, tenant, width):
    admin = make_member(tenant, Role.ADMIN, username="ada")
    agent, rule = seed(tenant)
    shots = SHOTS / f"walk-{width}"
    shots.mkdir(parents=True, exist_ok=True)
    base = live_server.url
    with chromium_page(width=width, height=900) as page:
        watcher = Watcher(page)
        problems_by_page: dict[str, list[str]] = {}

        def visit(name, url=None, *, action=None, expect_status=()):
            watcher.problems.clear()
            watcher.expected_status = set(expect_status)
            if url:
                page.goto(base + url)
            if action:
                action()
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if overflow > 1:
                watcher.problems.append(f"layout {overflow}px wider than the {width}px screen")
            if watcher.problems:
                problems_by_page[name] = list(watcher.problems)

        sign_in(page, base, admin.username)
        visit("01-home", "/")
        visit("02-agents", "/agents/")
        visit("03-intelligence-tab", f"/agents/{agent.pk}/")
        visit("04-add-memory", f"/agents/{agent.pk}/memories/add/")
        visit("05-memory", f"/agents/{agent.pk}/memories/{rule}/")

        def try_conversation():
            page.fill("#id_conversation", "Can we double the budget of the spring campaign tomorrow?")
            page.click("[data-testid=preview-form] button")
            page.wait_for_selector("[data-testid=preview-result]")

        visit("06-context", f"/agents/{agent.pk}/preview/", action=try_conversation)
        assert page.locator(f"[data-testid=section-hard_rule] [data-testid=chip-{rule}]").count() == 1
        visit("07-traces", f"/agents/{agent.pk}/traces/", action=lambda: page.click("details.trace summary"))
        assert page.locator(f"details.trace[open] [data-testid=chip-{rule}]").count() == 1
        visit("08-client-brain", "/insights/analytics/client-brain/")
        assert page.locator("[data-testid=chart-learned] svg rect").count() > 0
        visit("09-client-brain-search", "/insights/analytics/client-brain/?q=warranty")
        visit("10-learning", "/insights/learning/")
        assert "T-4242" in page.inner_text("[data-testid=learning-attempts]")

        def create_key():
            page.fill("#id_name", "Support bot")
            page.click("form.card button[type=submit]")
            page.wait_for_selector("[data-testid=new-key]")

        visit("11-api-keys", "/tenant/api-keys/", action=create_key)
        assert "/tenant/api-keys/" in page.url and page.locator("[data-testid=curl]").count() == 1
        visit("12-members", "/tenant/members/")
        visit("13-not-found", "/agents/999999/", expect_status={404})
        assert page.locator("[data-testid=error-404]").count() == 1

        # Staff with no tenant: signing in lands on the admin (not a 403), which says why (issue 28, item 7).
        get_user_model().objects.create_superuser("root", password=PASSWORD)
        page.context.clear_cookies()
        sign_in(page, base, "root")
        visit("14-staff-lands-on-the-admin")
        assert page.url == f"{base}/admin/" and "belongs to no tenant" in page.content()
        assert "The Brain administration" in page.content()

    assert problems_by_page == {}
