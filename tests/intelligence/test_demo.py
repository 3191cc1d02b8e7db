"""seed_demo's Intelligence part: agents with memories of every category, strength and status; idempotent."""

import io

import pytest

from brain.api import agent_memory_list
from intelligence.demo import seed_demo
from intelligence.models import Agent

pytestmark = pytest.mark.django_db


def all_memories(tenant):
    return [
        m
        for agent in Agent.objects.for_tenant(tenant)
        for m in agent_memory_list(tenant_id=tenant.pk, agent_id=agent.pk, limit=100).items
    ]


def test_seed_demo_covers_every_category_strength_and_status_and_is_idempotent(tenant):
    seed_demo(tenant, io.StringIO())
    memories = all_memories(tenant)
    assert {m.category for m in memories} == {"fact", "preference", "correction", "instruction"}
    assert {m.strength for m in memories} == {"hard_rule", "preference", "heuristic", "context_note"}
    assert {m.status for m in memories} == {"draft", "active", "stale", "archived", "superseded"}
    assert {a.kind for a in Agent.objects.for_tenant(tenant)} == {"knowledge", "action"}
    assert any(m.superseded_by_id for m in memories)
    before = sorted((m.id, m.status, m.confidence) for m in memories)
    seed_demo(tenant, io.StringIO())
    assert sorted((m.id, m.status, m.confidence) for m in all_memories(tenant)) == before
    assert Agent.objects.for_tenant(tenant).count() == 2
