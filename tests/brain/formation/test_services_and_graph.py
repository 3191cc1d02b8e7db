"""Operator services (update, status, supersede, history) and the BrainGraph reads (neighbours, one-hop expansion)."""

import pytest

from brain.api import (
    GateRejected,
    MemoryNotFound,
    MemorySuperseded,
    expand_one_hop,
    graph_neighbours,
    memory_history,
    memory_set_status,
    memory_supersede,
    memory_update,
    promote,
)
from brain.models import Memory, MemoryStatus
from brain.types import MemoryCandidate

pytestmark = pytest.mark.django_db


def add(tenant, text, **kwargs):
    outcome = promote(
        MemoryCandidate(tenant_id=tenant.pk, type="fact", text=text, actor="process:test", **kwargs)
    )
    assert outcome.result == "added", outcome
    return outcome.memory_id


def test_memory_update_records_before_and_after_and_re_embeds(tenant):
    memory_id = add(tenant, "Refunds are issued within five days.")
    old_vector = list(Memory.objects.for_tenant(tenant).get(pk=memory_id).embedding)
    memory_update(
        tenant_id=tenant.pk,
        memory_id=memory_id,
        actor="user:1",
        text="Refunds are issued within ten days.",
        strength="hard_rule",
    )
    memory = Memory.objects.for_tenant(tenant).get(pk=memory_id)
    assert (memory.text, memory.strength) == ("Refunds are issued within ten days.", "hard_rule")
    assert list(memory.embedding) != old_vector
    entry = memory_history(tenant_id=tenant.pk, memory_id=memory_id)[0]
    assert (entry.action, entry.actor, entry.surface) == ("updated", "user:1", "operator")
    assert (entry.before["text"], entry.after["text"]) == (
        "Refunds are issued within five days.",
        memory.text,
    )


def test_memory_update_content_passes_the_gate_and_the_rejection_is_recorded(tenant):
    memory_id = add(tenant, "Refunds are issued within five days.")
    with pytest.raises(GateRejected) as rejected:
        memory_update(
            tenant_id=tenant.pk,
            memory_id=memory_id,
            actor="user:1",
            text="Let me check the refund tool first.",
        )
    assert rejected.value.reason == "process_narration"
    assert Memory.objects.for_tenant(tenant).get(pk=memory_id).text == "Refunds are issued within five days."
    entry = memory_history(tenant_id=tenant.pk, memory_id=memory_id)[0]
    assert (entry.action, entry.reason) == ("rejected", "process_narration")


def test_memory_update_refuses_unknown_fields_and_other_tenants(tenant, other_tenant):
    memory_id = add(tenant, "Refunds are issued within five days.")
    with pytest.raises(ValueError, match="status"):
        memory_update(tenant_id=tenant.pk, memory_id=memory_id, actor="user:1", status="archived")
    with pytest.raises(MemoryNotFound):
        memory_update(tenant_id=other_tenant.pk, memory_id=memory_id, actor="user:2", strength="hard_rule")


def test_memory_set_status_records_the_change_and_refuses_superseded(tenant, other_tenant):
    memory_id = add(tenant, "Refunds are issued within five days.")
    memory_set_status(tenant_id=tenant.pk, memory_id=memory_id, status="archived", actor="user:1")
    assert Memory.objects.for_tenant(tenant).get(pk=memory_id).status == "archived"
    assert memory_history(tenant_id=tenant.pk, memory_id=memory_id)[0].action == "archived"
    memory_set_status(tenant_id=tenant.pk, memory_id=memory_id, status="active", actor="user:1")
    assert memory_history(tenant_id=tenant.pk, memory_id=memory_id)[0].action == "status_changed"
    with pytest.raises(ValueError):
        memory_set_status(tenant_id=tenant.pk, memory_id=memory_id, status="superseded", actor="user:1")
    with pytest.raises(MemoryNotFound):
        memory_set_status(tenant_id=other_tenant.pk, memory_id=memory_id, status="archived", actor="user:2")


def test_memory_supersede_makes_the_chain_visible(tenant):
    old_id = add(
        tenant, "The VIP discount is 10 percent.", key="vip_discount", scope_kind="agent", scope_id="4"
    )
    outcome = memory_supersede(
        tenant_id=tenant.pk,
        old_memory_id=old_id,
        candidate=MemoryCandidate(
            tenant_id=tenant.pk, type="fact", text="The VIP discount is 15 percent.", actor="user:1"
        ),
    )
    assert (outcome.result, outcome.related_memory_id) == ("superseded", old_id)
    old, new = (
        Memory.objects.for_tenant(tenant).get(pk=old_id),
        Memory.objects.for_tenant(tenant).get(pk=outcome.memory_id),
    )
    assert (old.status, old.superseded_by_id) == (MemoryStatus.SUPERSEDED, new.pk)
    assert (new.scope_kind, new.scope_id, new.key) == ("agent", "4", "vip_discount")
    assert ("supersedes", "in", new.pk) in {
        (n.relation, n.direction, n.memory_id)
        for n in graph_neighbours(tenant_id=tenant.pk, memory_id=old_id)
    }


def test_memory_supersede_still_passes_the_gate(tenant):
    old_id = add(tenant, "The VIP discount is 10 percent.")
    outcome = memory_supersede(
        tenant_id=tenant.pk,
        old_memory_id=old_id,
        candidate=MemoryCandidate(tenant_id=tenant.pk, type="fact", text="| vip | 15% |", actor="user:1"),
    )
    assert (outcome.result, outcome.reason) == ("rejected", "table_row")
    assert Memory.objects.for_tenant(tenant).get(pk=old_id).status == MemoryStatus.ACTIVE


def test_memory_history_is_tenant_scoped(tenant, other_tenant):
    memory_id = add(tenant, "Refunds are issued within five days.")
    assert memory_history(tenant_id=other_tenant.pk, memory_id=memory_id) == []
    assert len(memory_history(tenant_id=tenant.pk, memory_id=memory_id)) == 1


def test_expand_one_hop_returns_related_active_memories_not_superseded_ones(tenant, other_tenant):
    a = add(tenant, "Acme ships orders within two business days.")
    b = add(tenant, "Acme ships orders to Canada within five business days.")  # related to a
    unrelated = add(tenant, "The office dog is called Biscuit.")
    assert expand_one_hop(tenant.pk, [a]) == [b]
    assert expand_one_hop(tenant.pk, [b]) == [a]
    assert expand_one_hop(tenant.pk, [unrelated]) == []
    assert expand_one_hop(other_tenant.pk, [a]) == []
    memory_set_status(tenant_id=tenant.pk, memory_id=b, status="archived", actor="user:1")
    assert expand_one_hop(tenant.pk, [a]) == []
    assert expand_one_hop(tenant.pk, [a], statuses=("active", "archived")) == [b]


def test_memory_update_refuses_text_that_duplicates_another_memory_of_its_scope(tenant):
    kept = add(tenant, "Refunds are issued within five days.", scope_kind="agent", scope_id="7")
    edited = add(tenant, "Orders ship from the Berlin warehouse.", scope_kind="agent", scope_id="7")
    elsewhere = add(tenant, "Invoices are sent monthly.", scope_kind="agent", scope_id="8")
    with pytest.raises(GateRejected) as rejected:
        memory_update(
            tenant_id=tenant.pk, memory_id=edited, actor="user:1", text="Refunds are issued within five days."
        )
    assert (rejected.value.reason, rejected.value.duplicate_of) == ("backstop_duplicate", kept)
    assert Memory.objects.for_tenant(tenant).get(pk=edited).text == "Orders ship from the Berlin warehouse."
    entry = memory_history(tenant_id=tenant.pk, memory_id=edited)[0]
    assert (entry.action, entry.reason) == ("rejected", "backstop_duplicate")
    # Another scope's memory is no duplicate, and neither is the memory's own former wording.
    memory_update(
        tenant_id=tenant.pk, memory_id=elsewhere, actor="user:1", text="Refunds are issued within five days."
    )
    memory_update(
        tenant_id=tenant.pk,
        memory_id=kept,
        actor="user:1",
        text="Refunds are always issued within five days.",
    )
    assert (
        Memory.objects.for_tenant(tenant).get(pk=kept).text == "Refunds are always issued within five days."
    )


def test_memory_set_status_refuses_to_revive_a_superseded_memory(tenant):
    old_id = add(tenant, "The VIP discount is 10 percent.", scope_kind="agent", scope_id="4")
    outcome = memory_supersede(
        tenant_id=tenant.pk,
        old_memory_id=old_id,
        candidate=MemoryCandidate(
            tenant_id=tenant.pk, type="fact", text="The VIP discount is 15 percent.", actor="user:1"
        ),
    )
    for status in ("active", "draft", "stale", "archived"):
        with pytest.raises(MemorySuperseded):
            memory_set_status(tenant_id=tenant.pk, memory_id=old_id, status=status, actor="user:1")
    old = Memory.objects.for_tenant(tenant).get(pk=old_id)
    assert (old.status, old.superseded_by_id) == (MemoryStatus.SUPERSEDED, outcome.memory_id)
