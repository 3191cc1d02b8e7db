"""Issue 28, items 3 and 4, in a real headless Chromium against a live server: an operator reads a
conversation's transcript and rates it beside it, opens a turn's trace and goes back to the conversation,
sees the Traces empty state's next step, and searches the Intelligence tab and the Client Brain page with a
typo. Screenshots at 1280 and 390 px wide go to var/screenshots/transcripts/ and var/screenshots/search/."""

import re
from pathlib import Path

import pytest

from intelligence.selectors import conversation_for_tenant
from intelligence.services import ContextRequest, agent_context_open, conversation_message_add
from tests.brain.factories import fact, issue
from tests.browser import chromium_page
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXCHANGES = [
    (
        "Customer: Hi, my parcel (order 48213377) has not arrived. The tracking page says nothing since Friday.",
        "Sorry about the wait, Ana. Here is your tracking link: the parcel left our warehouse on Thursday "
        "and the courier expects to deliver it tomorrow.",
    ),
    (
        "Customer: The link says it is stuck at the depot in Lyon since Monday. I need it for a trip on Saturday.",
        "I have escalated it with the courier and asked them to deliver before Saturday. You will hear from "
        "us today; if it cannot make it, we send a replacement by express at no cost.",
    ),
    ("Customer: Thanks, that works. Can I get a refund for the shipping fee?", ""),
]


@pytest.fixture
def page(live_server):
    with chromium_page(width=1280, height=900) as page:
        yield page


def shots(page, area: str, name: str) -> None:
    """The page at 1280 px and at 390 px wide (full height), then back to 1280."""
    folder = SHOTS / area
    folder.mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
        # Nothing may be wider than the window (a table or a long word pushing the page sideways).
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{name} at {width} px scrolls sideways by {overflow} px"
    page.set_viewport_size({"width": 1280, "height": 900})


def sign_in(page, live_server, tenant, role=Role.OPERATOR, username="olivia"):
    user = make_member(tenant, role, username=username)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))


def chat(agent) -> tuple[int, list[int]]:
    """A three-turn conversation as an agent makes it: a context call per turn, the replies it posts."""
    traces = []
    conversation_id = None
    for asked, reply in EXCHANGES:
        _, _, trace, record = agent_context_open(
            agent=agent, request=ContextRequest(conversation=asked), conversation_id="chat-ana-1"
        )
        conversation_id, traces = record.id, [*traces, trace.pk]
        if reply:
            conversation = conversation_for_tenant(agent.tenant_id, record.id)
            conversation_message_add(conversation=conversation, text=reply, trace_id=trace.pk)
    return conversation_id, traces


def test_operator_reads_a_transcript_rates_it_and_follows_its_traces(page, live_server, tenant):
    agent = make_agent(tenant, name="Support assistant", description="Answers customer tickets.")
    add_memory(agent, "Share the parcel tracking link before apologising for a late delivery.")
    add_memory(agent, "Never promise a refund before the billing team has confirmed it.")
    conversation_id, traces = chat(agent)
    sign_in(page, live_server, tenant)

    page.goto(f"{live_server.url}/agents/{agent.pk}/conversations/")
    row = page.locator(f"[data-testid=conversation-{conversation_id}]")
    assert "my parcel (order 48213377) has not arrived" in row.inner_text()  # named by its first message
    assert "Can I get a refund for the shipping fee?" in row.inner_text()
    shots(page, "transcripts", "conversations")

    page.click(f"[data-testid=open-conversation-{conversation_id}]")
    page.wait_for_selector("[data-testid=transcript]")
    asked = page.locator("[data-testid=transcript] [data-testid=asked]").all_inner_texts()
    assert len(asked) == 3 and "depot in Lyon" in asked[1]
    assert (
        "no response recorded"
        in page.locator("[data-testid=transcript] [data-testid=reply]").nth(2).inner_text()
    )
    page.fill(f"[data-testid=comment-conversation-{conversation_id}]", "Should not hint at a refund.")
    page.click(f"[data-testid=down-conversation-{conversation_id}]")
    page.wait_for_selector(".messages .success")
    assert f"/conversations/{conversation_id}/" in page.url  # back on the conversation it rated
    assert "thumbs down" in page.inner_text("[data-testid=feedback-card]")
    shots(page, "transcripts", "conversation")

    page.click(f"[data-testid=trace-link-{traces[1]}]")
    page.wait_for_selector("[data-testid=trace-served]")
    assert "depot in Lyon" in page.inner_text("[data-testid=trace-asked]")
    assert "escalated it with the courier" in page.inner_text("[data-testid=trace-reply]")
    shots(page, "transcripts", "trace")
    page.click("[data-testid=served-link]")
    page.wait_for_selector("[data-testid=transcript]")
    assert f"/conversations/{conversation_id}/" in page.url

    page.goto(f"{live_server.url}/agents/{agent.pk}/traces/")
    assert "depot in Lyon" in page.inner_text(f"[data-testid=trace-{traces[1]}-asked]")
    shots(page, "transcripts", "traces")


def test_the_traces_empty_state_says_how_an_agent_creates_a_trace(page, live_server, tenant):
    agent = make_agent(tenant, name="Support assistant")
    sign_in(page, live_server, tenant, Role.ADMIN, username="ada")
    page.goto(f"{live_server.url}/agents/{agent.pk}/traces/")
    empty = page.inner_text("[data-testid=traces-empty]")
    assert f"/api/v1/agents/{agent.pk}/context" in empty and "conversation_id" in empty
    assert page.locator("[data-testid=traces-empty] a", has_text="Create an API key").count() == 1
    shots(page, "transcripts", "traces-empty")


def test_operator_searches_with_a_typo_on_both_pages(page, live_server, tenant):
    agent = make_agent(tenant, name="Support assistant")
    parcel = add_memory(agent, "Tickets about late parcels usually resolve once a tracking link is shared.")
    add_memory(
        agent, "Prefer short answers with one clear next step for delivery questions.", strength="preference"
    )
    draft = add_memory(agent, "A parcel lost in transit is replaced after ten working days.", status="draft")
    warranty = fact(tenant, "We offer a two-year warranty on all tent poles and frames.")
    fact(tenant, "Orders ship from the Lyon warehouse within one business day.")
    issue(tenant, "Parcel stuck at the courier's depot", "Escalate the parcel with the courier")
    sign_in(page, live_server, tenant)

    page.goto(f"{live_server.url}/agents/{agent.pk}/")
    page.fill("input[name=q]", "parcle")
    page.click("form[role=search] button")
    page.wait_for_selector("[data-testid=search-result]")
    assert page.locator(f"[data-testid=memory-row-{parcel}]").count() == 1
    assert page.input_value("input[name=q]") == "parcle"
    page.select_option("#id_status", "draft")
    page.click("form[role=search] button")
    page.wait_for_function(
        "document.querySelector('[data-testid=search-result]').textContent.includes('filters')"
    )
    assert page.locator("[data-testid^=memory-row-]").count() == 1
    assert page.locator(f"[data-testid=memory-row-{draft}]").count() == 1
    page.select_option("#id_status", "")
    page.click("form[role=search] button")
    page.wait_for_function(
        "!document.querySelector('[data-testid=search-result]').textContent.includes('filters')"
    )
    shots(page, "search", "intelligence-tab")

    page.goto(f"{live_server.url}/insights/analytics/client-brain/")
    page.fill("#cb-search", "waranty")
    page.click("[data-testid=search-form] button")
    page.wait_for_selector("[data-testid=search-result]")
    assert page.locator(f"tr[data-id='{warranty.pk}']").count() == 1
    assert page.locator("tr[data-id]").count() == 1
    assert page.input_value("#cb-search") == "waranty"
    shots(page, "search", "client-brain")
    page.click("[data-testid=type-filter] a:has-text('Process')")
    page.wait_for_selector("[data-testid=empty]")
    assert "No row matches “waranty” among current process rows" in page.inner_text("[data-testid=empty]")
    assert page.input_value("#cb-search") == "waranty"
    shots(page, "search", "client-brain-empty")
