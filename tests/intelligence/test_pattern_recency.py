"""Recency bias weighs what the spec says it weighs: "Weight newer patterns more heavily" (Learning
Configuration). When the Pattern tier cannot hold every pattern whose scope matches, the newer ones go in first
under a moderate or strong bias; with none, age does not matter (confidence, then the older id, decide)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from brain.models import Memory

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db


def _patterns(agent):
    """Two patterns of equal confidence, each too long for the 500-character Pattern tier to hold both."""
    old = add_memory(
        agent, "Returning customers " + "like a short recap of their last order; " * 6, "heuristic"
    )
    new = add_memory(
        agent, "Weekend shoppers " + "respond well to a same-day delivery offer; " * 6, "heuristic"
    )
    Memory.objects.all_tenants().filter(pk=old).update(created_at=timezone.now() - timedelta(days=60))
    return old, new


def _injected(api, agent) -> list[int]:
    response = api.post(
        reverse("agent-context", kwargs={"agent_pk": agent.pk}),
        {"conversation": "Hello there"},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()["injected_memory_ids"]


@pytest.mark.parametrize("bias", ["moderate", "strong"])
def test_a_newer_pattern_goes_in_before_an_older_one_under_a_recency_bias(api, tenant, bias):
    agent = make_agent(tenant, learning_config={"recency_bias": bias})
    old, new = _patterns(agent)
    injected = _injected(api, agent)
    assert new in injected and old not in injected


def test_without_a_recency_bias_age_does_not_decide(api, tenant):
    agent = make_agent(tenant, learning_config={"recency_bias": "none"})
    old, new = _patterns(agent)
    injected = _injected(api, agent)
    assert old in injected and new not in injected  # equal confidence: the older id first, as before


def test_a_more_confident_old_pattern_can_still_win_under_a_moderate_bias(api, tenant):
    """Moderate halves a pattern's weight every 30 days: a 60-day-old pattern at confidence 0.95 weighs
    0.95 / 4 ≈ 0.24, still above a new pattern at 0.2. The bias weighs age; it does not erase evidence."""
    agent = make_agent(tenant, learning_config={"recency_bias": "moderate"})
    old, new = _patterns(agent)
    Memory.objects.all_tenants().filter(pk=old).update(confidence=0.95)
    Memory.objects.all_tenants().filter(pk=new).update(confidence=0.2)
    injected = _injected(api, agent)
    assert old in injected and new not in injected
