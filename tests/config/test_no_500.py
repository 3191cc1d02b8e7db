"""No input answers 500 (issue 15, findings 2 and 10): every bad input is a 4xx in the JSON error envelope."""

import json

import pytest
from django.urls import reverse

from intelligence.models import Agent


def assert_enveloped_4xx(response, status: int = 400) -> dict:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["message"]
    return error


@pytest.fixture
def agent(tenant):
    return Agent.objects.create(tenant=tenant, name="Support bot")


def test_json_nested_a_hundred_thousand_levels_is_a_400(api):
    body = "[" * 100_000 + "]" * 100_000
    response = api.post(reverse("brain-lessons"), body, content_type="application/json")
    error = assert_enveloped_4xx(response)
    assert "nested" in error["message"]


def test_json_nested_past_the_limit_is_a_400_but_within_it_parses(api):
    deep = {"app_id": "a", "template": "t", "values": {}}
    node = deep
    for _ in range(20):
        node["x"] = {}
        node = node["x"]
    response = api.post(reverse("brain-lessons"), json.dumps(deep), content_type="application/json")
    # Parsed: the gate then judged the text ("t" is too short: 422 `rejected`, the write surfaces' one rule).
    assert response.status_code == 422 and response.json()["error"]["fields"] == {"template": ["too_short"]}
    node = too_deep = {}
    for _ in range(200):
        node["x"] = {}
        node = node["x"]
    response = api.post(reverse("brain-lessons"), json.dumps(too_deep), content_type="application/json")
    assert "nested" in assert_enveloped_4xx(response)["message"]


@pytest.mark.parametrize(
    "key", ["a\x00b", "\ud800", "x\udfffy"], ids=["nul", "lone-high-surrogate", "lone-low"]
)
def test_a_bad_character_in_a_json_key_is_a_400(api, key):
    body = '{"app_id": "a", "template": "When {s}.", "values": {' + json.dumps(key) + ': "v"}}'
    response = api.post(reverse("brain-lessons"), body, content_type="application/json")
    assert "key" in assert_enveloped_4xx(response)["message"]


@pytest.mark.parametrize("value", ["a\x00b", "\ud800"], ids=["nul", "lone-surrogate"])
def test_a_bad_character_in_a_json_string_is_a_400(api, value):
    body = '{"app_id": ' + json.dumps(value) + ', "template": "When {s}."}'
    response = api.post(reverse("brain-lessons"), body, content_type="application/json")
    assert_enveloped_4xx(response)


def test_a_lone_surrogate_in_a_learning_config_key_is_a_400(api, agent):
    body = '{"learning_config": {"\\ud800": 1}}'
    response = api.patch(reverse("agent-detail", args=[agent.pk]), body, content_type="application/json")
    assert_enveloped_4xx(response)


def test_a_nul_in_a_url_lookup_is_a_404(api):
    response = api.get("/api/v1/tickets/a%00b")
    assert_enveloped_4xx(response, 404)


def test_a_nul_in_a_query_parameter_is_a_400_naming_it(api):
    response = api.get(reverse("ticket-list"), {"status": "a\x00b"})
    assert "'status'" in assert_enveloped_4xx(response)["message"]


def test_a_nul_in_a_ui_url_is_a_404_not_a_500(client):
    assert client.get("/tenant/members/a%00b/").status_code == 404


@pytest.mark.parametrize("offset", ["9223372036854775808", "99999999999999999999999", "-1"])
def test_an_offset_past_the_database_range_is_a_400(api, agent, offset):
    response = api.get(reverse("agent-memory-list", args=[agent.pk]), {"offset": offset})
    assert_enveloped_4xx(response)


def test_an_offset_past_the_database_integer_is_a_400_that_says_so(api):
    """One paging rule for every list (config.rest.page_bounds): an offset no row can have is refused."""
    api.post(reverse("ticket-list"), {"external_id": "T-1", "subject": "Refund"}, format="json")
    response = api.get(reverse("ticket-list"), {"offset": "9223372036854775808"})
    assert "offset" in assert_enveloped_4xx(response)["fields"]
