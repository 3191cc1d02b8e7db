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


def _inside(page, selector, width) -> bool:
    """Whether every element `selector` finds is shown and lies within the viewport's width."""
    boxes = page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right, r.width]; })",
    )
    return bool(boxes) and all(left >= -1 and right <= width + 1 and w > 0 for left, right, w in boxes)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_intelligence_table_and_add_memory_fit_the_screen(live_server, tenant, width):
    """Issue 28, item 8: the Intelligence tab's memory table is usable at 390 px (each memory a card: no table
    wider than the phone to scroll sideways), its text and status menu on screen; item 6: Add Memory offers a
    knowledge agent the provider and campaign scopes, with the note on a rule's narrow scope. Screenshots at
    1280 and 390 px in var/screenshots/intelligence-<width>/."""
    shots = SHOTS.parent / f"intelligence-{width}"
    shots.mkdir(parents=True, exist_ok=True)
    operator = make_member(tenant, Role.OPERATOR, username="olivia")
    agent = make_agent(tenant, name="Helpdesk", kind="knowledge", description="Answers customers.")
    memories = [
        add_memory(
            agent,
            "Never promise a refund before the warehouse has confirmed the parcel is back; say it is being checked.",
            tags=["refunds", "warehouse"],
        ),
        add_memory(agent, "Customers on the Pro plan get a reply within four hours.", strength="preference"),
        add_memory(
            agent,
            "Quote Meta ad spend excluding VAT.",
            strength="heuristic",
            provider="meta_ads",
            campaign_ids=["spring-2026", "summer-2026"],
            status="draft",
        ),  # fmt: skip
    ]
    with chromium_page(width=width, height=900) as page:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", operator.username)
        page.fill("#id_password", "pw-for-tests-1")
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r"/$"))
        page.goto(f"{live_server.url}/agents/{agent.pk}/")
        page.wait_for_selector("table.memories")
        page.screenshot(path=str(shots / "01-intelligence-tab.png"), full_page=True)
        page.locator("#memories").screenshot(path=str(shots / "01-memories-table.png"))
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
        assert page.evaluate("document.querySelector('table.memories').scrollWidth") <= width + 1
        assert _inside(page, "table.memories .mem-text", width)
        assert _inside(page, "table.memories .status-menu select", width)
        assert _inside(page, "table.memories .status-menu button", width)
        for memory_id in memories:
            assert page.is_visible(f"[data-testid=status-{memory_id}]")
        if width == 390:  # the column names go with each value in a card
            label = page.evaluate(
                "getComputedStyle(document.querySelector("
                f"'[data-testid=memory-row-{memories[0]}] td[data-label=Status]'), '::before').content"
            )
            assert label == '"Status"'

        page.click("[data-testid=add-memory-link]")
        page.wait_for_selector("[data-testid=add-memory-form]")
        assert page.is_visible("#id_provider") and page.is_visible("#id_campaign_ids")
        assert "only where its scope matches" in page.inner_text("[data-testid=rule-scope-note]")
        page.screenshot(path=str(shots / "02-add-memory-knowledge-agent.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
