"""REST for agent memories: create through the gate, filter, edit, status, supersede; errors are 4xx JSON."""

import pytest
from django.urls import reverse

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent(tenant):
    return make_agent(tenant)


def url(name, agent, **kw):
    return reverse(name, kwargs={"agent_pk": agent.pk, **kw})


def test_create_defaults_to_draft_and_manual(api, agent):
    response = api.post(
        url("agent-memory-list", agent),
        {
            "category": "instruction",
            "strength": "hard_rule",
            "content": "Always confirm the order number first.",
            "provider": "meta_ads",
            "campaign_ids": ["c1"],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    memory = response.json()["memory"]
    assert (memory["status"], memory["source"], memory["provider"], memory["campaign_ids"]) == (
        "draft",
        "manual",
        "meta_ads",
        ["c1"],
    )
    assert memory["tag"] == f"[mem:{memory['id']}]"


def test_create_rejected_by_the_gate_is_a_422_with_the_reason(api, agent):
    response = api.post(
        url("agent-memory-list", agent),
        {"category": "fact", "strength": "hard_rule", "content": "ok"},
        format="json",
    )
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "rejected" and error["fields"]["content"]


def test_bad_choices_are_400_with_fields(api, agent):
    response = api.post(
        url("agent-memory-list", agent),
        {"category": "rumour", "strength": "always", "content": "Some content here."},
        format="json",
    )
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"category", "strength"}
    assert api.get(url("agent-memory-list", agent), {"status": "bogus"}).status_code == 400


def test_list_filters_and_paginates(api, agent):
    rule = add_memory(agent, "Never share internal ticket notes with customers.")
    add_memory(
        agent,
        "Customers like emoji-free replies.",
        strength="preference",
        category="preference",
        status="draft",
    )
    data = api.get(url("agent-memory-list", agent), {"strength": "hard_rule"}).json()
    assert [m["id"] for m in data["results"]] == [rule] and data["count"] == 1
    page = api.get(url("agent-memory-list", agent), {"limit": 1}).json()
    assert page["count"] == 2 and len(page["results"]) == 1


def test_status_edit_and_supersede(api, agent):
    memory_id = add_memory(agent, "Escalate chargebacks to the finance team.", status="draft")
    activated = api.post(url("agent-memory-status", agent, pk=memory_id), {"status": "active"}, format="json")
    assert activated.json()["status"] == "active"
    assert (
        api.post(
            url("agent-memory-status", agent, pk=memory_id), {"status": "superseded"}, format="json"
        ).status_code
        == 400
    )
    edited = api.patch(url("agent-memory-detail", agent, pk=memory_id), {"tags": ["finance"]}, format="json")
    assert edited.status_code == 200 and edited.json()["tags"] == ["finance"]
    superseded = api.post(
        url("agent-memory-supersede", agent, pk=memory_id),
        {"content": "Escalate chargebacks to the finance team within one hour."},
        format="json",
    )
    assert superseded.status_code == 201, superseded.content
    new_id = superseded.json()["memory"]["id"]
    detail = api.get(url("agent-memory-detail", agent, pk=memory_id)).json()
    assert detail["status"] == "superseded" and detail["superseded_by_id"] == new_id
    assert detail["chain"] == [memory_id, new_id]


def test_edit_rejected_by_the_gate_changes_nothing(api, agent):
    memory_id = add_memory(agent, "Refunds over 100 euros need a manager.")
    response = api.patch(url("agent-memory-detail", agent, pk=memory_id), {"content": "x"}, format="json")
    assert response.status_code == 422
    assert (
        api.get(url("agent-memory-detail", agent, pk=memory_id)).json()["content"]
        == "Refunds over 100 euros need a manager."
    )


def test_memory_of_another_agent_is_not_found(api, tenant, agent):
    other_agent = make_agent(tenant, name="Other agent")
    memory_id = add_memory(other_agent, "Only the other agent knows this fact.")
    assert api.get(url("agent-memory-detail", agent, pk=memory_id)).status_code == 404
    assert (
        api.post(
            url("agent-memory-status", agent, pk=memory_id), {"status": "archived"}, format="json"
        ).status_code
        == 404
    )


def test_editing_a_rule_into_another_rules_text_is_refused_and_the_rule_is_injected_once(api, agent):
    """Issue 13.5: an edit runs the same duplicate check as an add (promote's backstop)."""
    kept = add_memory(agent, "Never share internal ticket notes with customers.")
    edited = add_memory(agent, "Always confirm the order number before a refund.")
    response = api.patch(
        url("agent-memory-detail", agent, pk=edited),
        {"content": "Never share internal ticket notes with customers."},
        format="json",
    )
    assert response.status_code == 422, response.content
    assert response.json()["error"]["fields"]["content"] == ["backstop_duplicate"]
    assert (
        api.get(url("agent-memory-detail", agent, pk=edited)).json()["content"]
        == "Always confirm the order number before a refund."
    )
    context = api.post(
        reverse("agent-context", kwargs={"agent_pk": agent.pk}),
        {"conversation": "Can you share the notes on my ticket?"},
        format="json",
    ).json()
    rules = next(s for s in context["sections"] if s["name"] == "hard_rule")
    assert sorted(rules["memory_ids"]) == sorted([kept, edited])
    assert rules["text"].count("Never share internal ticket notes with customers.") == 1


def test_editing_a_memorys_own_wording_is_not_a_duplicate_of_itself(api, agent):
    memory_id = add_memory(agent, "Never share internal ticket notes with customers.")
    response = api.patch(
        url("agent-memory-detail", agent, pk=memory_id),
        {"content": "Never share internal ticket notes with any customer."},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["content"] == "Never share internal ticket notes with any customer."


def test_a_superseded_memory_cannot_be_reactivated_over_rest(api, agent):
    """Issue 13.7: the REST status endpoint refuses what the UI refuses (one rule, in the service)."""
    old_id = add_memory(agent, "Target CPA is 40 euros for the spring campaign.")
    superseded = api.post(
        url("agent-memory-supersede", agent, pk=old_id),
        {"content": "Target CPA is 35 euros for the spring campaign."},
        format="json",
    )
    new_id = superseded.json()["memory"]["id"]
    for status in ("active", "draft", "stale", "archived"):
        response = api.post(url("agent-memory-status", agent, pk=old_id), {"status": status}, format="json")
        assert response.status_code == 409, response.content
        assert response.json()["error"]["code"] == "superseded"
    old = api.get(url("agent-memory-detail", agent, pk=old_id)).json()
    assert (old["status"], old["superseded_by_id"]) == ("superseded", new_id)
    assert api.get(url("agent-memory-detail", agent, pk=new_id)).json()["status"] == "active"


def test_a_hidden_note_does_not_swallow_an_operators_rule(api, agent, tenant):
    """Issue 13: after an agent's memory-append of a sentence, an operator's Add Memory of the same sentence
    answered `{"result": "reinforced", "memory": null}`, pointing at a note the tab never shows and the
    runtime never injects. The rule is written, and linked to the note."""
    from brain.models import BrainEdge, GraphRelation

    sentence = "Refund requests above 200 euros need a team lead's approval."
    note = api.post(
        reverse("brain-memory-append"), {"agent_id": str(agent.pk), "text": sentence}, format="json"
    )
    assert note.json()["outcome"]["result"] == "added"
    note_id = note.json()["outcome"]["memory_id"]

    body = {"category": "instruction", "strength": "hard_rule", "content": sentence, "status": "active"}
    response = api.post(url("agent-memory-list", agent), body, format="json")

    assert response.status_code == 201, response.content
    data = response.json()
    assert data["result"] == "added" and data["memory"]["content"] == sentence
    listed = api.get(url("agent-memory-list", agent)).json()
    assert [m["id"] for m in listed["results"]] == [data["memory"]["id"]]
    assert (
        BrainEdge.objects.for_tenant(tenant)
        .filter(
            relation=GraphRelation.RELATED_TO,
            source__memory_id=data["memory"]["id"],
            target__memory_id=note_id,
        )
        .exists()
    )


def test_an_operators_rule_that_the_tab_shows_is_still_a_duplicate(api, agent):
    sentence = "Refund requests above 200 euros need a team lead's approval."
    body = {"category": "instruction", "strength": "hard_rule", "content": sentence, "status": "active"}
    first = api.post(url("agent-memory-list", agent), body, format="json").json()
    again = api.post(url("agent-memory-list", agent), body, format="json")
    assert again.json()["result"] == "reinforced"
    assert again.json()["memory"]["id"] == first["memory"]["id"]
