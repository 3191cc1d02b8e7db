"""Issue 26, section 3: "A trace moves a memory by at most one full delta in total, whatever number of verdict
keys arrives for it" — also when the same context trace is judged as itself, through its run and through its
conversation (each a record of its own, with its own verdict key)."""

import pytest
from django.urls import reverse

from brain.models import Memory, MemoryHistory
from intelligence.models import AgentRun, ContextTrace, Conversation
from intelligence.services import verdict_apply

from .factories import add_memory, make_agent
from .test_runs import context

pytestmark = pytest.mark.django_db

DELTA = 0.05


def confidence(memory_id) -> float:
    return Memory.objects.all_tenants().get(pk=memory_id).confidence


def verdict_history(tenant, memory_id):
    return (
        MemoryHistory.objects.for_tenant(tenant).filter(memory_id=memory_id, action="verdict").order_by("id")
    )


def trace_in_a_run_and_a_conversation(api, tenant):
    """One context trace that injected a rule, served a conversation's turn and is listed by a run too."""
    agent = make_agent(tenant)
    rule = add_memory(agent, "Never promise a refund before billing confirms it.")
    body = context(api, agent, conversation_id="chat-1", conversation="Can I get a refund?").json()
    trace = ContextTrace.objects.for_tenant(tenant).get(pk=body["trace_id"])
    assert rule in trace.injected_memory_ids
    run = AgentRun.objects.create(tenant=tenant, agent=agent, context_trace=trace, trace_ids=[trace.pk])
    conversation = Conversation.objects.for_tenant(tenant).get(pk=body["conversation"]["id"])
    return rule, trace, run, conversation


def test_one_trace_judged_as_itself_through_its_run_and_its_conversation_moves_a_memory_by_one_delta(
    api, tenant
):
    """Before: each judged record had its own share, so the three verdicts took the rule from 0.7 to 0.55."""
    rule, trace, run, conversation = trace_in_a_run_and_a_conversation(api, tenant)
    bodies = [
        api.post(
            reverse("verdicts"),
            {name: pk, "verdict": "fail", "response_text": f"No [mem:{rule}].", "verdict_key": f"k-{name}"},
            format="json",
        )
        for name, pk in (("trace_id", trace.pk), ("run_id", run.pk), ("conversation_id", conversation.pk))
    ]
    assert [b.status_code for b in bodies] == [201, 201, 201]
    assert confidence(rule) == pytest.approx(0.7 - DELTA)
    first, *later = [b.json() for b in bodies]
    assert first["unmoved_memory_ids"] == [] and first["message"] == "Applied."
    for body in later:
        assert body["applied"] is True and body["unmoved_memory_ids"] == [rule]
        assert body["message"].startswith("Recorded, nothing moved.")
        (nudge,) = [n for n in body["nudges"] if n["memory_id"] == rule]
        assert (nudge["applied_share"], nudge["reason"]) == (0.0, "verdict_trace_spent")
    history = verdict_history(tenant, rule)
    assert [h.after["trace"] for h in history] == [
        f"trace:{trace.pk}",
        f"run:{run.pk}",
        f"conversation:{conversation.pk}",
    ]
    assert [h.after["applied_share"] for h in history] == [1.0, 0.0, 0.0]
    assert [h.reason for h in history] == ["verdict_cited", "verdict_trace_spent", "verdict_trace_spent"]
    assert all(h.after["injected_by"] == [f"trace:{trace.pk}"] for h in history)


def test_a_run_and_a_conversation_sharing_a_trace_spend_one_delta_through_the_service(api, tenant):
    rule, _, run, conversation = trace_in_a_run_and_a_conversation(api, tenant)
    by_run = verdict_apply(
        tenant_id=tenant.pk, run=run, verdict="fail", actor="process:test", verdict_key="outcome"
    )
    by_conversation = verdict_apply(
        tenant_id=tenant.pk,
        conversation=conversation,
        verdict="pass",
        actor="process:test",
        response_text=f"[mem:{rule}]",
        verdict_key="rating",
    )
    # Not cited by the run (no stored response): partial credit, 40 % of the share; the conversation's cited
    # pass may move the rest of it, and no more.
    assert [n.applied_share for n in by_run.nudges] == [pytest.approx(0.4)]
    assert [n.applied_share for n in by_conversation.nudges] == [pytest.approx(0.6)]
    assert confidence(rule) == pytest.approx(0.7 - 0.4 * DELTA + 0.6 * DELTA)
    again = verdict_apply(
        tenant_id=tenant.pk, conversation=conversation, verdict="fail", actor="process:test", verdict_key="x"
    )
    assert again.unmoved_memory_ids == (rule,)


def test_a_run_of_two_traces_spends_both_so_a_verdict_on_one_of_them_alone_moves_nothing(api, tenant):
    """Before: the verdict on the run's first trace moved the rule by a second full delta (0.7 to 0.6)."""
    agent = make_agent(tenant, name="Ads agent", kind="action")
    rule = add_memory(agent, "Never raise a budget by more than 20 percent a day.")
    first = context(api, agent, run_id="r-1", conversation="Raise the budget?").json()
    second = context(api, agent, run_id="r-1", conversation="Raise it again?").json()
    assert first["run"]["id"] == second["run"]["id"]
    assert rule in first["injected_memory_ids"] and rule in second["injected_memory_ids"]
    post = dict(verdict="fail", response_text=f"Raised [mem:{rule}].")
    by_run = api.post(reverse("verdicts"), {"run_id": first["run"]["id"], **post}, format="json").json()
    assert [n["applied_share"] for n in by_run["nudges"]] == [1.0]
    assert confidence(rule) == pytest.approx(0.7 - DELTA)
    for trace_id in (first["trace_id"], second["trace_id"]):
        body = api.post(reverse("verdicts"), {"trace_id": trace_id, **post}, format="json").json()
        assert body["applied"] is True and body["unmoved_memory_ids"] == [rule]
        assert [(n["applied_share"], n["reason"]) for n in body["nudges"]] == [(0.0, "verdict_trace_spent")]
    assert confidence(rule) == pytest.approx(0.7 - DELTA)
    (run_entry, *trace_entries) = verdict_history(tenant, rule)
    assert run_entry.after["injected_by"] == [f"trace:{first['trace_id']}", f"trace:{second['trace_id']}"]
    assert [h.after["applied_share"] for h in trace_entries] == [0.0, 0.0]


def test_a_trace_judged_alone_first_leaves_its_run_only_what_is_left_on_every_trace(api, tenant):
    """The run's verdict moves the rule by the least left on the traces that injected it."""
    agent = make_agent(tenant, name="Ads agent", kind="action")
    rule = add_memory(agent, "Never raise a budget by more than 20 percent a day.")
    first = context(api, agent, run_id="r-2", conversation="Raise the budget?").json()
    context(api, agent, run_id="r-2", conversation="Raise it again?")
    # Merely present (not cited): 40 % of the first trace's share.
    api.post(reverse("verdicts"), {"trace_id": first["trace_id"], "verdict": "pass"}, format="json")
    body = api.post(
        reverse("verdicts"),
        {"run_id": first["run"]["id"], "verdict": "fail", "response_text": f"[mem:{rule}]"},
        format="json",
    ).json()
    assert [n["applied_share"] for n in body["nudges"]] == [pytest.approx(0.6)]
    assert confidence(rule) == pytest.approx(0.7 + 0.4 * DELTA - 0.6 * DELTA)


# --- intelligence 0008: the shares runs and conversations spent before are carried over to their traces ---------

BEFORE = [("intelligence", "0007_tenant_in_tenancy_app")]


def migrate(targets) -> None:
    """Migrations run as the schema's owner, and the tenant wall is put back as `migrate` does."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from config.db_backend.base import migration_role
    from tickets.tenancy.wall import wall_install

    with migration_role(connection):
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(targets)
        wall_install(connection)


def test_the_migration_charges_what_runs_and_conversations_spent_to_their_traces(transactional_db, tenant):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from brain.models import VerdictSpend
    from intelligence.models import ConversationTurn

    agent = make_agent(tenant)
    rule = add_memory(agent, "Never promise a refund before billing confirms it.")
    other = add_memory(agent, "Always sign replies with the team name.", strength="heuristic")

    def trace(*injected):
        return ContextTrace.objects.create(tenant=tenant, agent=agent, injected_memory_ids=list(injected))

    t1, t2, t3 = trace(rule, other), trace(rule), trace(other)
    run = AgentRun.objects.create(tenant=tenant, agent=agent, trace_ids=[t1.pk, t2.pk])
    conversation = Conversation.objects.create(tenant=tenant, agent=agent)
    for t in (t1, t3):
        ConversationTurn.objects.create(tenant=tenant, conversation=conversation, context_trace=t)
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    migrate(BEFORE)
    try:
        earlier = {
            (f"run:{run.pk}", rule): 0.4, (f"run:{run.pk}", other): 1.0,
            (f"conversation:{conversation.pk}", rule): 0.4, (f"conversation:{conversation.pk}", other): 0.4,
            (f"trace:{t1.pk}", rule): 0.4, (f"trace:{t3.pk}", other): 0.8, ("run:999999", rule): 1.0,
        }  # fmt: skip
        for (ref, memory_id), spent in earlier.items():
            VerdictSpend.objects.create(
                tenant=tenant, trace=ref, memory_id=memory_id, spent=spent, last_applied=spent
            )
        migrate(leaves)
        spent = {(s.trace, s.memory_id): s.spent for s in VerdictSpend.objects.for_tenant(tenant)}
        assert spent == {
            # t1 injected both: its own 0.4 on the rule, plus the run's and the conversation's.
            (f"trace:{t1.pk}", rule): pytest.approx(1.0), (f"trace:{t1.pk}", other): pytest.approx(1.0),
            (f"trace:{t2.pk}", rule): pytest.approx(0.4),  # the run's; t2 never injected `other`
            (f"trace:{t3.pk}", other): pytest.approx(1.0),  # 0.8 of its own and the conversation's 0.4, capped
        }  # fmt: skip
    finally:
        migrate(leaves)
