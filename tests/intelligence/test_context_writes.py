"""What the runtime context call writes (issue 30, section 0): one statement, committed before the answer,
and a caller's id continued by an upsert that concurrent first calls share."""

import threading

import pytest
from django.db import connection, connections

from intelligence.models import AgentRun, ContextTrace, Conversation, ConversationTurn
from intelligence.services import ContextRequest, agent_context_open
from tickets.tenancy.wall import tenant_scope

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db(transaction=True)


def in_thread(function):
    """Run `function` on a connection of its own (another session, as another web process would be)."""
    result, errors = [], []

    def run():
        try:
            result.append(function())
        except Exception as exc:  # noqa: BLE001 - re-raised in the test's thread
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


def test_the_trace_turn_and_conversation_are_committed_when_the_call_returns(tenant):
    agent = make_agent(tenant)
    add_memory(agent, "Always greet the customer by name.")
    with tenant_scope(tenant.pk):
        _, _, trace, record = agent_context_open(
            agent=agent, request=ContextRequest(conversation="Where is my parcel?"), conversation_id="c-1"
        )
        assert not connection.in_atomic_block  # nothing left to commit after the answer

    def seen_by_another_session():
        with tenant_scope(tenant.pk):
            conversation = Conversation.objects.for_tenant(tenant.pk).get(pk=record.id)
            turns = list(ConversationTurn.objects.for_tenant(tenant.pk).filter(conversation=conversation))
            return (
                conversation.context_trace_id,
                [t.context_trace_id for t in turns],
                ContextTrace.objects.for_tenant(tenant.pk).filter(pk=trace.pk).exists(),
            )

    assert in_thread(seen_by_another_session) == (trace.pk, [trace.pk], True)


@pytest.mark.parametrize("kind", ["knowledge", "action"])
def test_concurrent_first_calls_with_one_caller_id_share_one_record(tenant, kind):
    agent = make_agent(tenant, kind=kind)
    key = {"run_id": "r-1"} if kind == "action" else {"conversation_id": "c-1"}
    barrier = threading.Barrier(2)

    def call():
        with tenant_scope(tenant.pk):
            barrier.wait()
            _, _, trace, record = agent_context_open(
                agent=agent, request=ContextRequest(conversation="Raise the budget?"), **key
            )
            return trace.pk, record

    results = []
    threads = [threading.Thread(target=lambda: results.append(in_thread(call))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2
    (trace_a, record_a), (trace_b, record_b) = results
    assert record_a.id == record_b.id and sorted([record_a.created, record_b.created]) == [False, True]
    with tenant_scope(tenant.pk):
        if kind == "action":
            run = AgentRun.objects.for_tenant(tenant.pk).get(pk=record_a.id)
            assert (
                sorted(run.trace_ids) == sorted([trace_a, trace_b]) and run.context_trace_id in run.trace_ids
            )
        else:
            turns = ConversationTurn.objects.for_tenant(tenant.pk).filter(conversation_id=record_a.id)
            assert sorted(t.context_trace_id for t in turns) == sorted([trace_a, trace_b])
