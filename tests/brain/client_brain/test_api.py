"""Client Brain REST: context, copilot, the read-only memory list, and suspended mutations (decision 10)."""

import math

import pytest
from django.urls import reverse

from brain.models import Memory
from tests.conftest import api_client_for_key
from tickets.tenancy import services

from ..factories import fact, issue, memory, superseded_by, voice


def test_context_endpoint_returns_typed_sections_tags_omitted_counts_and_trace(api, tenant):
    tone = voice(tenant, formality="formal")
    warranty = fact(tenant, "Warranty lasts two years")
    for i in range(7):
        issue(tenant, f"Pattern {i}", "Fix")
    response = api.post(
        reverse("client-brain-context"),
        {"subject": "Warranty claim", "latest_customer_message": "Is it covered?", "mode": "initial"},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["mode"] == "initial" and body["reloaded"] is True
    assert body["sections"]["voice"][0]["id"] == tone.id
    assert body["sections"]["business"][0]["tag"] == f"[mem:{warranty.id}]"
    assert body["omitted"] == {"business": 0, "voice": 0, "issues": 2, "process": 0}
    assert f"[mem:{warranty.id}]" in body["prompt"]
    traced = {m["id"]: m for m in body["trace"]["memories"]}
    assert traced[warranty.id]["overlap_words"] == ["warranty"] and traced[warranty.id]["tier"] == "fallback"
    assert body["trace"]["query_words"] == ["warranty", "claim", "covered"]
    assert len(body["memory_ids"]) == 7 and {tone.id, warranty.id} <= set(body["memory_ids"])


def test_context_endpoint_continuation_and_max_chars(api, tenant):
    fact(tenant, "Opening hours are 9 to 5")
    response = api.post(
        reverse("client-brain-context"), {"subject": "hours", "mode": "continuation", "max_chars": 10}
    )
    body = response.json()
    assert body["mode"] == "continuation" and body["reloaded"] is True
    assert body["prompt"] == "" and body["omitted_for_budget"]["business"] == 1


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"mode": "later"}, "mode"),
        ({"max_chars": -1}, "max_chars"),
        ({"subject": "x" * 1001}, "subject"),
        ({"ticket_id": 5, "subject": "x"}, "ticket_id"),
    ],
)
def test_context_endpoint_rejects_bad_input_with_a_message(api, payload, field):
    response = api.post(reverse("client-brain-context"), payload)
    assert response.status_code == 400
    error = response.json()["error"]
    assert field in error["fields"] and error["message"]


def test_copilot_endpoint_bounds_confidence_and_rows(api, tenant):
    for value in (math.nan, math.inf, -1.0, 3.0):
        fact(tenant, "Shipping to Canada rule", confidence=value)
    valid = [fact(tenant, f"Shipping to Canada takes {i} days", confidence=0.1) for i in range(35)]
    response = api.get(reverse("client-brain-copilot"), {"q": "Canada shipping"})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 30 and {r["id"] for r in body["results"]} <= {v.id for v in valid}
    assert body["results"][0]["tag"].startswith("[mem:")


def test_copilot_endpoint_rejects_an_overlong_query(api):
    response = api.get(reverse("client-brain-copilot"), {"q": "x" * 1001})
    assert response.status_code == 400 and "1000" in response.json()["error"]["message"]


def test_memory_list_is_read_only_paginated_and_filterable(api, tenant):
    fact(tenant, "We ship from Lyon")
    voice(tenant, formality="casual")
    memory(tenant, "faq", {"q": "legacy"}, text="Legacy FAQ row", confidence=math.nan)
    Memory.objects.create(tenant=tenant, scope_kind="agent", scope_id="1", type="agent_memory", text="not CB")
    response = api.get(reverse("client-brain-memory-list"), {"limit": 2})
    body = response.json()
    assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]
    everything = api.get(reverse("client-brain-memory-list")).json()["results"]
    legacy = next(r for r in everything if r["type"] == "faq")
    assert legacy["legacy"] is True and legacy["confidence"] is None and legacy["confidence_display"] == "NaN"
    voices = api.get(reverse("client-brain-memory-list"), {"type": "voice"}).json()
    assert [r["type"] for r in voices["results"]] == ["voice"]
    bad = api.get(reverse("client-brain-memory-list"), {"type": "faq"})
    assert bad.status_code == 400 and "business" in bad.json()["error"]["message"]


def test_memory_stats_endpoint(api, tenant):
    """The spec's aggregates count stored rows, whatever their status (issue 28, item 6); `rows_by_status` and
    `current` give the current rows' split beside them (issue 13, finding 6)."""
    fact(tenant, "Valid", confidence=0.6)
    fact(tenant, "Also valid", confidence=1.0, activity_count=4)
    memory(tenant, "business", {"fact": ""}, text="blank", confidence=math.inf)
    fact(tenant, "Archived", confidence=0.1, activity_count=7, status="archived")
    memory(tenant, "voice", {"formality": "formal"}, status="superseded")
    body = api.get(reverse("client-brain-memory-stats")).json()
    assert body == {
        "stored_rows": 5,
        "rows_by_status": {"current": 3, "superseded": 1, "archived": 1},
        "typed_rows": 4,
        "average_confidence": pytest.approx(0.625),  # (0.6 + 1.0 + 0.1 + 0.8) / 4: infinity excluded
        "invalid_confidence_rows": 1,
        "recorded_activity": 11,
        "by_type": {"business": 4, "voice": 1, "issues": 0, "process": 0},
        "legacy_type_rows": 0,
        "current": {
            "rows": 3,
            "typed_rows": 2,
            "average_confidence": pytest.approx(0.8),
            "invalid_confidence_rows": 1,
            "recorded_activity": 4,
            "by_type": {"business": 3, "voice": 0, "issues": 0, "process": 0},
            "legacy_type_rows": 0,
        },
    }


def test_memory_list_shows_current_rows_with_their_status_and_filters_the_others(api, tenant):
    """Issue 13, finding 6: the list showed superseded rows without a status, so two voice:formality rows."""
    from brain.api import memory_set_status

    old = voice(tenant, formality="formal", tone="professional", key="voice:formality")
    new = superseded_by(old, {"formality": "casual", "tone": "friendly"})
    gone = fact(tenant, "An archived fact")
    memory_set_status(tenant_id=tenant.pk, memory_id=gone.pk, status="archived", actor="test")
    url = reverse("client-brain-memory-list")

    def listed(**params):
        return {r["id"]: r for r in api.get(url, params).json()["results"]}

    current = listed()
    assert list(current) == [new.id]
    assert current[new.id]["status"] == "active"
    assert current[new.id]["superseded_by"] is None
    superseded = listed(status="superseded")
    assert list(superseded) == [old.id]
    assert superseded[old.id]["status"] == "superseded"
    assert superseded[old.id]["superseded_by"] == new.id
    assert list(listed(status="archived")) == [gone.id]
    assert set(listed(status="all")) == {old.id, new.id, gone.id}
    assert list(listed(status="all", type="business")) == [gone.id]
    assert list(listed(status="")) == [new.id]
    # A row is still retrieved by id whatever its status.
    detail = api.get(reverse("client-brain-memory-detail", kwargs={"pk": old.id})).json()
    assert detail["status"] == "superseded"


def test_memory_list_refuses_an_unknown_status_with_the_error_envelope(api, tenant):
    response = api.get(reverse("client-brain-memory-list"), {"status": "deleted"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert isinstance(error["fields"]["status"], list) and "current" in error["fields"]["status"][0]
    typed_error = api.get(reverse("client-brain-memory-list"), {"type": "faq"}).json()["error"]
    assert isinstance(typed_error["fields"]["type"], list)


def test_the_schema_documents_the_status_filter_and_the_row_status(api):
    schema = api.get(reverse("schema"), HTTP_ACCEPT="application/json").json()
    parameters = {p["name"]: p for p in schema["paths"]["/api/v1/client-brain/memories"]["get"]["parameters"]}
    # "" too: a blank filter counts as absent (the default)
    assert parameters["status"]["schema"]["enum"] == ["current", "superseded", "archived", "all", ""]
    assert parameters["status"]["schema"]["default"] == "current"
    assert "status" in schema["components"]["schemas"]["ClientBrainStoredMemory"]["properties"]
    assert "rows_by_status" in schema["components"]["schemas"]["ClientBrainStats"]["properties"]


@pytest.mark.parametrize(
    ("method", "route", "detail"),
    [
        ("post", "client-brain-memory-list", False),
        ("put", "client-brain-memory-detail", True),
        ("patch", "client-brain-memory-detail", True),
        ("delete", "client-brain-memory-detail", True),
        ("post", "client-brain-memory-reset", False),
        ("delete", "client-brain-memory-reset", False),
    ],
)
def test_client_brain_mutation_endpoints_answer_405_suspended(api, tenant, method, route, detail):
    row = fact(tenant, "Keep me")
    url = reverse(route, kwargs={"pk": row.pk} if detail else {})
    response = getattr(api, method)(url, {"fact": "changed"})
    assert response.status_code == 405
    error = response.json()["error"]
    assert error["code"] == "mutation_suspended" and "suspended" in error["message"]
    row.refresh_from_db()
    assert row.payload == {"fact": "Keep me"} and Memory.objects.all_tenants().filter(pk=row.pk).exists()


def test_a_mutation_on_another_tenants_memory_is_the_same_404_as_a_missing_one(api, other_tenant):
    theirs = fact(other_tenant, "Theirs")
    foreign = api.delete(reverse("client-brain-memory-detail", kwargs={"pk": theirs.pk}))
    missing = api.delete(reverse("client-brain-memory-detail", kwargs={"pk": 999_999_999}))
    assert foreign.status_code == missing.status_code == 404
    assert foreign.json() == missing.json()


def test_context_endpoint_is_tenant_scoped(api, other_api, tenant, other_tenant):
    fact(tenant, "Acme refund rule")
    fact(other_tenant, "Globex refund rule")
    mine = api.post(reverse("client-brain-context"), {"subject": "refund rule"}).json()
    theirs = other_api.post(reverse("client-brain-context"), {"subject": "refund rule"}).json()
    assert "Acme" in mine["prompt"] and "Globex" not in mine["prompt"]
    assert "Globex" in theirs["prompt"] and "Acme" not in theirs["prompt"]


def test_viewer_keys_may_read_context_but_not_reach_mutations(tenant):
    _, full_key = services.api_key_create(tenant=tenant, name="viewer", role="viewer")
    viewer = api_client_for_key(full_key)
    fact(tenant, "Visible fact")
    assert viewer.post(reverse("client-brain-context"), {"subject": "visible"}).status_code == 200
    assert viewer.post(reverse("client-brain-memory-reset")).status_code == 403


@pytest.mark.parametrize(
    ("feature", "words"),
    [
        ("prune", "pruning is suspended"),
        ("contribute", "Cross-tenant contribution is suspended"),
        ("bootstrap", "Global bootstrap is suspended"),
    ],
)
def test_pruning_contribution_and_bootstrap_are_suspended_and_say_so(api, tenant, feature, words):
    row = fact(tenant, "Stays")
    response = api.post(reverse(f"client-brain-{feature}"))
    assert response.status_code == 405
    assert (
        response.json()["error"]["code"] == "feature_suspended"
        and words in response.json()["error"]["message"]
    )
    assert Memory.objects.all_tenants().filter(pk=row.pk, status="active").exists()


def test_memory_list_query_count_does_not_grow_with_rows(api, tenant, django_assert_max_num_queries):
    for i in range(60):
        fact(tenant, f"Fact {i}")
    with django_assert_max_num_queries(6):
        response = api.get(reverse("client-brain-memory-list"), {"limit": 50})
    assert len(response.json()["results"]) == 50
