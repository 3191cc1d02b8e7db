"""POST /api/v1/brain/search: recall as an endpoint, explanation fields, filters, isolation, clear 400s."""

import pytest
from django.urls import reverse

from tests.brain.search.test_recall import remember
from tests.conftest import api_client_for_key
from tickets.tenancy import services
from tickets.tenancy.models import Role

URL = "/api/v1/brain/search"


def test_search_route_is_named_and_mounted_under_api_v1():
    assert reverse("brain-search") == URL


def test_search_returns_memories_with_explanations(api, tenant):
    refund = remember(tenant, "Refunds are issued within 14 days.", key="refund policy", payload={"days": 14})
    remember(tenant, "We ship to Canada.", key="shipping")
    response = api.post(URL, {"query": "refund policy", "limit": 5}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == len(body["results"]) >= 1
    first = body["results"][0]
    assert first["id"] == refund.id
    assert first["tag"] == f"[mem:{refund.id}]"
    assert first["payload"] == {"days": 14}  # an object, not its JSON text
    explanation = first["explanation"]
    assert {
        "tiers",
        "fused_score",
        "final_score",
        "confidence_feature",
        "recency_feature",
        "mmr",
        "rank",
    } <= set(explanation)
    assert explanation["tiers"]["fts"]["rank"] == 1


def test_search_applies_filters_and_mmr(api, tenant):
    remember(tenant, "Agent seven escalates refunds.", key="a7", scope_kind="agent", scope_id="7")
    remember(tenant, "Agent eight escalates refunds.", key="a8", scope_kind="agent", scope_id="8")
    response = api.post(
        URL,
        {"query": "escalates refunds", "scope_kind": "agent", "scope_ids": ["8"], "mmr_lambda": 0.5},
        format="json",
    )
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert [r["key"] for r in results] == ["a8"]
    assert results[0]["explanation"]["mmr"]["step"] == 1


def test_search_never_returns_another_tenants_memories(api, other_api, tenant, other_tenant):
    remember(tenant, "Acme ships on Fridays.", key="acme shipping")
    theirs = remember(other_tenant, "Globex ships on Fridays.", key="globex shipping")
    for mode in ("lexical", "vector", "hybrid"):
        mine = api.post(URL, {"query": "ships on Fridays", "mode": mode}, format="json").json()["results"]
        assert [r["key"] for r in mine] == ["acme shipping"], mode
        their = other_api.post(URL, {"query": "ships on Fridays", "mode": mode}, format="json").json()[
            "results"
        ]
        assert [r["id"] for r in their] == [theirs.id], mode


def test_a_viewer_key_may_search(tenant, member_factory):
    _, full_key = services.api_key_create(tenant=tenant, name="viewer", role=Role.VIEWER)
    response = api_client_for_key(full_key).post(URL, {"query": "anything"}, format="json")
    assert response.status_code == 200, response.content


def test_search_needs_authentication(client):
    assert client.post(URL, {"query": "x"}, content_type="application/json").status_code in (401, 403)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "x", "mode": "fuzzy"}, "mode"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "limit": 51}, "limit"),
        ({"query": "x", "confidence_range": [0.1]}, "confidence_range"),
        ({"query": "x", "confidence_range": ["NaN", 1]}, "confidence_range"),
        ({"query": "x", "mmr_lambda": 1.5}, "mmr_lambda"),
        ({"query": "x", "statuses": ["sleeping"]}, "statuses"),
        ({"query": "x", "scope_ids": ["7"]}, "scope_kind"),
        ({"query": "x", "types": []}, "types"),
    ],
)
def test_bad_search_input_is_a_400_saying_what_to_fix(api, body, field):
    response = api.post(URL, body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert field in error["fields"]
    assert error["message"]
