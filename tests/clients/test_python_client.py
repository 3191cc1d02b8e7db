"""The Python client `brain_client` (clients/python) against the real server on loopback (live_server).

Every operation of the OpenAPI schema an agent key may call is exercised through the client here, and the
test checks the calls the client sent against the schema: a new endpoint without a client method, or a
method whose path drifted from the server's, fails `test_the_client_covers_every_operation_an_agent_key_may_call`.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import brain_client
import pytest
from brain_client import AsyncBrain, Brain, covered_operations
from brain_client._transport import Call
from django.core.cache import cache
from rest_framework.settings import api_settings

from intelligence.services import agent_memory_add
from tests.brain.factories import fact
from tests.conftest import REPO
from tickets.tenancy import services
from tickets.tenancy.authentication import ApiKeyRateThrottle

pytestmark = pytest.mark.django_db(transaction=True)

# Operations of the schema an agent key cannot usefully call, each with the reason the test checks.
ADMIN_ONLY = {  # keys never carry the admin role: 403 for every key
    "v1_members_list": ("GET", "/members"),
    "v1_api_keys_list": ("GET", "/api-keys"),
}
ADMIN_ONLY_PREFIXES = ("v1_members_", "v1_api_keys_")
SUSPENDED = {  # the spec suspends Client Brain mutation, reset, pruning, contribution and bootstrap: 405
    "v1_client_brain_bootstrap_create": ("POST", "/client-brain/bootstrap"),
    "v1_client_brain_contribute_create": ("POST", "/client-brain/contribute"),
    "v1_client_brain_memories_create": ("POST", "/client-brain/memories"),
    "v1_client_brain_memories_update": ("PUT", "/client-brain/memories/{row}"),
    "v1_client_brain_memories_partial_update": ("PATCH", "/client-brain/memories/{row}"),
    "v1_client_brain_memories_destroy": ("DELETE", "/client-brain/memories/{row}"),
    "v1_client_brain_memories_reset_create": ("POST", "/client-brain/memories/reset"),
    "v1_client_brain_memories_reset_destroy": ("DELETE", "/client-brain/memories/reset"),
    "v1_client_brain_prune_create": ("POST", "/client-brain/prune"),
}


def schema_operations() -> dict[str, tuple[str, re.Pattern]]:
    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--format", "openapi-json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={**__import__("os").environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"},
    )
    schema = json.loads(result.stdout)
    operations = {}
    for path, methods in schema["paths"].items():
        pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path.removeprefix("/api/v1")) + "$")
        for method, op in methods.items():
            operations[op["operationId"]] = (method.upper(), pattern)
    return operations


class RecordingBrain(Brain):
    """The real client, remembering each call it sent (method and path) for the coverage check."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sent: list[tuple[str, str]] = []

    def _send(self, call: Call):
        self.sent.append((call.method, call.path))
        return super()._send(call)


def operator_key(tenant, name="agent") -> str:
    return services.api_key_create(tenant=tenant, name=name)[1]


def tour(brain: Brain, tenant) -> int:
    """Every agent-facing operation once, checking each answer's substance."""
    assert brain.tenant()["slug"] == tenant.slug

    agent = brain.create_agent(name="Support", kind="knowledge")
    assert brain.get_agent(agent["id"])["name"] == "Support"
    assert (
        brain.update_agent(agent["id"], description="Answers customers")["description"] == "Answers customers"
    )
    assert brain.replace_agent(agent["id"], name="Support desk", kind="knowledge")["name"] == "Support desk"
    ads = brain.create_agent(name="Ads", kind="action")
    assert {a["id"] for a in brain.iter_agents(page_size=1)} == {agent["id"], ads["id"]}
    assert brain.list_agents(kind="action")["count"] == 1

    added = brain.add_agent_memory(
        agent["id"],
        content="Always greet the customer by their first name.",
        category="instruction",
        strength="hard_rule",
        status="active",
    )
    memory_id = added["memory"]["id"]
    brain.add_agent_memory(
        agent["id"],
        content="Offer the loyalty discount code only to customers who ask about prices twice.",
        category="instruction",
        strength="preference",
        status="active",
    )
    assert brain.get_agent_memory(agent["id"], memory_id)["content"].startswith("Always greet")
    edited = brain.edit_agent_memory(agent["id"], memory_id, content="Always greet customers by first name.")
    assert edited["content"] == "Always greet customers by first name."
    assert brain.list_agent_memories(agent["id"], limit=1)["count"] == 2
    assert len(list(brain.iter_agent_memories(agent["id"], page_size=1))) == 2
    assert brain.set_agent_memory_status(agent["id"], memory_id, "stale")["status"] == "stale"
    newer = brain.supersede_agent_memory(
        agent["id"], memory_id, content="Greet customers by first name and sign with the team's name."
    )
    assert newer["result"] == "superseded"

    suggested = [
        agent_memory_add(
            agent=_agent(tenant, agent["id"]),
            actor="process:test",
            category="instruction",
            strength="preference",
            text=text,
            source="suggested",
        ).memory_id
        for text in (
            "Mention the order tracking page when customers ask where a parcel is.",
            "Suggest the express courier option for orders placed after the cut-off hour.",
        )
    ]
    assert {m["id"] for m in brain.list_suggestions(agent["id"])["results"]} == set(suggested)
    assert brain.activate_suggestion(agent["id"], suggested[0])["status"] == "active"
    assert (
        brain.dismiss_suggestion(agent["id"], suggested[1], reason="Not our policy")["status"] == "archived"
    )

    context = brain.agent_context(
        agent["id"], conversation="Hello, where is my parcel?", conversation_id="c-1"
    )
    assert "[mem:" in context["prompt"]
    conversation_id = context["conversation"]["id"]
    assert brain.add_conversation_message(conversation_id, "It ships today.", trace_id=context["trace_id"])
    rated = brain.rate_conversation(conversation_id, 1, comment="Clear and kind.")
    assert rated["feedback_rating"] == 1

    run = brain.agent_context(ads["id"], conversation="Raise the spring budget?", run_id="r-1")["run"]
    action = {
        "type": "budget_change",
        "payload": {"campaign": "spring-sale", "change_pct": 10},
        "recommendation": "Raise the spring-sale daily budget by 10 percent while its return stays above 3.",
    }
    pause = {**action, "payload": {"campaign": "winter-sale"}, "type": "pause_campaign"}
    pause["recommendation"] = "Pause the winter-sale campaign while its return stays below 1."
    recorded = brain.record_run_response(run["id"], "Raising it.", proposed_actions=[action, pause])
    first, second = (a["id"] for a in recorded["proposed_actions"])
    brain.approve_action(run["id"], first, reason="Fine")
    decided = brain.reject_action(run["id"], second, reason="Not in winter")
    assert [a["status"] for a in decided["proposed_actions"]] == ["approved", "rejected"]
    assert brain.get_run(run["id"])["response_text"] == "Raising it."
    assert brain.record_run_outcome(run["id"], "success")["outcome"] == "success"
    assert brain.rate_run(run["id"], -1, comment="Too slow.")["feedback_rating"] == -1
    assert brain.report_verdict("pass", run_id=run["id"], response_text="Raising it.")["verdict"] == "pass"

    remembered = brain.remember(agent["id"], "The customer prefers email over phone calls.")["outcome"]
    assert remembered["result"] == "added"
    note = brain.get_agent_memory(agent["id"], remembered["memory_id"])
    assert (note["written_by"], note["surface"]) == ("agent", "memory_append")
    assert brain.list_agent_memories(agent["id"], written_by="agent")["count"] == 1
    promoted = brain.promote_note(agent["id"], note["id"], category="preference", strength="preference")
    assert promoted["result"] == "added" and promoted["memory"]["written_by"] == "operator"
    lesson = brain.record_lesson(
        "shopify", "Refunds over {amount} need a manager's approval.", values={"amount": "200 EUR"}
    )
    assert lesson["outcome"]["text"] == "Refunds over 200 EUR need a manager's approval."
    mined = brain.mine_chat(
        "chat-9",
        [
            {"role": "user", "content": "Please remember that our warehouse closes at 5pm on Fridays."},
            {"role": "assistant", "content": "Noted."},
        ],
        agent_id=agent["id"],
    )
    assert "outcomes" in mined
    found = brain.search("greet customers first name", limit=5)
    assert found["count"] >= 1
    assert (
        "[mem:" in brain.ask("How should I greet customers?")["answer"]
        or brain.ask("greet")["citations"] == []
    )
    assert isinstance(brain.memory_neighbours(memory_id)["results"], list)
    assert isinstance(list(brain.iter_memory_neighbours(memory_id)), list)

    row = fact(tenant, "Acme ships orders within two working days.")
    assert brain.get_client_brain_memory(row.pk)["id"] == row.pk
    assert [m["id"] for m in brain.iter_client_brain_memories(page_size=1)] == [row.pk]
    assert brain.list_client_brain_memories(type="business")["count"] == 1
    assert brain.client_brain_stats()
    assert brain.copilot("ships orders")["results"]
    assert brain.client_brain_context(subject="When will my order ship?", mode="initial")["sections"]

    ticket = brain.upsert_ticket("T 1", subject="Broken tent pole", status="open")
    assert ticket["external_id"] == "T 1"
    assert brain.update_ticket("T 1", requester="ana@example.com")["requester"] == "ana@example.com"
    assert brain.replace_ticket("T 1", subject="Tent pole snapped")["subject"] == "Tent pole snapped"
    brain.add_ticket_message("T 1", body="My tent pole snapped.", direction="inbound")
    assert brain.list_ticket_messages("T 1")["count"] == 1
    brain.add_ticket_classification("T 1", category="product_quality", intent="damaged_item")
    assert brain.list_ticket_classifications("T 1")["count"] == 1
    brain.add_ticket_approval("T 1", proposed_action="Send a replacement pole", decision="approved")
    assert brain.list_ticket_approvals("T 1")["count"] == 1
    assert brain.get_ticket("T 1")["subject"] == "Tent pole snapped"
    assert brain.set_ticket_status("T 1", "solved")["status"] == "solved"
    assert [t["external_id"] for t in brain.iter_tickets()] == ["T 1"]
    assert brain.list_tickets(status="solved")["count"] == 1
    attempts = brain.list_learning_attempts()
    assert attempts["count"] == 1
    assert brain.get_learning_attempt(attempts["results"][0]["id"])["ticket_external_id"] == "T 1"
    assert len(list(brain.iter_learning_attempts())) == 1
    return row.pk


def _agent(tenant, pk):
    from intelligence.models import Agent

    return Agent.objects.for_tenant(tenant).get(pk=pk)


def test_the_client_covers_every_operation_an_agent_key_may_call(live_server, tenant):
    operations = schema_operations()
    with RecordingBrain(live_server.url, operator_key(tenant)) as brain:
        row = tour(brain, tenant)
        for operation_id, (method, path) in {**ADMIN_ONLY, **SUSPENDED}.items():
            path = path.format(row=row)
            expected = brain_client.PermissionDenied if operation_id in ADMIN_ONLY else brain_client.Suspended
            with pytest.raises(expected):
                brain._send(Call(method, path, json={} if method != "GET" else None))
    agent_operations = {
        op for op in operations if not op.startswith(ADMIN_ONLY_PREFIXES) and op not in SUSPENDED
    }
    declared = covered_operations(Brain)
    assert set(declared) == agent_operations  # a method per operation, and no method for a missing one
    exercised = {
        op
        for method, path in brain.sent
        for op, (op_method, pattern) in operations.items()
        if op_method == method and pattern.match(path.split("?")[0])
    }
    assert agent_operations <= exercised, sorted(agent_operations - exercised)


def test_errors_are_typed_with_the_code_and_fields(live_server, tenant, other_tenant):
    mine = operator_key(tenant)
    theirs = operator_key(other_tenant, "intruder")
    with Brain(live_server.url, mine) as brain, Brain(live_server.url, theirs) as intruder:
        agent = brain.create_agent(name="Support")
        with pytest.raises(brain_client.NotFound) as missing:
            intruder.get_agent(agent["id"])  # another tenant's agent: the same 404 as a missing one
        assert missing.value.code == "not_found" and missing.value.status == 404
        with pytest.raises(brain_client.InvalidRequest) as bad:
            brain.add_agent_memory(agent["id"], content="", category="instruction", strength="bogus")
        assert set(bad.value.fields) >= {"content", "strength"}
        assert all(isinstance(v, list) for v in bad.value.fields.values())
        with pytest.raises(brain_client.GateRejected) as refused:
            brain.remember(agent["id"], "https://example.com/x")
        assert refused.value.code == "rejected" and refused.value.reason
    with (
        pytest.raises(brain_client.AuthenticationFailed),
        Brain(live_server.url, "brn_nope_nope") as anonymous,
    ):
        anonymous.tenant()


def _throttle(settings, rate: str) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"api_key": rate}}
    api_settings.reload()
    ApiKeyRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    cache.clear()


@pytest.fixture
def throttled(settings):
    _throttle(settings, "2/min")
    yield
    _throttle(settings, "100000/min")


def test_a_rating_other_than_the_number_1_or_minus_1_is_the_servers_400(live_server, tenant):
    """Issue 26: the string "1" was taken as a rating. The client sends what it is given; the server says what
    to send."""
    with Brain(live_server.url, operator_key(tenant)) as brain:
        agent = brain.create_agent(name="Support")
        context = brain.agent_context(agent["id"], conversation="Hello", conversation_id="c-1")
        conversation_id = context["conversation"]["id"]
        for rating in ("1", 0, 2, 1.0, None, True):
            with pytest.raises(brain_client.InvalidRequest) as refused:
                brain.rate_conversation(conversation_id, rating)
            assert refused.value.status == 400, rating
            assert "send the JSON number 1 or -1" in " ".join(refused.value.fields["rating"]), rating
    from intelligence.models import Conversation

    assert Conversation.objects.all_tenants().get(pk=conversation_id).feedback_rating is None


def test_429_is_retried_after_the_servers_retry_after(live_server, tenant, throttled):
    waits: list[float] = []

    def sleep(seconds: float) -> None:  # time passes: the throttle's window is over
        waits.append(seconds)
        cache.clear()

    with Brain(live_server.url, operator_key(tenant), sleep=sleep) as brain:
        assert [brain.tenant()["slug"] for _ in range(3)] == [tenant.slug] * 3
    assert len(waits) == 1 and 50 <= waits[0] <= 60  # DRF's Retry-After for a 2/min window


def test_429_raises_rate_limited_when_the_retries_run_out(live_server, tenant, throttled):
    waits: list[float] = []
    policy = brain_client.RetryPolicy(max_retries=2)
    with Brain(live_server.url, operator_key(tenant), sleep=waits.append, retry=policy) as brain:
        brain.tenant(), brain.tenant()
        with pytest.raises(brain_client.RateLimited) as limited:
            brain.tenant()
    assert len(waits) == 2 and limited.value.retry_after and limited.value.status == 429


def test_503_is_retried_with_backoff(live_server, tenant, settings):
    from tests.loopback import LoopbackOpenAI

    waits: list[float] = []
    fact(tenant, "Acme ships orders within two working days.")
    with LoopbackOpenAI() as provider:
        provider.chat_answers.append({"answer": "Within two working days.", "citations": []})
        provider.fail_next = 1
        settings.BRAIN_LLM_PROVIDER = provider.provider_settings()
        policy = brain_client.RetryPolicy(backoff=0.25)
        with Brain(live_server.url, operator_key(tenant), sleep=waits.append, retry=policy) as brain:
            brain.ask("How fast do you ship?")
    assert waits == [0.25]


def test_the_async_client_runs_the_same_operations_and_iterates(live_server, tenant):
    key = operator_key(tenant)

    async def main():
        async with AsyncBrain(live_server.url, key) as brain:
            for n in range(3):
                await brain.upsert_ticket(f"A-{n}", subject=f"Ticket {n}")
            ids = [t["external_id"] async for t in brain.iter_tickets(page_size=2)]
            with pytest.raises(brain_client.NotFound):
                await brain.get_ticket("missing")
            return ids, (await brain.tenant())["slug"]

    ids, slug = asyncio.run(main())
    assert sorted(ids) == ["A-0", "A-1", "A-2"] and slug == tenant.slug
