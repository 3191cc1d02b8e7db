"""The agent's own writes over REST (issue 28, item 1): a note written with memory-append or chat-mine is read
back through the agent's memory endpoints, never another agent's or tenant's, and stays as the agent wrote it."""

import pytest
from django.urls import reverse

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent(tenant):
    return make_agent(tenant)


def memories_url(agent, **kw):
    name = "agent-memory-detail" if "pk" in kw else "agent-memory-list"
    return reverse(name, kwargs={"agent_pk": agent.pk, **kw})


def remember(api, agent, text, **more):
    response = api.post(
        reverse("brain-memory-append"), {"agent_id": str(agent.pk), "text": text, **more}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()["outcome"]["memory_id"]


def test_a_remembered_note_is_read_back_by_the_memory_endpoint(api, agent):
    note_id = remember(api, agent, "Bo prefers replies in Swedish.", run_id="run-42")
    response = api.get(memories_url(agent, pk=note_id))
    assert response.status_code == 200, response.content
    note = response.json()
    assert (note["id"], note["content"], note["written_by"], note["surface"]) == (
        note_id,
        "Bo prefers replies in Swedish.",
        "agent",
        "memory_append",
    )
    assert note["strength"] == "context_note" and note["run_id"] == "run-42"
    assert note["chain"] == [note_id]


def test_the_list_reads_notes_with_written_by_agent_and_keeps_operator_memories_apart(api, agent):
    rule = add_memory(agent, "Never share internal ticket notes with customers.")
    note_id = remember(api, agent, "Bo prefers replies in Swedish.")
    mined = api.post(
        reverse("brain-chat-mine"),
        {
            "conversation_id": "chat-9",
            "agent_id": str(agent.pk),
            "messages": [{"role": "user", "content": "I prefer email over phone calls."}],
        },
        format="json",
    )
    assert mined.status_code == 201, mined.content
    mined_id = mined.json()["outcomes"][0]["memory_id"]

    default = api.get(memories_url(agent)).json()
    assert [m["id"] for m in default["results"]] == [rule]
    assert default["results"][0]["written_by"] == "operator"

    notes = api.get(memories_url(agent), {"written_by": "agent"}).json()
    assert notes["count"] == 2
    assert {m["id"]: m["surface"] for m in notes["results"]} == {note_id: "memory_append", mined_id: "chat"}
    assert {m["id"]: m["conversation_id"] for m in notes["results"]}[mined_id] == "chat-9"

    everything = api.get(memories_url(agent), {"written_by": "any"}).json()
    assert everything["count"] == 3
    assert api.get(memories_url(agent), {"written_by": "robot"}).status_code == 400


def test_another_agents_or_tenants_note_is_not_found(api, other_api, agent, tenant, other_tenant):
    note_id = remember(api, agent, "Bo prefers replies in Swedish.")
    sibling = make_agent(tenant, name="Other agent")
    assert api.get(memories_url(sibling, pk=note_id)).status_code == 404
    assert api.get(memories_url(sibling), {"written_by": "agent"}).json()["count"] == 0
    foreign = make_agent(other_tenant, name="Their agent")
    assert other_api.get(memories_url(agent, pk=note_id)).status_code == 404
    assert other_api.get(memories_url(foreign, pk=note_id)).status_code == 404


def test_a_note_is_kept_as_the_agent_wrote_it_edits_answer_409(api, agent):
    note_id = remember(api, agent, "Bo prefers replies in Swedish.")
    edit = api.patch(memories_url(agent, pk=note_id), {"content": "Bo prefers English."}, format="json")
    assert edit.status_code == 409, edit.content
    assert edit.json()["error"]["code"] == "written_by_agent"
    assert "promote" in edit.json()["error"]["message"].lower()
    status_url = reverse("agent-memory-status", kwargs={"agent_pk": agent.pk, "pk": note_id})
    assert api.post(status_url, {"status": "archived"}, format="json").status_code == 409
    assert api.get(memories_url(agent, pk=note_id)).json()["content"] == "Bo prefers replies in Swedish."


def test_the_notes_list_is_bounded_in_queries(api, agent, django_assert_max_num_queries):
    for i in range(5):
        remember(api, agent, f"Customer number {i} prefers a call back on Mondays at {i + 8} o'clock.")
    with django_assert_max_num_queries(8):
        data = api.get(memories_url(agent), {"written_by": "agent"}).json()
    assert data["count"] == 5


def test_a_note_is_promoted_to_a_rule_over_rest(api, other_api, agent):
    note_id = remember(api, agent, "Bo prefers replies in Swedish.")
    promote_url = reverse("agent-memory-promote", kwargs={"agent_pk": agent.pk, "pk": note_id})
    assert (
        other_api.post(promote_url, {"category": "fact", "strength": "hard_rule"}, format="json").status_code
        == 404
    )
    refused = api.post(
        promote_url,
        {"category": "fact", "strength": "hard_rule", "content": "https://acme.example.com/x"},
        format="json",
    )
    assert refused.status_code == 422 and refused.json()["error"]["fields"]["content"]
    assert (
        api.post(promote_url, {"category": "fact", "strength": "context_note"}, format="json").status_code
        == 400
    )

    response = api.post(promote_url, {"category": "instruction", "strength": "hard_rule"}, format="json")
    assert response.status_code == 201, response.content
    memory = response.json()["memory"]
    assert (memory["content"], memory["strength"], memory["status"], memory["written_by"]) == (
        "Bo prefers replies in Swedish.",
        "hard_rule",
        "active",
        "operator",
    )
    note = api.get(memories_url(agent, pk=note_id)).json()
    assert note["promoted_to_ids"] == [memory["id"]]
    operator_memory_url = reverse("agent-memory-promote", kwargs={"agent_pk": agent.pk, "pk": memory["id"]})
    assert (
        api.post(
            operator_memory_url, {"category": "fact", "strength": "hard_rule"}, format="json"
        ).status_code
        == 404
    )
