"""The Conversations page (injected memories as [mem:ID] chips, response, thumbs up / down with a comment) and
the Suggestions queue (count badge, activate, edit then activate, dismiss with a reason); tenants never mix."""

import pytest
from django.urls import reverse

from brain.models import Memory
from intelligence.models import ContextTrace
from intelligence.selectors import feedback_history, suggestion_count
from intelligence.services import suggestions_generate
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent
from .feedback_helpers import NOW, conversation, rate, run
from .test_intelligence_tab import signed_in

pytestmark = pytest.mark.django_db

REFUND = "Mention the 30-day refund window when customers ask about returns."


@pytest.fixture
def operator(tenant):
    return signed_in(tenant)


@pytest.fixture
def agent(tenant):
    return make_agent(tenant, name="Helpdesk bot", learning_config={"suggestion_feedback_threshold": 2})


def _trace(agent, memory_ids, brand_ids=()):
    return ContextTrace.objects.create(
        tenant_id=agent.tenant_id,
        agent=agent,
        sections={"hard_rule": {"memory_ids": list(memory_ids)}, "brand": {"memory_ids": list(brand_ids)}},
        injected_memory_ids=[*memory_ids, *brand_ids],
    )


def _suggestion(agent) -> int:
    rate(agent, REFUND)
    rate(agent, REFUND)
    return suggestions_generate(agent=agent, now=NOW).memory_ids[0]


def test_conversations_page_shows_injected_memories_as_chips_and_the_response_gracefully_empty(
    operator, agent
):
    memory_id = add_memory(agent, "Never promise delivery dates.")
    convo = conversation(agent, title="Late parcel", trace=_trace(agent, [memory_id], brand_ids=[424242]))
    action_run = run(agent, summary="Pause campaign 7")
    page = operator.get(reverse("intelligence-conversations", args=[agent.pk])).content.decode()
    assert f'data-testid="conversation-{convo.pk}"' in page and "Late parcel" in page
    chip = (
        f'href="{reverse("intelligence-memory", args=[agent.pk, memory_id])}" data-testid="chip-{memory_id}"'
    )
    assert chip in page and f"[mem:{memory_id}]" in page
    assert "[mem:424242]" in page  # the Client Brain row, not linked to an agent memory page
    assert "no response recorded" in page
    assert f'data-testid="run-{action_run.pk}"' in page and "Pause campaign 7" in page


def test_an_operator_rates_a_conversation_down_with_a_comment_then_changes_it(operator, agent):
    convo = conversation(agent)
    url = reverse("intelligence-conversation-feedback", args=[agent.pk, convo.pk])
    response = operator.post(url, {"rating": "-1", "comment": "Forgot the refund window."}, follow=True)
    assert "Rated conversation" in response.content.decode()
    operator.post(url, {"rating": "1", "comment": ""})
    convo.refresh_from_db()
    assert (convo.feedback_rating, convo.feedback_comment) == (1, "")
    assert [h.rating for h in feedback_history(convo)] == [-1, 1]
    page = operator.get(reverse("intelligence-conversations", args=[agent.pk])).content.decode()
    assert f'data-testid="rating-conversation-{convo.pk}"' in page


def test_an_operator_rates_a_run(operator, agent):
    action_run = run(agent)
    operator.post(reverse("intelligence-run-feedback", args=[agent.pk, action_run.pk]), {"rating": "1"})
    action_run.refresh_from_db()
    assert action_run.feedback_rating == 1


@pytest.mark.parametrize("rating", ["", "0", "7", "up", "1.0", "01", "+1", " 1", "true"])
def test_a_bad_rating_is_refused_with_a_message(operator, agent, rating):
    convo = conversation(agent)
    url = reverse("intelligence-conversation-feedback", args=[agent.pk, convo.pk])
    response = operator.post(url, {"rating": rating, "comment": "x"}, follow=True)
    assert "The feedback was not saved: Must be 1" in response.content.decode()
    convo.refresh_from_db()
    assert convo.feedback_rating is None


def test_viewers_read_the_pages_but_cannot_rate_or_review(tenant, agent):
    viewer = signed_in(tenant, Role.VIEWER, username="viewer")
    convo = conversation(agent)
    memory_id = _suggestion(agent)
    assert viewer.get(reverse("intelligence-conversations", args=[agent.pk])).status_code == 200
    assert viewer.get(reverse("intelligence-suggestions", args=[agent.pk])).status_code == 200
    url = reverse("intelligence-conversation-feedback", args=[agent.pk, convo.pk])
    assert viewer.post(url, {"rating": "1"}).status_code == 403
    activate = reverse("intelligence-suggestion-activate", args=[agent.pk, memory_id])
    assert viewer.post(activate).status_code == 403
    assert suggestion_count(agent) == 1


def test_the_suggestions_queue_has_a_count_badge_and_activate_and_dismiss(operator, agent):
    first = _suggestion(agent)
    tab = operator.get(reverse("intelligence-tab", args=[agent.pk])).content.decode()
    assert 'data-testid="suggestion-count">1<' in tab
    page = operator.get(reverse("intelligence-suggestions", args=[agent.pk])).content.decode()
    assert f'data-testid="suggestion-{first}"' in page and REFUND in page and "conversation " in page
    # Dismissing needs a reason.
    dismiss = reverse("intelligence-suggestion-dismiss", args=[agent.pk, first])
    refused = operator.post(dismiss, {"reason": "  "}, follow=True).content.decode()
    assert "was not dismissed" in refused and suggestion_count(agent) == 1
    # Edit, then activate.
    edited = "Quote the 30-day refund window on every return question."
    operator.post(
        reverse("intelligence-suggestion-activate", args=[agent.pk, first]),
        {"content": edited, "category": "instruction", "strength": "hard_rule"},
    )
    memory = Memory.objects.for_tenant(agent.tenant).get(pk=first)
    assert (memory.text, memory.status, memory.source, memory.strength) == (
        edited,
        "active",
        "suggested",
        "hard_rule",
    )
    # A second suggestion, dismissed with a reason.
    tracking = "Give the parcel tracking link before apologising for a late delivery."
    rate(agent, tracking, now=NOW.replace(year=NOW.year + 1))
    rate(agent, tracking, now=NOW.replace(year=NOW.year + 1))
    second = suggestions_generate(agent=agent, now=NOW.replace(year=NOW.year + 1)).memory_ids[0]
    response = operator.post(
        reverse("intelligence-suggestion-dismiss", args=[agent.pk, second]),
        {"reason": "We have no tracking."},
        follow=True,
    ).content.decode()
    assert "it will not be suggested again" in response
    assert f'data-testid="dismissed-{second}"' in response and "We have no tracking." in response
    assert 'data-testid="queue-empty"' in response


def test_every_feedback_and_suggestion_view_is_tenant_isolated(tenant, other_tenant, agent):
    intruder = signed_in(other_tenant, Role.ADMIN, username="intruder")
    convo, action_run = conversation(agent), run(agent)
    memory_id = _suggestion(agent)
    gets = [
        reverse("intelligence-conversations", args=[agent.pk]),
        reverse("intelligence-suggestions", args=[agent.pk]),
    ]
    for url in gets:
        assert intruder.get(url).status_code == 404, url
    posts = [
        (reverse("intelligence-conversation-feedback", args=[agent.pk, convo.pk]), {"rating": "-1"}),
        (reverse("intelligence-run-feedback", args=[agent.pk, action_run.pk]), {"rating": "-1"}),
        (reverse("intelligence-suggestion-activate", args=[agent.pk, memory_id]), {}),
        (reverse("intelligence-suggestion-dismiss", args=[agent.pk, memory_id]), {"reason": "intruder"}),
    ]
    for url, body in posts:
        assert intruder.post(url, body).status_code == 404, url
    # Their own agent with our record ids: still not found.
    theirs = make_agent(other_tenant, name="Theirs")
    for url, body in [
        (reverse("intelligence-conversation-feedback", args=[theirs.pk, convo.pk]), {"rating": "-1"}),
        (reverse("intelligence-run-feedback", args=[theirs.pk, action_run.pk]), {"rating": "-1"}),
        (reverse("intelligence-suggestion-activate", args=[theirs.pk, memory_id]), {}),
        (reverse("intelligence-suggestion-dismiss", args=[theirs.pk, memory_id]), {"reason": "intruder"}),
    ]:
        assert intruder.post(url, body).status_code == 404, url
    # Another agent of the same tenant cannot rate this agent's conversation either.
    operator = signed_in(tenant)
    sibling = make_agent(tenant, name="Sibling")
    url = reverse("intelligence-conversation-feedback", args=[sibling.pk, convo.pk])
    assert operator.post(url, {"rating": "1"}).status_code == 404
    convo.refresh_from_db()
    action_run.refresh_from_db()
    assert convo.feedback_rating is None and action_run.feedback_rating is None
    assert suggestion_count(agent) == 1
