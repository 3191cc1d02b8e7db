"""The Intelligence tab in a real headless Chromium (Debian's, driven by Playwright), against a live server:
sign in, open an agent's Intelligence tab, add a memory through the form, activate it, see it in the budget
preview. Screenshots of each page go to var/screenshots/intelligence/."""

import re
from pathlib import Path

import pytest

from brain.api import agent_memory_list
from tests.browser import chromium_page
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots" / "intelligence"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_page(width=1300, height=1000) as page:
        yield page


def shot(page, name):
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_operator_adds_activates_and_previews_a_memory(page, live_server, tenant):
    operator = make_member(tenant, Role.OPERATOR, username="olivia")
    agent = make_agent(tenant, name="Ads optimiser", kind="action", description="Tunes paid campaigns.")
    add_memory(agent, "Report spend in euros, never in dollars.", category="instruction")
    add_memory(
        agent, "Meta campaigns learn for 7 days before changes.", strength="heuristic", provider="meta_ads"
    )
    add_memory(agent, "The client's fiscal year starts in April.", strength="context_note", category="fact")

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", operator.username)
    page.fill("#id_password", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))

    page.goto(f"{live_server.url}/agents/")
    shot(page, "01-agents")
    page.click("text=Ads optimiser")
    page.wait_for_selector("h2:has-text('Memories')")
    assert "Report spend in euros" in page.content()
    shot(page, "02-intelligence-tab")

    page.click("[data-testid=add-memory-link]")
    assert page.input_value("#id_status") == "draft"  # spec: typically start with draft
    assert page.is_checked("input[name=strength][value=heuristic]")  # the least aggressive useful strength
    page.select_option("#id_category", "instruction")
    page.check("input[name=strength][value=hard_rule]")
    page.fill("#id_content", "Never raise a daily budget by more than 20 percent at once.")
    page.fill("#id_tags", "budget")
    shot(page, "03-add-memory")
    page.click("[data-testid=add-memory-form] button")
    page.wait_for_selector(".messages .success")
    message = page.inner_text(".messages .success")
    memory_id = int(re.search(r"\[mem:(\d+)\]", message).group(1))
    assert page.inner_text(f"[data-testid=status-{memory_id}]") == "Draft"

    # Activate in place (the form is upgraded by the page's script; the URL stays the tab's).
    page.select_option(f"[data-testid=status-select-{memory_id}]", "active")
    page.click(f"[data-testid=status-apply-{memory_id}]")
    page.wait_for_function(
        f"document.querySelector('[data-testid=status-{memory_id}]').textContent.trim() === 'Active'"
    )
    assert f"Activated [mem:{memory_id}]" in page.inner_text(".messages")
    shot(page, "04-activated")
    active = agent_memory_list(tenant_id=tenant.pk, agent_id=agent.pk, status="active")
    assert memory_id in [m.id for m in active.items]

    page.click("[data-testid=context-tab]")
    page.fill("#id_conversation", "Can we double the budget of the spring campaign tomorrow?")
    page.click("[data-testid=preview-form] button")
    page.wait_for_selector("[data-testid=preview-result]")
    assert "conversation=" not in page.url  # POSTed, not in the query string
    rules = page.text_content("[data-testid=section-text-hard_rule]")
    assert f'[mem:{memory_id}] "Never raise a daily budget by more than 20 percent at once."' in rules
    assert page.locator(f"[data-testid=section-hard_rule] [data-testid=chip-{memory_id}]").count() == 1
    left_out = page.inner_text("[data-testid=left-out]")
    assert "scoped to another provider" in left_out  # the Meta-only pattern, with no provider given
    assert "never injected" in left_out
    shot(page, "05-budget-preview")

    page.goto(f"{live_server.url}/agents/{agent.pk}/memories/{memory_id}/")
    page.fill("#supersede textarea", "Never raise a daily budget by more than 15 percent at once.")
    page.click("#supersede button")
    page.wait_for_selector(".messages .success")
    assert f"[mem:{memory_id}] superseded by" in page.inner_text(".messages")
    assert page.locator(f"[data-testid=chain-{memory_id}]").count() == 1
    shot(page, "06-memory-chain")
