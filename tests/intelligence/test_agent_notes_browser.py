"""The "Written by the agent" view in a real headless Chromium against a live server (issue 28, item 1): an
operator finds the notes the agent wrote, opens one, promotes it to a rule (a refused wording first, with the
gate's reason in words), and lands on the new memory, which says where it came from. Screenshots at 1280 and
390 px go to var/screenshots/notes/."""

import re
from pathlib import Path

import pytest

from brain.api import agent_memory_get
from intelligence.services import ContextRequest, agent_context_open
from tests.browser import chromium_page
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent, write_note

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots" / "notes"
WIDTHS = (1280, 390)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, live_server, username):
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))


def shot(page, name, width):
    page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)


def no_page_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.parametrize("width", WIDTHS)
def test_an_operator_finds_the_agents_notes_and_promotes_one_to_a_rule(live_server, tenant, width):
    SHOTS.mkdir(parents=True, exist_ok=True)
    operator = make_member(tenant, Role.OPERATOR, username="olivia")
    agent = make_agent(tenant, name="Helpdesk bot", description="Answers customers by chat.")
    add_memory(agent, "Never promise a refund before the order is checked.")
    agent_context_open(
        agent=agent, request=ContextRequest(conversation="Can I get a call back?"), conversation_id="chat-12"
    )
    note = write_note(agent, "Bo prefers replies in Swedish.", run_id="run-77")
    write_note(
        agent,
        "Customers on the Pro plan expect a call back within four hours.",
        conversation_id="chat-12",
        mined=True,
    )

    with chromium_page(width=width, height=900) as page:
        sign_in(page, live_server, operator.username)
        page.goto(f"{live_server.url}/agents/{agent.pk}/")
        assert page.inner_text("[data-testid=notes-card] .stat") == "2"
        page.click("[data-testid=notes-tab]")
        page.wait_for_selector("[data-testid=notes-table]")
        row = page.inner_text(f"[data-testid=note-row-{note}]")
        assert "Bo prefers replies in Swedish." in row and "Remembered by the agent" in row
        assert "run-77" in row and "Never promise" not in page.inner_text("main")
        assert no_page_scroll(page)
        shot(page, "01-written-by-the-agent", width)

        page.select_option("#id_surface", "chat")
        page.click("form[role=search] button")
        page.wait_for_function(f"!document.querySelector('[data-testid=note-row-{note}]')")
        assert "Mined from a chat" in page.inner_text("[data-testid=notes-table]")
        # The conversation that wrote it is the agent's: linked to it on the Conversations page.
        link = page.locator("[data-testid=notes-table] a[href*='/conversations/#conversation-']")
        assert link.count() == 1 and "conversation" in link.inner_text()
        assert "1 note" in page.inner_text("[data-testid=notes-total]")

        page.goto(f"{live_server.url}/agents/{agent.pk}/notes/{note}/")
        assert page.input_value("#id_content") == "Bo prefers replies in Swedish."
        page.fill("#id_content", "https://acme.example.com/customers/bo")
        page.click("[data-testid=promote-form] button")
        page.wait_for_selector(".messages .error")
        assert "it is a bare web address, not a fact" in page.inner_text("[data-testid=promote-errors]")
        shot(page, "02-promote-refused", width)

        page.select_option("#id_category", "instruction")
        page.check("input[name=strength][value=hard_rule]")
        page.fill("#id_content", "Reply to Bo in Swedish.")
        page.click("[data-testid=promote-form] button")
        page.wait_for_selector(".messages .success")
        message = page.inner_text(".messages .success")
        assert "Promoted the note to" in message and "a rule (active" in message
        promoted = int(re.search(r"\[mem:(\d+)\]", message).group(1))
        assert f"[mem:{note}]" in page.inner_text("[data-testid=promoted-from]")
        assert no_page_scroll(page)
        shot(page, "03-promoted-rule", width)

        page.click("[data-testid=promoted-from] a")
        page.wait_for_selector("[data-testid=history-promoted]")
        assert f"Promoted to [mem:{promoted}]" in page.inner_text("[data-testid=history-promoted]")
        shot(page, "04-note-history", width)

    memory = agent_memory_get(tenant_id=tenant.pk, agent_id=agent.pk, memory_id=promoted)
    assert (memory.text, memory.strength, memory.status) == ("Reply to Bo in Swedish.", "hard_rule", "active")


def test_the_empty_view_at_both_widths(live_server, tenant):
    SHOTS.mkdir(parents=True, exist_ok=True)
    viewer = make_member(tenant, Role.VIEWER, username="victor")
    agent = make_agent(tenant, name="Quiet bot")
    for width in WIDTHS:
        with chromium_page(width=width, height=800) as page:
            sign_in(page, live_server, viewer.username)
            page.goto(f"{live_server.url}/agents/{agent.pk}/notes/")
            assert "has not written a note yet" in page.inner_text("[data-testid=notes-empty]")
            assert no_page_scroll(page)
            shot(page, "05-empty", width)
