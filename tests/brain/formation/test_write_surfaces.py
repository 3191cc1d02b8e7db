"""The write surfaces for agents: memory-append, lessons, chat-mine — each passes through the one gate."""

import pytest
from django.urls import reverse

from brain.models import Memory, MemoryHistory, WriteSurface
from tests.loopback import LoopbackOpenAI

pytestmark = pytest.mark.django_db


def post(api, name, body):
    return api.post(reverse(name), body, format="json")


def agent(tenant, name: str) -> str:
    """The id of `tenant`'s agent called `name`, created on first use: agent write surfaces take only
    the caller's tenant's agents (issue 13)."""
    from intelligence.models import Agent
    from intelligence.services import agent_create

    found = Agent.objects.for_tenant(tenant).filter(name=name).first()
    return str((found or agent_create(tenant=tenant, name=name)).pk)


# --- memory-append ---------------------------------------------------------------------------------------


def test_memory_append_adds_a_note_in_the_agents_scope(api, tenant):
    response = post(
        api,
        "brain-memory-append",
        {
            "agent_id": agent(tenant, "agent-1"),
            "text": "Customer Bo wants replies in Swedish.",
            "run_id": "r1",
        },
    )
    assert response.status_code == 201, response.content
    outcome = response.json()["outcome"]
    assert outcome["result"] == "added"
    memory = Memory.objects.for_tenant(tenant).get(pk=outcome["memory_id"])
    assert (memory.scope_kind, memory.scope_id, memory.type, memory.surface) == (
        "agent",
        agent(tenant, "agent-1"),
        "note",
        "memory_append",
    )
    assert memory.provenance[0]["actor"].startswith("api-key:")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"name": "lookup_order", "arguments": {"id": 5}}', "json_blob"),
        ("I'm going to call the refund tool now.", "process_narration"),
        ("https://acme.example.com/orders/55", "bare_url"),
        ("Use API key sk-proj-a1B2c3D4e5F6g7H8i9J0kLmN for billing.", "secret"),
    ],
)
def test_memory_append_passes_through_the_gate(api, tenant, text, reason):
    response = post(api, "brain-memory-append", {"agent_id": agent(tenant, "agent-1"), "text": text})
    assert response.status_code == 422  # the rule of every write surface (config.rest.gate_rejected_response)
    assert response.json()["error"]["code"] == "rejected"
    assert response.json()["error"]["fields"] == {"text": [reason]}
    assert response.json()["outcome"] == {
        "result": "rejected",
        "memory_id": None,
        "reason": reason,
        "related_memory_id": None,
    }
    assert not Memory.objects.for_tenant(tenant).exists()
    assert MemoryHistory.objects.for_tenant(tenant).get().surface == WriteSurface.MEMORY_APPEND


def test_memory_append_rejects_an_echo_of_the_runs_injected_memories_and_system_prompt(api, tenant):
    injected = post(
        api,
        "brain-memory-append",
        {"agent_id": agent(tenant, "a"), "text": "Customer Bo wants replies in Swedish."},
    ).json()
    echo = post(
        api,
        "brain-memory-append",
        {
            "agent_id": agent(tenant, "b"),
            "text": "Customer Bo wants his replies in Swedish.",
            "injected_memory_ids": [injected["outcome"]["memory_id"]],
        },
    )
    assert echo.json()["outcome"]["reason"] == "echoes_injected_memory"
    restated = post(
        api,
        "brain-memory-append",
        {
            "agent_id": agent(tenant, "b"),
            "text": "Always be polite and concise with customers.",
            "system_prompt": "You are a helper. Always be polite and concise with customers.",
        },
    )
    assert restated.json()["outcome"]["reason"] == "restates_system_prompt"


def test_memory_append_reinforces_the_agents_own_recent_note(api, tenant):
    first = post(
        api,
        "brain-memory-append",
        {"agent_id": agent(tenant, "a"), "text": "Customer Bo wants replies in Swedish."},
    ).json()
    again = post(
        api,
        "brain-memory-append",
        {"agent_id": agent(tenant, "a"), "text": "Bo wants replies written in Swedish."},
    )
    assert again.status_code == 200
    assert again.json()["outcome"] == {
        "result": "reinforced",
        "memory_id": first["outcome"]["memory_id"],
        "reason": "duplicate_recent_note",
        "related_memory_id": first["outcome"]["memory_id"],
    }


@pytest.mark.parametrize("surface", ["brain-memory-append", "brain-chat-mine"])
def test_agent_write_surfaces_refuse_an_agent_that_does_not_exist_or_is_another_tenants(
    api, tenant, other_tenant, surface
):
    """Issue 13: an unknown agent_id, or another tenant's, answered 201 and stored a row under a scope
    that belongs to no agent of the caller. Now: 404, and nothing is written."""
    theirs = agent(other_tenant, "their agent")
    for agent_id in ("999999", "agent-1", theirs):
        body = {"agent_id": agent_id, "text": "Customer Bo wants replies in Swedish."}
        if surface == "brain-chat-mine":
            body = {"agent_id": agent_id, "conversation_id": "conv-1", "messages": TRANSCRIPT}
        response = post(api, surface, body)
        assert response.status_code == 404, response.content
        assert response.json()["error"]["code"] == "not_found"
    assert not Memory.objects.for_tenant(tenant).exists()
    assert not MemoryHistory.objects.for_tenant(tenant).exists()
    assert not Memory.objects.for_tenant(other_tenant).exists()


def test_memory_append_says_what_to_fix_on_a_bad_body(api):
    response = post(api, "brain-memory-append", {"text": "no agent"})
    assert response.status_code == 400
    assert "agent_id" in response.json()["error"]["fields"]


# --- lessons ---------------------------------------------------------------------------------------------


def test_a_lesson_is_rendered_from_its_template_and_added_in_the_apps_scope(api, tenant):
    body = {
        "app_id": "returns-app",
        "template": "When {situation}, {action}.",
        "values": {"situation": "a parcel arrives damaged", "action": "send a replacement before the refund"},
        "outcome": "success",
    }
    response = post(api, "brain-lessons", body)
    assert response.status_code == 201, response.content
    outcome = response.json()["outcome"]
    assert outcome["text"] == "When a parcel arrives damaged, send a replacement before the refund."
    memory = Memory.objects.for_tenant(tenant).get(pk=outcome["memory_id"])
    assert (memory.scope_kind, memory.scope_id, memory.type) == ("app", "returns-app", "lesson")
    assert memory.payload["values"]["situation"] == "a parcel arrives damaged"


@pytest.mark.parametrize(
    ("template", "values", "reason"),
    [
        ("When {situation}, {action}.", {"situation": "a parcel is late"}, "malformed_template"),
        ("When {situation, {action}.", {"situation": "x", "action": "y"}, "malformed_template"),
        ("When {situation}, {action}.", {"situation": "| late | parcel |", "action": "refund"}, "table_row"),
    ],
)
def test_lessons_pass_through_the_gate(api, tenant, template, values, reason):
    response = post(api, "brain-lessons", {"app_id": "a", "template": template, "values": values})
    assert response.status_code == 422 and response.json()["error"]["fields"] == {"template": [reason]}
    assert response.json()["outcome"]["reason"] == reason
    assert not Memory.objects.for_tenant(tenant).exists()
    assert MemoryHistory.objects.for_tenant(tenant).get().surface == WriteSurface.APP_LESSON


# --- chat-mine -------------------------------------------------------------------------------------------

TRANSCRIPT = [
    {"role": "user", "content": "Hi. I prefer email over phone calls. My account number is AC-4410."},
    {"role": "assistant", "content": "Let me check your order. I will now call the order tool."},
    {"role": "user", "content": "Remember: https://acme.example.com/orders/99"},
    {"role": "user", "content": "Please remember my password: Tr0ub4dor&3"},
]


def test_chat_mine_proposes_candidates_and_each_passes_through_the_gate(api, tenant):
    response = post(
        api,
        "brain-chat-mine",
        {"conversation_id": "conv-1", "agent_id": agent(tenant, "agent-9"), "messages": TRANSCRIPT},
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["miner"] == "local"
    results = {o["text"]: (o["result"], o["reason"]) for o in body["outcomes"]}
    assert results == {
        "The customer prefers email over phone calls.": ("added", "new_fact"),
        "The customer's account number is AC-4410.": ("added", "new_fact"),
        "Https://acme.example.com/orders/99.": ("rejected", "bare_url"),
        "My password: Tr0ub4dor&3.": ("rejected", "secret"),
    }
    rows = Memory.objects.for_tenant(tenant)
    assert {(m.scope_kind, m.scope_id, m.type, m.surface) for m in rows} == {
        ("agent", agent(tenant, "agent-9"), "chat", "chat")
    }
    assert all(m.provenance[0]["kind"] == "conversation" for m in rows)
    rejected = MemoryHistory.objects.for_tenant(tenant).filter(action="rejected")
    assert {(h.surface, h.reason) for h in rejected} == {("chat", "bare_url"), ("chat", "secret")}


def test_chat_mine_without_an_agent_keeps_memories_in_the_conversation_scope(api, tenant):
    response = post(api, "brain-chat-mine", {"conversation_id": "conv-2", "messages": TRANSCRIPT[:1]})
    assert {m.scope_kind + ":" + m.scope_id for m in Memory.objects.for_tenant(tenant)} == {
        "conversation:conv-2"
    }
    assert response.status_code == 201


def test_chat_mine_uses_the_llm_miner_when_configured_and_still_gates_it(api, tenant, settings):
    with LoopbackOpenAI() as server:
        server.chat_answers.append(
            {
                "candidates": [
                    {"text": "The customer runs a bakery in Lyon.", "key": "customer_business"},
                    {"text": "I will now look up the bakery's orders.", "key": ""},
                ]
            }
        )
        server.chat_answers.append(
            {"decision": "add", "target_id": None, "reason": "new"}
        )  # the judge's turn
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        response = post(api, "brain-chat-mine", {"conversation_id": "c", "messages": TRANSCRIPT[:1]})
    body = response.json()
    assert body["miner"] == "openai"
    assert [(o["result"], o["reason"]) for o in body["outcomes"]] == [
        ("added", "new"),
        ("rejected", "process_narration"),
    ]
    assert "chat_mine" not in str(server.requests[0]["body"]["messages"][1])  # the transcript goes as data
    assert "I prefer email" in server.requests[0]["body"]["messages"][1]["content"]


def test_chat_mine_requires_messages(api):
    response = post(api, "brain-chat-mine", {"conversation_id": "c", "messages": []})
    assert response.status_code == 400 and "messages" in response.json()["error"]["message"]


# --- neighbours ------------------------------------------------------------------------------------------


def test_a_memorys_neighbours_list_its_graph_relations(api, tenant):
    old = post(
        api,
        "brain-memory-append",
        {
            "agent_id": agent(tenant, "a"),
            "key": "hours",
            "text": "Support is open 9 to 5 on weekdays.",
            "run_id": "r1",
        },
    )
    new = post(
        api,
        "brain-memory-append",
        {"agent_id": agent(tenant, "a"), "key": "hours", "text": "Support is now open 8 to 8 all week long."},
    )
    assert new.json()["outcome"]["result"] == "superseded"
    response = api.get(reverse("brain-memory-neighbours", kwargs={"pk": old.json()["outcome"]["memory_id"]}))
    assert response.status_code == 200
    relations = {(r["relation"], r["direction"], r["node_kind"]) for r in response.json()["results"]}
    assert relations >= {
        ("supersedes", "in", "memory"),
        ("derived_from", "out", "run"),
        ("about", "out", "topic"),
    }
    assert response.json()["count"] == len(response.json()["results"])


def test_neighbours_of_a_missing_memory_is_a_json_404(api):
    response = api.get(reverse("brain-memory-neighbours", kwargs={"pk": 999999}))
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_the_neighbours_list_has_a_query_count_guard(api, tenant, django_assert_max_num_queries):
    first = post(
        api,
        "brain-memory-append",
        {
            "agent_id": agent(tenant, "a"),
            "text": "Acme ships orders within two business days.",
            "run_id": "r0",
        },
    )
    memory_id = first.json()["outcome"]["memory_id"]
    for i, text in enumerate(
        [
            "Acme ships orders to Canada within five business days.",
            "Acme ships orders to Mexico within nine business days.",
            "Acme ships express orders within one business day.",
        ]
    ):
        post(
            api, "brain-memory-append", {"agent_id": agent(tenant, "a"), "text": text, "run_id": f"r{i + 1}"}
        )
        post(
            api,
            "brain-memory-append",
            {
                "agent_id": agent(tenant, "a"),
                "text": "Acme ships orders within two business days!",
                "run_id": f"x{i}",
            },
        )
    url = reverse("brain-memory-neighbours", kwargs={"pk": memory_id})
    with django_assert_max_num_queries(8):
        response = api.get(url)
    assert response.status_code == 200 and response.json()["count"] >= 6


def test_chat_mine_falls_back_to_the_local_miner_when_the_llm_fails(api, tenant, settings):
    with LoopbackOpenAI() as server:
        server.fail_next = 100
        server.chat_answers.append({"candidates": []})
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        response = post(api, "brain-chat-mine", {"conversation_id": "c", "messages": TRANSCRIPT[:1]})
    body = response.json()
    assert body["miner"] == "local_fallback"
    assert [o["text"] for o in body["outcomes"]] == [
        "The customer prefers email over phone calls.",
        "The customer's account number is AC-4410.",
    ]
