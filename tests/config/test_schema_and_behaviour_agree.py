"""The schema and the API agree about what is valid (issue 29, item 4): what schemathesis' data checks found,
one request each. "Invalid data accepted": a value the schema calls invalid must be a 400 that says what to
send. "Valid data rejected": a rule the API applies must be stated in the schema (GET /api/schema/), or a
refusal that depends on what is stored must not be a 400. tests/test_schema_fuzz.py runs both checks over
every operation."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from config.rest import MAX_OFFSET
from intelligence.learning import LEARNING_CONFIG_DEFAULTS
from intelligence.models import AgentRun
from intelligence.runtime import BUDGET_FIELDS
from tests.intelligence.factories import make_agent
from tickets import services as helpdesk

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def served_schema(django_db_blocker) -> dict:
    """The schema as GET /api/schema/ serves it."""
    with django_db_blocker.unblock():
        response = Client().get("/api/schema/?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def operations(schema: dict):
    for methods in schema["paths"].values():
        yield from methods.values()


def operation(schema: dict, operation_id: str) -> dict:
    return next(op for op in operations(schema) if op["operationId"] == operation_id)


def request_body(schema: dict, operation_id: str) -> dict:
    """The JSON request body's component of an operation."""
    ref = operation(schema, operation_id)["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]


def query_parameters(op: dict) -> dict[str, dict]:
    return {p["name"]: p["schema"] for p in op.get("parameters", []) if p["in"] == "query"}


def refused(response, field: str) -> str:
    """The 400's message for `field` (the envelope's `fields`)."""
    assert response.status_code == 400, response.content[:500]
    messages = response.json()["error"]["fields"][field]
    return " ".join(messages)


# --- invalid data accepted: a value of another JSON type ------------------------------------------------


@pytest.fixture
def ticket(tenant):
    return helpdesk.ticket_upsert(tenant=tenant, external_id="T-1", subject="Tent pole snapped")[0]


@pytest.mark.parametrize(
    ("method", "url", "body", "field", "wanted"),
    [
        ("post", "/api/v1/tickets", {"external_id": "T-2", "subject": 0}, "subject", "a string"),
        ("post", "/api/v1/tickets", {"external_id": 7}, "external_id", "a string"),
        ("post", "/api/v1/tickets/T-1/messages", {"direction": "inbound", "body": 0}, "body", "a string"),
        (
            "post",
            "/api/v1/tickets/T-1/messages",
            {"direction": "inbound", "body": "Hello", "is_note": 0},
            "is_note",
            "true or false",
        ),
        (
            "post",
            "/api/v1/brain/search",
            {"query": "refunds", "expand_graph": 1},
            "expand_graph",
            "true or false",
        ),
        (
            "post",
            "/api/v1/brain/ask",
            {"question": "refunds?", "mmr_lambda": False},
            "mmr_lambda",
            "a number",
        ),
        ("post", "/api/v1/brain/search", {"query": "refunds", "limit": "5"}, "limit", "a whole number"),
        ("post", "/api/v1/brain/search", {"query": "refunds", "limit": 5.0}, "limit", "a whole number"),
        (
            "post",
            "/api/v1/brain/lessons",
            {"app_id": "shop", "template": "When {s}, refund.", "values": {"s": 0}},
            "values",
            "a string",
        ),
        ("post", "/api/v1/verdicts", {"trace_id": "5", "verdict": "pass"}, "trace_id", "a whole number"),
    ],
    ids=[
        "string-given-a-number",
        "id-given-a-number",
        "message-body-given-a-number",
        "boolean-given-0",
        "boolean-given-1",
        "number-given-false",
        "integer-given-a-string",
        "integer-given-a-decimal",
        "string-values-given-a-number",
        "id-given-a-string",
    ],
)
def test_a_value_of_another_json_type_is_a_400_naming_the_type_to_send(
    api, ticket, method, url, body, field, wanted
):
    message = refused(getattr(api, method)(url, body, format="json"), field)
    assert "Send" in message and wanted in message, message


def test_a_number_in_a_list_of_strings_is_a_400(api, tenant):
    agent = make_agent(tenant)
    body = {
        "content": "Always greet customers by name.",
        "category": "fact",
        "strength": "hard_rule",
        "tags": [0],
    }
    response = api.post(f"/api/v1/agents/{agent.pk}/memories", body, format="json")
    assert "a string" in refused(response, "tags")


def test_the_same_values_of_the_right_type_are_accepted(api, ticket):
    response = api.post(
        "/api/v1/tickets/T-1/messages",
        {"direction": "inbound", "body": "Hello", "is_note": False},
        format="json",
    )
    assert response.status_code == 201, response.content
    response = api.post(
        "/api/v1/brain/search", {"query": "refunds", "limit": 5, "expand_graph": True}, format="json"
    )
    assert response.status_code == 200, response.content


# --- valid data rejected: a rule the schema did not state -----------------------------------------------


def test_every_list_states_the_paging_rule(served_schema, api):
    lists = [query_parameters(op) for op in operations(served_schema)]
    lists = [params for params in lists if {"limit", "offset"} <= set(params)]
    assert len(lists) >= 10
    for params in lists:
        assert params["limit"] == {"type": "integer", "minimum": 1}
        assert params["offset"] == {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET}
    assert "at least 1" in refused(api.get("/api/v1/tickets?limit=0"), "limit")
    assert "at least 0" in refused(api.get("/api/v1/tickets?offset=-1"), "offset")


# --- invalid data accepted: a query-string filter -------------------------------------------------------


def test_a_boolean_filter_takes_true_or_false_and_refuses_anything_else(api, ticket, served_schema):
    helpdesk.message_add(ticket=ticket, direction="outbound", body="Checked the logs.", is_note=True)
    helpdesk.message_add(ticket=ticket, direction="inbound", body="Any news?")
    url = "/api/v1/tickets/T-1/messages"
    assert query_parameters(operation(served_schema, "v1_tickets_messages_list"))["is_note"] == {
        "type": "boolean"
    }
    for value in ("maybe", "2", "1", "null"):
        assert refused(api.get(url, {"is_note": value}), "is_note") == "Send true or false."
    assert api.get(url, {"is_note": "true"}).json()["count"] == 1
    assert api.get(url, {"is_note": "false"}).json()["count"] == 1
    assert api.get(url).json()["count"] == 2


def test_a_blank_client_brain_filter_is_in_the_schema_and_counts_as_absent(api, served_schema):
    params = query_parameters(operation(served_schema, "v1_client_brain_memories_list"))
    assert "" in params["type"]["enum"] and "" in params["status"]["enum"], params
    for query in ("type=", "status=", "type=&status="):
        assert api.get(f"/api/v1/client-brain/memories?{query}").status_code == 200
    assert "Choose one of" in refused(api.get("/api/v1/client-brain/memories?status=bogus"), "status")


def test_an_agents_settings_are_objects_whose_keys_the_schema_states(api, served_schema):
    body = request_body(served_schema, "v1_agents_create")["properties"]
    learning, budgets = body["learning_config"], body["budget_overrides"]
    assert learning["type"] == budgets["type"] == "object"
    assert learning["additionalProperties"] is budgets["additionalProperties"] is False
    assert set(learning["properties"]) == set(LEARNING_CONFIG_DEFAULTS)
    assert set(budgets["properties"]) == set(BUDGET_FIELDS)
    assert not learning.get("nullable") and not budgets.get("nullable")
    for settings in ({"budget_overrides": ""}, {"budget_overrides": []}, {"learning_config": [1]}):
        field = next(iter(settings))
        assert "JSON object" in refused(
            api.post("/api/v1/agents", {"name": "Bot", **settings}, format="json"), field
        )
    assert "may not be null" in refused(
        api.post("/api/v1/agents", {"name": "Bot", "learning_config": None}, format="json"), "learning_config"
    )
    unknown = api.post("/api/v1/agents", {"name": "Bot", "learning_config": {"bogus": 1}}, format="json")
    assert "Unknown setting" in refused(unknown, "learning_config")
    body = {
        "name": "Bot",
        "learning_config": {"evaluate_after_hours": 72, "learning_window_days": None},
        "budget_overrides": {"total": 9000},
    }
    created = api.post("/api/v1/agents", body, format="json")
    assert created.status_code == 201 and created.json()["budget_overrides"] == {"total": 9000}, (
        created.content
    )


def test_a_proposed_actions_payload_is_an_object(api, served_schema, tenant):
    payload = served_schema["components"]["schemas"]["ProposedActionInputRequest"]["properties"]["payload"]
    assert payload["type"] == "object"
    agent = make_agent(tenant, kind="action")
    run = AgentRun.objects.create(tenant=tenant, agent=agent, external_id="r-1")
    body = {"text": "Raising it.", "proposed_actions": [{"type": "budget_change", "payload": [10]}]}
    response = api.post(f"/api/v1/runs/{run.pk}/response", body, format="json")
    assert response.status_code == 400 and "JSON object" in response.json()["error"]["message"], (
        response.content
    )


# --- valid data rejected: a refusal that depends on what is stored --------------------------------------


def test_a_name_another_agent_has_is_a_409_conflict_not_a_400(api, tenant, served_schema):
    make_agent(tenant, name="Support bot")
    other = make_agent(tenant, name="Sales bot")
    for operation_id in ("v1_agents_create", "v1_agents_update", "v1_agents_partial_update"):
        assert "409" in operation(served_schema, operation_id)["responses"], operation_id
    for response in (
        api.post("/api/v1/agents", {"name": " Support bot "}, format="json"),
        api.patch(f"/api/v1/agents/{other.pk}", {"name": "Support bot"}, format="json"),
        api.put(f"/api/v1/agents/{other.pk}", {"name": "Support bot"}, format="json"),
    ):
        assert response.status_code == 409, response.content
        error = response.json()["error"]
        assert error["code"] == "name_taken" and error["fields"] == {
            "name": ["Another agent of this tenant already has this name."]
        }
    assert api.patch(f"/api/v1/agents/{other.pk}", {"name": "Sales bot"}, format="json").status_code == 200


def test_a_record_id_the_agents_kind_does_not_keep_is_a_409_conflict(api, tenant, served_schema):
    """tests/intelligence/test_runs.py has both kinds; here the schema documents it."""
    assert "409" in operation(served_schema, "v1_agents_context_create")["responses"]
    agent = make_agent(tenant, kind="knowledge")
    body = {"conversation": "Where is my parcel?", "run_id": "run-1"}
    response = api.post(f"/api/v1/agents/{agent.pk}/context", body, format="json")
    assert (
        response.status_code == 409
        and "send conversation_id" in response.json()["error"]["fields"]["run_id"][0]
    )


# --- valid data rejected: a rule across fields, stated in the request schema ----------------------------


def rules(schema: dict, operation_id: str) -> list[dict]:
    return request_body(schema, operation_id).get("allOf", [])


def test_exactly_one_record_of_a_verdict_is_stated(api, served_schema):
    one_of = [{"required": ["trace_id"]}, {"required": ["run_id"]}, {"required": ["conversation_id"]}]
    assert rules(served_schema, "v1_verdicts_create") == [{"oneOf": one_of}]
    two = api.post("/api/v1/verdicts", {"trace_id": 1, "run_id": 1, "verdict": "pass"}, format="json")
    assert "exactly one" in refused(two, "trace_id")


def test_a_context_call_needs_text_and_says_so(api, tenant, served_schema):
    agent = make_agent(tenant)
    texts = ("conversation", "ticket_subject", "ticket_message")
    one_not_blank = [{"required": [name], "properties": {name: {"pattern": r"\S"}}} for name in texts]
    assert rules(served_schema, "v1_agents_context_create") == [{"anyOf": one_not_blank}]
    blank = api.post(
        f"/api/v1/agents/{agent.pk}/context", {"conversation": "  ", "policy": "Be kind."}, format="json"
    )
    assert "Send the conversation text" in refused(blank, "conversation")


def test_a_classification_needs_a_category_or_an_intent_and_says_so(api, ticket, served_schema):
    either = [
        {"required": [name], "properties": {name: {"pattern": r"\S"}}} for name in ("category", "intent")
    ]
    assert rules(served_schema, "v1_tickets_classifications_create") == [{"anyOf": either}]
    response = api.post(
        "/api/v1/tickets/T-1/classifications", {"category": " ", "labels": ["x"]}, format="json"
    )
    assert "category or an intent" in refused(response, "category")


def test_scope_ids_come_with_a_scope_kind_and_the_schema_says_so(api, served_schema):
    only_with = {"anyOf": [{"not": {"required": ["scope_ids"]}}, {"required": ["scope_kind"]}]}
    for operation_id in ("v1_brain_search_create", "v1_brain_ask_create"):
        assert rules(served_schema, operation_id) == [only_with], operation_id
    response = api.post("/api/v1/brain/search", {"query": "refunds", "scope_ids": ["7"]}, format="json")
    assert "together with scope_ids" in refused(response, "scope_kind")


def test_a_client_brain_context_by_ticket_id_takes_no_text_and_the_schema_says_so(api, ticket, served_schema):
    blank = {"properties": {"subject": {"maxLength": 0}, "latest_customer_message": {"maxLength": 0}}}
    rule = {"anyOf": [{"not": {"required": ["ticket_id"]}}, blank]}
    assert rules(served_schema, "v1_client_brain_context_create") == [rule]
    both = api.post("/api/v1/client-brain/context", {"ticket_id": "T-1", "subject": "Refund"}, format="json")
    assert "not both" in refused(both, "ticket_id")
    mode = request_body(served_schema, "v1_client_brain_context_create")["properties"]["mode"]
    modes = served_schema["components"]["schemas"][mode["allOf"][0]["$ref"].rsplit("/", 1)[-1]]["enum"]
    assert modes == ["initial", "continuation"]
    wrong = api.post("/api/v1/client-brain/context", {"subject": "Refund", "mode": "00"}, format="json")
    assert refused(wrong, "mode") == "Choose initial or continuation."


# --- valid data rejected: a field's own rule the schema did not state -----------------------------------


def test_a_text_that_may_not_be_blank_and_a_list_that_may_not_be_empty_are_stated(api, served_schema):
    search = request_body(served_schema, "v1_brain_search_create")["properties"]
    assert search["query"]["pattern"] == r"\S" and search["query"]["minLength"] == 1
    for name in ("scope_ids", "types", "statuses", "strengths", "categories"):
        assert search[name]["minItems"] == 1, name
    assert "blank" in refused(api.post("/api/v1/brain/search", {"query": " \t"}, format="json"), "query")
    empty = api.post("/api/v1/brain/search", {"query": "refunds", "categories": []}, format="json")
    assert "empty" in refused(empty, "categories")


def test_a_ticket_id_without_a_slash_is_stated(api, served_schema):
    external_id = request_body(served_schema, "v1_tickets_create")["properties"]["external_id"]
    assert external_id["pattern"] == r"^[^/]*[^/\s][^/]*$"
    slash = api.post("/api/v1/tickets", {"external_id": "ZD/7"}, format="json")
    assert refused(slash, "external_id") == "Send the helpdesk's ticket id: not empty, without '/'."
    assert (
        api.post("/api/v1/tickets", {"external_id": " ZD-7 "}, format="json").json()["external_id"] == "ZD-7"
    )


def test_a_confidence_range_is_read_in_either_order(api):
    body = {"query": "refunds", "confidence_range": [0.9, 0.2]}
    assert api.post("/api/v1/brain/search", body, format="json").status_code == 200
    assert api.post("/api/v1/brain/ask", {**body, "question": "refunds?"}, format="json").status_code == 200
