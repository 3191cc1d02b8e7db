"""Agent.learning_config (spec: Learning Configuration): the spec's options and defaults, validated."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from intelligence.learning import LEARNING_CONFIG_DEFAULTS, learning_config_clean

from .factories import make_agent


def test_defaults_are_the_specs():
    assert learning_config_clean({}) == {
        "learn_from_approved_actions": True,
        "learn_from_rejected_recommendations": True,
        "evaluate_after_hours": 48,
        "learning_window_days": None,
        "recency_bias": "moderate",
        "suggestion_feedback_threshold": 3,
    }
    assert learning_config_clean(None) == LEARNING_CONFIG_DEFAULTS


@pytest.mark.parametrize("hours", [24, 48, 72, 168])
def test_evaluate_after_accepts_the_specs_options(hours):
    assert learning_config_clean({"evaluate_after_hours": hours})["evaluate_after_hours"] == hours


@pytest.mark.parametrize("days", [None, 30, 90, 180, 365])
def test_learning_window_accepts_the_specs_options(days):
    assert learning_config_clean({"learning_window_days": days})["learning_window_days"] == days


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"evaluate_after_hours": 12}, "evaluate_after_hours"),
        ({"evaluate_after_hours": True}, "evaluate_after_hours"),
        ({"learning_window_days": 60}, "learning_window_days"),
        ({"recency_bias": "extreme"}, "recency_bias"),
        ({"learn_from_approved_actions": "yes"}, "learn_from_approved_actions"),
        ({"mystery": 1}, "mystery"),
    ],
)
def test_values_outside_the_spec_are_rejected_with_a_message(config, field):
    with pytest.raises(ValidationError) as error:
        learning_config_clean(config)
    assert field in error.value.message_dict


def test_not_an_object_is_rejected():
    with pytest.raises(ValidationError):
        learning_config_clean([1, 2])


@pytest.mark.django_db
def test_agent_api_validates_and_fills_learning_config(api, tenant):
    created = api.post(
        reverse("agent-list"),
        {"name": "Bot", "kind": "action", "learning_config": {"recency_bias": "strong"}},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["learning_config"]["recency_bias"] == "strong"
    assert created.json()["learning_config"]["evaluate_after_hours"] == 48
    bad = api.patch(
        reverse("agent-detail", kwargs={"pk": created.json()["id"]}),
        {"learning_config": {"evaluate_after_hours": 5}},
        format="json",
    )
    assert bad.status_code == 400
    assert "learning_config" in bad.json()["error"]["fields"]
    assert "24, 48, 72 or 168" in bad.json()["error"]["message"]


@pytest.mark.django_db
def test_agent_api_lists_only_this_tenants_agents_paginated(api, tenant, other_tenant):
    make_agent(tenant, name="Ours")
    make_agent(other_tenant, name="Theirs")
    data = api.get(reverse("agent-list")).json()
    assert [a["name"] for a in data["results"]] == ["Ours"]
    assert data["count"] == 1


@pytest.mark.parametrize("value", [0, 101, True, "3", 2.5])
def test_the_suggestion_threshold_is_a_whole_number_of_ratings_from_1_to_100(value):
    with pytest.raises(ValidationError) as exc:
        learning_config_clean({"suggestion_feedback_threshold": value})
    assert "suggestion_feedback_threshold" in exc.value.message_dict
    assert learning_config_clean({"suggestion_feedback_threshold": 7})["suggestion_feedback_threshold"] == 7


def test_the_accessor_fills_settings_stored_before_they_existed():
    from intelligence.learning import learning_config_for
    from intelligence.models import Agent

    config = learning_config_for(
        Agent(learning_config={"recency_bias": "strong", "learning_window_days": 90})
    )
    assert (config.recency_bias, config.learning_window_days, config.suggestion_feedback_threshold) == (
        "strong",
        90,
        3,
    )
    assert config.evaluate_after_hours == 48 and config.learn_from_approved_actions is True
