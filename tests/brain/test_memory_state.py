"""The memory state (migration 0008's trigger + brain.memory_state) and the caches keyed by it."""

import pytest
from django.db import connection, transaction

from brain import api as brain_api
from brain.caches import StateCache
from brain.memory_state import memory_state, states_read_once
from brain.models import BrainScopeKind, Memory
from brain.search import recall


def remember(tenant, text, **fields):
    return Memory.objects.create(tenant=tenant, text=text, type=fields.pop("type", "fact"), **fields)


def test_every_kind_of_write_changes_the_state_of_its_scope_only(tenant):
    before_agent = memory_state(tenant.pk, scope_kind="agent", scope_ids=["7"])
    before_tenant_scope = memory_state(tenant.pk, scope_kind="tenant")
    memory = remember(tenant, "Refunds take 14 days.")
    after_insert = memory_state(tenant.pk, scope_kind="tenant")
    assert after_insert != before_tenant_scope
    assert memory_state(tenant.pk, scope_kind="agent", scope_ids=["7"]) == before_agent  # another scope

    Memory.objects.all_tenants().filter(pk=memory.pk).update(confidence=0.9)
    after_update = memory_state(tenant.pk, scope_kind="tenant")
    assert after_update != after_insert

    with connection.cursor() as cursor:  # raw SQL is seen too: the trigger is in the database
        cursor.execute("UPDATE brain_memory SET text = 'Refunds take 10 days.' WHERE id = %s", [memory.pk])
    after_raw = memory_state(tenant.pk, scope_kind="tenant")
    assert after_raw != after_update

    Memory.objects.all_tenants().filter(pk=memory.pk).delete()
    assert memory_state(tenant.pk, scope_kind="tenant") != after_raw


def test_moving_a_memory_between_scopes_changes_both(tenant):
    memory = remember(tenant, "Use the blue template.", scope_kind="agent", scope_id="1")
    one, two = (memory_state(tenant.pk, scope_kind="agent", scope_ids=[s]) for s in ("1", "2"))
    Memory.objects.all_tenants().filter(pk=memory.pk).update(scope_id="2")
    assert memory_state(tenant.pk, scope_kind="agent", scope_ids=["1"]) != one
    assert memory_state(tenant.pk, scope_kind="agent", scope_ids=["2"]) != two


def test_the_tenant_wide_state_covers_every_scope_and_no_other_tenant(tenant, other_tenant):
    whole = memory_state(tenant.pk)
    remember(other_tenant, "Another tenant's memory.")
    assert memory_state(tenant.pk) == whole
    remember(tenant, "An agent's memory.", scope_kind="agent", scope_id="3")
    assert memory_state(tenant.pk) != whole


def test_a_rolled_back_write_never_yields_a_state_seen_again(tenant):
    """A cache filled inside a transaction that rolls back must not match a later committed state."""
    remember(tenant, "First.")
    inside = None
    with pytest.raises(RuntimeError), transaction.atomic():
        remember(tenant, "Rolled back.")
        inside = memory_state(tenant.pk)
        raise RuntimeError
    remember(tenant, "Committed instead.")
    assert memory_state(tenant.pk) != inside


@pytest.mark.django_db(transaction=True)  # TRUNCATE cannot run beside the test transaction's deferred checks
def test_truncate_changes_every_state(tenant):
    remember(tenant, "Something.")
    before = memory_state(tenant.pk)
    from config.db_backend.base import migration_role

    with (
        migration_role(connection),
        connection.cursor() as cursor,
    ):  # TRUNCATE is the owner's, not the runtime's
        cursor.execute("TRUNCATE brain_memory CASCADE")
    assert memory_state(tenant.pk) != before


def test_state_cache_is_keyed_by_state_and_bounded():
    cache = StateCache("test", size=2)
    loads = []

    def load(value):
        def inner():
            loads.append(value)
            return value

        return inner

    assert cache.get(("k",), "s1", load(1)) == 1
    assert cache.get(("k",), "s1", load(99)) == 1  # hit
    assert cache.get(("k",), "s2", load(2)) == 2  # a new state is a miss
    cache.get(("other",), "s1", load(3))
    assert len(cache) == 2  # the least recently used entry went
    assert loads == [1, 2, 3]


def test_recall_sees_a_new_memory_right_after_a_cached_search(tenant):
    """The lexical statistics are cached under the state: a write invalidates them at once."""
    remember(tenant, "Parcels ship from Leeds on weekdays.")
    assert [r.text for r in recall(tenant_id=tenant.pk, query="leeds parcels", mode="fulltext")] == [
        "Parcels ship from Leeds on weekdays."
    ]
    # "zebra" was counted in 0 rows by the search below; a stale count would keep the new row unscored.
    assert recall(tenant_id=tenant.pk, query="zebra leeds", mode="fulltext")[0].explanation["query"][
        "lexemes"
    ] == ["leed", "zebra"]
    added = remember(tenant, "Zebra-print parcels need a signature.")
    found = recall(tenant_id=tenant.pk, query="zebra leeds", mode="fulltext")
    assert added.id in [r.id for r in found]
    assert "fts" in next(r for r in found if r.id == added.id).explanation["tiers"]


def test_agent_caches_see_status_changes_at_once(tenant):
    memory = remember(tenant, "Never promise refunds.", scope_kind="agent", scope_id="5", type="agent_memory",
                      status="draft", strength="hard_rule")  # fmt: skip
    assert brain_api.agent_memories_active(tenant_id=tenant.pk, agent_id=5) == []
    assert brain_api.agent_memory_status_counts(tenant_id=tenant.pk, agent_ids=[5]) == {5: {"draft": 1}}
    Memory.objects.all_tenants().filter(pk=memory.pk).update(status="active")
    assert [m.id for m in brain_api.agent_memories_active(tenant_id=tenant.pk, agent_id=5)] == [memory.pk]
    assert brain_api.agent_memory_status_counts(tenant_id=tenant.pk, agent_ids=[5]) == {5: {"active": 1}}
    active, counts = brain_api.agent_runtime_memories(tenant_id=tenant.pk, agent_id=5)
    assert [m.id for m in active] == [memory.pk] and counts == {"active": 1}
    Memory.objects.all_tenants().filter(pk=memory.pk).update(status="stale")
    assert brain_api.agent_runtime_memories(tenant_id=tenant.pk, agent_id=5) == ((), {"stale": 1})


def test_states_read_once_answers_its_scopes_from_one_statement(tenant, django_assert_num_queries):
    remember(tenant, "A Client Brain row.", scope_kind="tenant")
    remember(tenant, "Agent 5's rule.", scope_kind="agent", scope_id="5")
    agent_state = memory_state(tenant.pk, scope_kind="agent", scope_ids=["5"])
    tenant_state = memory_state(tenant.pk, scope_kind=BrainScopeKind.TENANT)
    whole = memory_state(tenant.pk)
    with django_assert_num_queries(1):
        with states_read_once(tenant.pk, [("agent", [5]), ("tenant", None)]):
            # The same answers as separate reads: ids as ints or strings, the scope kind as a TextChoices member.
            assert memory_state(tenant.pk, scope_kind="agent", scope_ids=["5"]) == agent_state
            assert memory_state(tenant.pk, scope_kind=BrainScopeKind.AGENT, scope_ids=[5]) == agent_state
            assert memory_state(tenant.pk, scope_kind=BrainScopeKind.TENANT) == tenant_state
    with django_assert_num_queries(2):  # a scope the block did not read is read as usual
        with states_read_once(tenant.pk, [("tenant", None)]):
            assert memory_state(tenant.pk) == whole
    with states_read_once(tenant.pk, [("tenant", None)]):
        remember(tenant, "Written inside the block.", scope_kind="tenant")
        assert memory_state(tenant.pk, scope_kind="tenant") == tenant_state  # the state read on entry
    assert memory_state(tenant.pk, scope_kind="tenant") != tenant_state  # and read afresh after it


def test_states_read_once_answers_only_its_own_tenant(tenant, other_tenant):
    remember(other_tenant, "Another tenant's row.", scope_kind="tenant")
    theirs = memory_state(other_tenant.pk, scope_kind="tenant")
    with states_read_once(tenant.pk, [("tenant", None)]):
        assert memory_state(other_tenant.pk, scope_kind="tenant") == theirs
        remember(other_tenant, "Another tenant's second row.", scope_kind="tenant")
        assert memory_state(other_tenant.pk, scope_kind="tenant") != theirs  # read afresh, not from the block
