"""The API explains itself (issue 16): a schema grouped by tag with summaries, descriptions, examples and a
Getting started text; one error shape (`fields` always an object of lists); one paging rule on every list
(bad `limit` / `offset` → 400, a limit above the maximum clamped); one status for a gate rejection on every
write surface (422 `rejected`)."""

from __future__ import annotations

import re

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from config.openapi import TAGS
from config.openapi_examples import EXAMPLES
from intelligence.services import agent_memory_add, agent_memory_supersede
from tests.brain.factories import fact
from tests.conftest import make_member
from tests.intelligence.factories import add_memory, make_agent
from tickets import services as helpdesk
from tickets.tenancy.models import Role
from tickets.tenancy.services import api_key_create

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


# --- the schema -------------------------------------------------------------------------------------------


def test_every_operation_has_one_known_tag_a_summary_and_a_description(schema):
    names = [name for name, _ in TAGS]
    assert [t["name"] for t in schema["tags"]] == names
    seen = set()
    for path, method, op in operations(schema):
        assert len(op["tags"]) == 1 and op["tags"][0] in names, (path, method, op["tags"])
        assert op.get("summary") and op.get("description"), (path, method)
        seen.add(op["tags"][0])
    assert seen == set(names)


def test_the_schema_says_how_to_get_started(schema):
    text = schema["info"]["description"]
    assert "Getting started" in text
    for step in ("Authorization: Bearer", "POST /api/v1/tickets", "/context"):
        assert step in text


def test_the_agent_facing_calls_carry_examples(schema):
    by_id = {op["operationId"]: op for _, _, op in operations(schema)}
    assert set(EXAMPLES) <= set(by_id)
    for operation_id, examples in EXAMPLES.items():
        op = by_id[operation_id]
        if "request" in examples:
            assert op["requestBody"]["content"]["application/json"]["examples"], operation_id
        for status in examples.get("responses", {}):
            assert op["responses"][str(status)]["content"]["application/json"]["examples"], operation_id


# --- one error shape -----------------------------------------------------------------------------------------


def assert_error_shape(response, status=400):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert isinstance(error["fields"], dict) and error["fields"], error
    for name, messages in error["fields"].items():
        assert isinstance(messages, list) and messages, (name, messages)
        assert all(isinstance(m, str) and m for m in messages), (name, messages)
    return error


def test_fields_is_always_an_object_of_lists(api, tenant):
    agent = make_agent(tenant)
    bad = [
        api.get("/api/v1/client-brain/memories?type=bogus"),  # the finding: a string here
        api.get("/api/v1/client-brain/memories?status=bogus"),
        api.get("/api/v1/client-brain/copilot?q=" + "x" * 1200),
        api.get(f"/api/v1/agents/{agent.pk}/memories?strength=bogus"),
        api.post(f"/api/v1/agents/{agent.pk}/context", {"conversation": ""}, format="json"),
        api.post("/api/v1/brain/search", {"query": "x", "mode": "bogus"}, format="json"),
        api.post(
            "/api/v1/brain/chat-mine", {"conversation_id": "c", "messages": [{"role": 5}]}, format="json"
        ),
        api.post("/api/v1/tickets", {"external_id": ""}, format="json"),
        api.post("/api/v1/verdicts", {"verdict": "maybe"}, format="json"),
    ]
    for response in bad:
        assert_error_shape(response)


# --- one paging rule -----------------------------------------------------------------------------------------


@pytest.fixture
def two_of_everything(tenant, django_capture_on_commit_callbacks):
    """At least two rows in every list an API caller can page through."""
    agent, other = make_agent(tenant), make_agent(tenant, name="Second")
    first = add_memory(agent, "Always greet customers by their first name.")
    add_memory(agent, "Never promise a delivery date before the warehouse confirms it.")
    middle = agent_memory_supersede(
        agent=agent, memory_id=first, actor="process:test", text="Greet customers by first name, warmly."
    ).memory_id
    agent_memory_supersede(
        agent=agent, memory_id=middle, actor="process:test", text="Greet customers warmly by first name."
    )
    for n in (1, 2):
        ticket, _ = helpdesk.ticket_upsert(tenant=tenant, external_id=f"T-{n}", subject=f"Ticket {n}")
    for n in (1, 2):
        helpdesk.message_add(ticket=ticket, direction="inbound", body=f"Message {n}")
        helpdesk.classification_add(ticket=ticket, category="shipping", intent=f"intent_{n}")
        helpdesk.approval_record(ticket=ticket, proposed_action=f"Action {n}", decision="approved")
    with django_capture_on_commit_callbacks(execute=True):
        for n in (1, 2):
            helpdesk.ticket_upsert(tenant=tenant, external_id=f"T-{n}", status="solved")
    fact(tenant, "Acme ships within two working days.")
    fact(tenant, "Acme's warehouse closes at 5pm on Fridays.")
    make_member(tenant, Role.VIEWER, username="second-member")
    for name in ("first key", "second key"):
        api_key_create(tenant=tenant, name=name)
    return {"agent_pk": agent.pk, "external_id": ticket.external_id, "id": middle, "agent": other}


def list_urls(schema, values):
    for path, method, op in operations(schema):
        names = {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
        if method == "get" and {"limit", "offset"} <= names:
            yield re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), path)


def admin_api(tenant, api_key):
    client = APIClient()
    client.force_login(make_member(tenant, Role.ADMIN, username="paging-admin"))
    return client


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=abc", "limit"),
        ("limit=0", "limit"),
        ("limit=-3", "limit"),
        ("offset=x", "offset"),
        ("offset=-1", "offset"),
    ],
)
def test_a_bad_limit_or_offset_is_a_400_on_every_list(
    schema, tenant, api_key, two_of_everything, query, field
):
    client = admin_api(tenant, api_key)
    urls = list(list_urls(schema, two_of_everything))
    assert len(urls) >= 10
    for url in urls:
        error = assert_error_shape(client.get(f"{url}?{query}"))
        assert set(error["fields"]) == {field}, url


def test_a_limit_above_the_maximum_is_clamped_on_every_list(
    schema, tenant, api_key, two_of_everything, settings
):
    settings.API_MAX_PAGE_SIZE = 1
    client = admin_api(tenant, api_key)
    for url in list_urls(schema, two_of_everything):
        response = client.get(f"{url}?limit=500")
        assert response.status_code == 200, (url, response.content)
        body = response.json()
        assert body["count"] >= 2 and len(body["results"]) == 1, url
        assert client.get(f"{url}?limit=1&offset=1").json()["results"] != body["results"], url


# --- one status for a gate rejection ------------------------------------------------------------------


def test_a_gate_rejection_answers_422_rejected_on_every_write_surface(api, tenant):
    agent = make_agent(tenant)
    memory = add_memory(agent, "Always greet customers by their first name.")
    suggestion = agent_memory_add(
        agent=agent,
        actor="process:test",
        category="instruction",
        strength="preference",
        text="Mention the tracking page when customers ask where a parcel is.",
        source="suggested",
    ).memory_id
    url = "https://acme.example.com/orders/55"
    base = f"/api/v1/agents/{agent.pk}"
    writes = {
        "memory-append": (
            api.post,
            "/api/v1/brain/memory-append",
            {"agent_id": str(agent.pk), "text": url},
            "text",
        ),
        "lessons": (api.post, "/api/v1/brain/lessons", {"app_id": "shop", "template": url}, "template"),
        "chat-mine": (
            api.post,
            "/api/v1/brain/chat-mine",
            {"conversation_id": "c", "messages": [{"role": "user", "content": f"Remember: {url}"}]},
            "messages",
        ),
        "add": (
            api.post,
            f"{base}/memories",
            {"content": url, "category": "instruction", "strength": "hard_rule"},
            "content",
        ),
        "edit": (api.patch, f"{base}/memories/{memory}", {"content": url}, "content"),
        "supersede": (api.post, f"{base}/memories/{memory}/supersede", {"content": url}, "content"),
        "activate": (api.post, f"{base}/suggestions/{suggestion}/activate", {"content": url}, "content"),
    }
    for surface, (send, path, body, field) in writes.items():
        error = assert_error_shape(send(path, body, format="json"), status=422)
        assert error["code"] == "rejected", surface
        assert error["fields"] == {field: ["bare_url"]}, (surface, error)


def test_a_duplicate_write_answers_the_memory_it_reinforced(api, tenant):
    agent = make_agent(tenant)
    body = {
        "content": "Always greet customers by their first name.",
        "category": "instruction",
        "strength": "hard_rule",
    }
    first = api.post(f"/api/v1/agents/{agent.pk}/memories", body, format="json")
    again = api.post(f"/api/v1/agents/{agent.pk}/memories", body, format="json")
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["result"] == "reinforced"
    assert again.json()["memory"]["id"] == first.json()["memory"]["id"]  # never `memory: null`
