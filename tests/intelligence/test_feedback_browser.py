"""The learning loop's operator side in a real headless Chromium, against a live server: an operator rates a
conversation down with a comment, the suggestion task runs, the suggestion appears in the queue, the operator
activates it and sees it in the budget preview; dismisses another, and it does not come back after more
feedback. Screenshots go to var/screenshots/feedback/."""

import re
from pathlib import Path

import pytest

from intelligence.models import ContextTrace, SuggestionRun
from intelligence.selectors import suggestion_count
from tests.browser import chromium_page
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent
from .feedback_helpers import conversation

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots" / "feedback"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REFUND = "Mention the 30-day refund window whenever a customer asks about returning an order."
TRACKING = "Send the parcel tracking link before apologising for a late delivery."
TRACKING_AGAIN = "Please send the parcel tracking link before apologising for any late delivery."


@pytest.fixture
def page(live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_page(width=1300, height=1000) as page:
        yield page


def shot(page, name):
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def rate_down(page, convo_id: int, comment: str) -> None:
    page.fill(f"[data-testid=comment-conversation-{convo_id}]", comment)
    page.click(f"[data-testid=down-conversation-{convo_id}]")
    page.wait_for_selector(".messages .success")
    assert f"Rated conversation {convo_id} thumbs down" in page.inner_text(".messages")


def test_operator_rates_down_activates_one_suggestion_and_dismisses_another(page, live_server, tenant):
    operator = make_member(tenant, Role.OPERATOR, username="olivia")
    # Threshold 1: each new rating starts a suggestion pass (eager Celery in tests: within the request).
    agent = make_agent(tenant, name="Helpdesk bot", learning_config={"suggestion_feedback_threshold": 1})
    rule = add_memory(agent, "Greet the customer by first name.")
    trace = ContextTrace.objects.create(
        tenant=tenant, agent=agent, sections={"hard_rule": {"memory_ids": [rule]}}, injected_memory_ids=[rule]
    )
    first = conversation(agent, title="Can I return my boots?", trace=trace)
    second = conversation(agent, title="My parcel is late")
    third = conversation(agent, title="Still no parcel")

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", operator.username)
    page.fill("#id_password", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))

    page.goto(f"{live_server.url}/agents/{agent.pk}/")
    assert page.inner_text("[data-testid=suggestion-count]") == "0"
    page.click("[data-testid=conversations-tab]")
    page.wait_for_selector(f"[data-testid=conversation-{first.pk}]")
    assert page.locator(f"[data-testid=chip-{rule}]").count() == 1
    shot(page, "01-conversations")

    rate_down(page, first.pk, REFUND)
    assert page.inner_text("[data-testid=suggestion-count]") == "1"
    shot(page, "02-rated-down")

    page.click("[data-testid=suggestions-tab]")
    suggestion = page.locator("[data-testid^=suggestion-text-]")
    assert suggestion.count() == 1 and suggestion.inner_text() == REFUND
    memory_id = int(suggestion.get_attribute("data-testid").rsplit("-", 1)[1])
    shot(page, "03-suggestion-queue")
    page.click(f"[data-testid=activate-{memory_id}]")
    page.wait_for_selector(".messages .success")
    assert f"Activated [mem:{memory_id}]" in page.inner_text(".messages")
    assert page.locator("[data-testid=queue-empty]").count() == 1

    page.click("[data-testid=context-tab]")
    page.fill("#id_conversation", "Hello, can I return an order? What is the refund window for returning it?")
    page.click("[data-testid=preview-form] button")
    page.wait_for_selector("[data-testid=preview-result]")
    assert f'[mem:{memory_id}] "{REFUND}"' in page.text_content("[data-testid=preview-result]")
    shot(page, "04-budget-preview")

    # Another suggestion, dismissed with a reason.
    page.click("[data-testid=conversations-tab]")
    rate_down(page, second.pk, TRACKING)
    page.click("[data-testid=suggestions-tab]")
    dismissed = int(
        page.locator("[data-testid^=suggestion-text-]").get_attribute("data-testid").rsplit("-", 1)[1]
    )
    page.fill(f"[data-testid=reason-{dismissed}]", "We cannot share tracking links.")
    page.click(f"[data-testid=dismiss-{dismissed}]")
    page.wait_for_selector(".messages .success")
    assert page.locator(f"[data-testid=dismissed-{dismissed}]").count() == 1
    shot(page, "05-dismissed")

    # More feedback saying (nearly) the same: the task runs, and the dismissed suggestion does not come back.
    page.click("[data-testid=conversations-tab]")
    rate_down(page, third.pk, TRACKING_AGAIN)
    assert page.inner_text("[data-testid=suggestion-count]") == "0"
    page.click("[data-testid=suggestions-tab]")
    assert page.locator("[data-testid=queue-empty]").count() == 1
    shot(page, "06-not-back")
    assert suggestion_count(agent) == 0
    last = SuggestionRun.objects.for_tenant(tenant).filter(agent=agent).first()
    assert last.outcomes == {"dismissed_before": 1}
