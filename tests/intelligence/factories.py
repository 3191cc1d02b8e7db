"""Agents and agent memories for tests, written the way the product writes them (services → promote())."""

from intelligence.models import Agent
from intelligence.services import agent_create, agent_memory_add


def make_agent(tenant, name="Support agent", **kwargs) -> Agent:
    return agent_create(tenant=tenant, name=name, **kwargs)


def add_memory(agent, text, strength="hard_rule", status="active", category="instruction", **scope) -> int:
    outcome = agent_memory_add(
        agent=agent,
        actor="process:test",
        category=category,
        strength=strength,
        status=status,
        text=text,
        **scope,
    )
    assert outcome.written, outcome
    return outcome.memory_id
