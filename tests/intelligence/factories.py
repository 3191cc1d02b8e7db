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


def write_note(agent, text, *, run_id="", conversation_id="", mined=False, actor="api-key:test") -> int:
    """A note the agent wrote itself, as memory-append (or chat-mine with the agent's id, `mined`) writes it."""
    from brain.api import MemoryCandidate, promote

    provenance = [{"kind": "run", "id": run_id}] if run_id else []
    provenance += [{"kind": "conversation", "id": conversation_id}] if conversation_id else []
    outcome = promote(
        MemoryCandidate(
            tenant_id=agent.tenant_id,
            type="chat" if mined else "note",
            text=text,
            surface="chat" if mined else "memory_append",
            scope_kind="agent",
            scope_id=str(agent.pk),
            strength="" if mined else "context_note",
            source="derived",
            provenance=provenance,
            actor=actor,
        )
    )
    assert outcome.result == "added", outcome
    return outcome.memory_id
