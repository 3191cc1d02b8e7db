"""REST for the suggestion queue: list with its count, activate (optionally edited), dismiss with a reason."""

import pytest

from brain.models import Memory
from intelligence.selectors import suggestion_count
from intelligence.services import suggestions_generate

from .factories import make_agent
from .feedback_helpers import NOW, rate

pytestmark = pytest.mark.django_db

REFUND = "Mention the 30-day refund window when customers ask about returns."


@pytest.fixture
def agent(tenant):
    return make_agent(tenant, learning_config={"suggestion_feedback_threshold": 2})


@pytest.fixture
def suggestion(agent):
    rate(agent, REFUND)
    rate(agent, REFUND)
    return suggestions_generate(agent=agent, now=NOW).memory_ids[0]


def test_rest_lists_the_queue_with_its_count(api, agent, suggestion):
    body = api.get(f"/api/v1/agents/{agent.pk}/suggestions").json()
    assert body["count"] == 1
    assert [(m["id"], m["content"], m["source"], m["status"]) for m in body["results"]] == [
        (suggestion, REFUND, "suggested", "draft")
    ]


def test_rest_activate_keeps_the_source_suggested(api, agent, suggestion):
    response = api.post(f"/api/v1/agents/{agent.pk}/suggestions/{suggestion}/activate", {}, format="json")
    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["source"]) == ("active", "suggested")
    again = api.post(f"/api/v1/agents/{agent.pk}/suggestions/{suggestion}/activate", {}, format="json")
    assert again.status_code == 404 and "waiting for review" in again.json()["error"]["message"]


def test_rest_edit_then_activate_and_a_gate_refusal(api, agent, suggestion):
    url = f"/api/v1/agents/{agent.pk}/suggestions/{suggestion}/activate"
    refused = api.post(url, {"content": "https://example.com"}, format="json")
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "rejected"
    assert suggestion_count(agent) == 1
    bad = api.post(url, {"strength": "mighty"}, format="json")
    assert bad.status_code == 400 and "strength" in bad.json()["error"]["fields"]
    done = api.post(
        url, {"content": "Quote the 30-day refund window on returns.", "strength": "hard_rule"}, format="json"
    )
    assert done.status_code == 200
    assert (done.json()["content"], done.json()["strength"], done.json()["status"]) == (
        "Quote the 30-day refund window on returns.",
        "hard_rule",
        "active",
    )


def test_rest_dismiss_needs_a_reason(api, agent, suggestion):
    url = f"/api/v1/agents/{agent.pk}/suggestions/{suggestion}/dismiss"
    missing = api.post(url, {}, format="json")
    assert missing.status_code == 400 and "reason" in missing.json()["error"]["fields"]
    too_long = api.post(url, {"reason": "x" * 501}, format="json")
    assert too_long.status_code == 400
    done = api.post(url, {"reason": "We do not promise refunds."}, format="json")
    assert done.status_code == 200 and done.json()["status"] == "archived"
    assert Memory.objects.for_tenant(agent.tenant).get(pk=suggestion).status == "archived"
    assert api.get(f"/api/v1/agents/{agent.pk}/suggestions").json()["count"] == 0


def test_rest_review_of_another_tenants_suggestion_is_a_404(other_api, other_tenant, agent, suggestion):
    theirs = make_agent(other_tenant, name="Theirs")
    for agent_pk in (agent.pk, theirs.pk):
        assert other_api.get(f"/api/v1/agents/{agent_pk}/suggestions").json().get("count", 0) == 0
        for action, body in (("activate", {}), ("dismiss", {"reason": "intruder"})):
            response = other_api.post(
                f"/api/v1/agents/{agent_pk}/suggestions/{suggestion}/{action}", body, format="json"
            )
            assert response.status_code == 404
            assert REFUND not in response.content.decode()
    assert other_api.get(f"/api/v1/agents/{agent.pk}/suggestions").status_code == 404
    assert suggestion_count(agent) == 1
