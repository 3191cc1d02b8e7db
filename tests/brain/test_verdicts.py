"""apply_evaluator_verdict (spec: shared_intelligence.txt, "Closing the loop: recall that's graded by outcome")."""

import math

import pytest

from brain.api import VerdictInputError, apply_evaluator_verdict, memory_history
from brain.models import AppliedVerdict, Memory, MemoryHistory, VerdictSpend
from brain.verdicts import DEFAULTS

pytestmark = pytest.mark.django_db

DELTA, PARTIAL, FLOOR = DEFAULTS["DELTA"], DEFAULTS["PARTIAL_CREDIT"], DEFAULTS["FLOOR"]


def agent_memory(tenant, text="Never promise refunds before billing confirms.", confidence=0.7, **extra):
    return Memory.objects.create(
        tenant=tenant, scope_kind="agent", scope_id="1", type="agent_memory", text=text,
        confidence=confidence, status=extra.pop("status", "active"), strength="hard_rule", **extra,
    )  # fmt: skip


def tenant_fact(tenant, confidence=0.7):
    """A tenant-scoped memory of another surface than Client Brain (a fact): graded, never archived."""
    return Memory.objects.create(
        tenant=tenant, scope_kind="tenant", type="fact", text="Acme ships from Lyon.", confidence=confidence
    )


def client_brain_row(tenant, confidence=0.7):
    return Memory.objects.create(
        tenant=tenant,
        scope_kind="tenant",
        type="business",
        text="Acme ships from Lyon.",
        confidence=confidence,
    )


def verdict(tenant, memories, verdict="pass", response="", trace="trace:1", **kwargs):
    """A verdict on one trace (judged alone: its own one underlying trace)."""
    return apply_evaluator_verdict(
        tenant_id=tenant.pk, judged=trace, verdict=verdict, response_text=response,
        injected_by_trace={trace: [m.pk if hasattr(m, "pk") else m for m in memories]}, **kwargs,
    )  # fmt: skip


def confidence(memory) -> float:
    return Memory.objects.all_tenants().get(pk=memory.pk).confidence


def test_a_pass_raises_and_a_fail_lowers_every_injected_memory(tenant):
    a, b = agent_memory(tenant), agent_memory(tenant, "Always greet the customer by name.")
    verdict(tenant, [a, b], "pass", trace="trace:1")
    assert confidence(a) == pytest.approx(0.7 + PARTIAL * DELTA)
    verdict(tenant, [a, b], "fail", trace="trace:2")
    verdict(tenant, [a, b], "fail", trace="trace:3")
    assert confidence(a) == pytest.approx(0.7 - PARTIAL * DELTA)
    assert confidence(b) == pytest.approx(0.7 - PARTIAL * DELTA)


def test_a_cited_memory_gets_the_full_delta_and_one_merely_present_partial_credit(tenant):
    cited, present = agent_memory(tenant), agent_memory(tenant, "Always greet the customer by name.")
    result = verdict(tenant, [cited, present], "pass", response=f"No refund yet [mem:{cited.pk}].")
    assert confidence(cited) == pytest.approx(0.7 + DELTA)
    assert confidence(present) == pytest.approx(0.7 + PARTIAL * DELTA)
    assert result.cited_memory_ids == (cited.pk,)
    assert {n.memory_id: n.cited for n in result.nudges} == {cited.pk: True, present.pk: False}


def test_a_cited_id_that_was_not_injected_moves_nothing_and_is_reported(tenant):
    injected, outsider = agent_memory(tenant), agent_memory(tenant, "Always greet the customer by name.")
    result = verdict(tenant, [injected], "fail", response=f"As [mem:{outsider.pk}] says, and [mem:abc].")
    assert confidence(outsider) == 0.7
    assert result.cited_not_injected == (f"[mem:{outsider.pk}]", "[mem:abc]")
    assert [n.memory_id for n in result.nudges] == [injected.pk]
    assert not MemoryHistory.objects.for_tenant(tenant).filter(memory=outsider, action="verdict").exists()


def test_another_tenants_memory_in_the_injected_ids_is_missing_and_never_moves(tenant, other_tenant):
    mine, theirs = agent_memory(tenant), agent_memory(other_tenant)
    result = verdict(tenant, [mine, theirs], "fail", response=f"[mem:{theirs.pk}]")
    assert confidence(theirs) == 0.7
    assert result.missing_memory_ids == (theirs.pk,)
    assert not MemoryHistory.objects.all_tenants().filter(memory=theirs).exists()


def test_a_repeat_of_the_same_trace_and_key_is_a_no_op_that_says_so(tenant):
    memory = agent_memory(tenant)
    first = verdict(tenant, [memory], "pass", trace="run:9")
    again = verdict(tenant, [memory], "pass", trace="run:9")
    assert first.applied and not again.applied
    assert again.nudges == () and again.applied_at == first.applied_at
    assert confidence(memory) == pytest.approx(0.7 + PARTIAL * DELTA)
    other_key = verdict(tenant, [memory], "pass", trace="run:9", verdict_key="outcome")
    assert other_key.applied
    assert AppliedVerdict.objects.for_tenant(tenant).count() == 2


def test_the_same_trace_name_in_another_tenant_is_its_own_verdict(tenant, other_tenant):
    mine, theirs = agent_memory(tenant), agent_memory(other_tenant)
    assert verdict(tenant, [mine], trace="trace:5").applied
    assert verdict(other_tenant, [theirs], trace="trace:5").applied


@pytest.mark.parametrize(
    ("stored", "outcome", "expected"),
    [
        (1.0, "pass", 1.0),
        (0.0, "fail", 0.0),
        (float("nan"), "pass", DEFAULTS["UNGRADED_START"] + DELTA),
        (None, "fail", DEFAULTS["UNGRADED_START"] - DELTA),
        (float("inf"), "fail", 1.0 - DELTA),
        (-3.0, "pass", DELTA),
        (7.5, "pass", 1.0),
    ],
)
def test_confidence_stays_finite_in_zero_to_one(tenant, stored, outcome, expected):
    # A tenant row of another surface: never archived, so only the number moves. (Client Brain rows, used here
    # before issue 26, no longer move at all.)
    row = tenant_fact(tenant, confidence=stored)
    result = verdict(tenant, [row], outcome, response=f"[mem:{row.pk}]")
    value = confidence(row)
    assert math.isfinite(value) and 0.0 <= value <= 1.0
    assert value == pytest.approx(expected)
    assert result.nudges[0].confidence_after == pytest.approx(expected)


def test_below_the_floor_an_agent_memory_is_archived_and_history_says_why(tenant):
    memory = agent_memory(tenant, confidence=FLOOR + DELTA / 2)
    result = verdict(tenant, [memory], "fail", response=f"[mem:{memory.pk}]", trace="run:3")
    row = Memory.objects.all_tenants().get(pk=memory.pk)
    assert row.status == "archived" and row.confidence < FLOOR
    assert result.archived_memory_ids == (memory.pk,)
    archived = MemoryHistory.objects.for_tenant(tenant).get(memory=memory, action="archived")
    assert archived.reason == "verdict_confidence_below_floor"
    assert archived.after["trace"] == "run:3" and archived.after["floor"] == FLOOR


def test_client_brain_rows_are_recorded_not_graded_and_never_archived(tenant):
    """Issue 26 changed this test: Client Brain rows used to move in confidence (here down to 0.0)."""
    row = client_brain_row(tenant, confidence=FLOOR + 0.01)
    for n in range(5):
        verdict(tenant, [row], "fail", response=f"[mem:{row.pk}]", trace=f"trace:{n}")
    kept = Memory.objects.all_tenants().get(pk=row.pk)
    assert kept.status == "active"
    assert kept.confidence == FLOOR + 0.01
    assert not MemoryHistory.objects.for_tenant(tenant).filter(memory=row, action="archived").exists()
    assert (
        MemoryHistory.objects.for_tenant(tenant).filter(memory=row, reason="verdict_not_graded").count() == 5
    )


def test_a_draft_or_superseded_memory_moves_but_keeps_its_status(tenant):
    draft = agent_memory(tenant, confidence=0.21, status="draft")
    verdict(tenant, [draft], "fail", response=f"[mem:{draft.pk}]")
    assert Memory.objects.all_tenants().get(pk=draft.pk).status == "draft"


def test_every_nudge_is_a_history_entry_carrying_the_trace(tenant):
    a, b = agent_memory(tenant), agent_memory(tenant, "Always greet the customer by name.")
    verdict(tenant, [a, b], "fail", response=f"[mem:{a.pk}]", trace="trace:42", actor="api-key:abc")
    for memory, cited in ((a, True), (b, False)):
        (entry,) = [
            h for h in memory_history(tenant_id=tenant.pk, memory_id=memory.pk) if h.action == "verdict"
        ]
        assert entry.after["trace"] == "trace:42"
        assert entry.after["verdict"] == "fail" and entry.after["cited"] is cited
        assert entry.reason == ("verdict_cited" if cited else "verdict_present")
        assert entry.before["confidence"] == 0.7 and entry.actor == "api-key:abc"


def test_bad_input_is_refused_before_anything_moves(tenant):
    memory = agent_memory(tenant)
    with pytest.raises(VerdictInputError, match="pass' or 'fail"):
        verdict(tenant, [memory], "maybe")
    with pytest.raises(VerdictInputError, match="trace"):
        verdict(tenant, [memory], trace=" ")
    with pytest.raises(VerdictInputError, match="underlying trace"):
        judged_verdict(tenant, "run:1", {"trace:1": [memory], "": [memory]})
    with pytest.raises(VerdictInputError, match="underlying trace"):
        judged_verdict(tenant, "run:1", {"t" * 65: [memory]})
    with pytest.raises(VerdictInputError, match="injected_by_trace"):
        apply_evaluator_verdict(
            tenant_id=tenant.pk,
            judged="run:1",
            verdict="pass",
            response_text="",
            injected_by_trace=[memory.pk],
        )
    assert confidence(memory) == 0.7 and not AppliedVerdict.objects.for_tenant(tenant).exists()


def test_a_verdict_costs_two_statements_whatever_the_number_of_memories(
    tenant, django_assert_max_num_queries
):
    memories = [agent_memory(tenant, f"Rule number {i} about refunds and invoices.") for i in range(40)]
    # Inside the test's transaction the function's atomic block is a savepoint: two statements more.
    with django_assert_max_num_queries(4):
        result = verdict(tenant, memories, "pass", response=" ".join(f"[mem:{m.pk}]" for m in memories[:5]))
    assert len(result.nudges) == 40


# --- Issue 26, section 3: a trace moves a memory by at most one delta; Client Brain rows are not graded ----------


def test_ten_verdict_keys_on_one_trace_move_a_memory_by_at_most_one_delta(tenant):
    """Issue 26: ten keys on one trace took a row from 0.9 to 0.4. Every verdict is recorded; one moves."""
    memory = agent_memory(tenant, confidence=0.9)
    results = [
        verdict(tenant, [memory], "fail", response=f"[mem:{memory.pk}]", trace="trace:7", verdict_key=f"k{n}")
        for n in range(10)
    ]
    assert confidence(memory) == pytest.approx(0.9 - DELTA)
    assert all(r.applied for r in results)
    assert [n.applied_share for r in results for n in r.nudges] == [1.0] + [0.0] * 9
    assert all(n.reason == "verdict_trace_spent" for r in results[1:] for n in r.nudges)
    assert all(r.unmoved_memory_ids == (memory.pk,) for r in results[1:])
    assert AppliedVerdict.objects.for_tenant(tenant).filter(trace="trace:7").count() == 10
    history = MemoryHistory.objects.for_tenant(tenant).filter(memory=memory, action="verdict")
    assert history.count() == 10
    assert sorted(h.after["applied_share"] for h in history) == [0.0] * 9 + [1.0]


def test_partial_credit_spends_the_same_one_delta_and_pass_and_fail_count_alike(tenant):
    """The total movement one trace causes on one memory, over all its verdicts, is at most DELTA."""
    present = agent_memory(tenant, confidence=0.7)
    shares = [
        verdict(tenant, [present], "fail", trace="run:4", verdict_key=f"k{n}").nudges[0].applied_share
        for n in range(4)
    ]
    assert shares == pytest.approx([PARTIAL, PARTIAL, 1 - 2 * PARTIAL, 0.0])
    assert confidence(present) == pytest.approx(0.7 - DELTA)
    swung = agent_memory(tenant, "Always greet the customer by name.", confidence=0.7)
    verdict(tenant, [swung], "pass", response=f"[mem:{swung.pk}]", trace="run:5", verdict_key="a")
    undone = verdict(tenant, [swung], "fail", response=f"[mem:{swung.pk}]", trace="run:5", verdict_key="b")
    assert confidence(swung) == pytest.approx(0.7 + DELTA)
    assert undone.nudges[0].confidence_after == pytest.approx(0.7 + DELTA)
    # Another trace has its own delta.
    verdict(tenant, [swung], "fail", response=f"[mem:{swung.pk}]", trace="run:6")
    assert confidence(swung) == pytest.approx(0.7)


def test_a_client_brain_row_injected_into_failed_runs_keeps_its_confidence_and_is_still_recalled(tenant):
    """Issue 26: two failed verdicts took a row out of recall. Client Brain rows are not graded by outcomes
    (client_brain.txt: no learning from response ratings, no automatic forgetting; DESIGN.md decision 15):
    the verdict is recorded in the row's history and counted on the dashboard."""
    from django.test import Client

    from brain.api import client_brain_context
    from brain.client_brain.dashboard import client_brain_stats
    from tests.conftest import make_member
    from tickets.tenancy.models import Role

    from .factories import fact

    row = fact(tenant, "We ship from Lyon", confidence=0.55)
    results = [
        verdict(tenant, [row], "fail", response=f"Shipped [mem:{row.pk}].", trace=f"run:{n}") for n in (1, 2)
    ]
    stored = Memory.objects.all_tenants().get(pk=row.pk)
    assert (stored.confidence, stored.status) == (0.55, "active")
    assert f"[mem:{row.pk}]" in client_brain_context(tenant_id=tenant.pk, subject="Lyon shipping").prompt
    for result in results:
        (nudge,) = result.nudges
        assert nudge.applied_share == 0.0 and nudge.reason == "verdict_not_graded"
        assert result.ungraded_memory_ids == (row.pk,)
    entries = MemoryHistory.objects.for_tenant(tenant).filter(memory=row, action="verdict")
    assert sorted(e.after["trace"] for e in entries) == ["run:1", "run:2"]
    assert all(e.after["graded"] is False and e.after["confidence"] == 0.55 for e in entries)
    assert client_brain_stats(tenant_id=tenant.pk).verdicts_recorded == 2
    viewer = Client()
    viewer.force_login(make_member(tenant, Role.VIEWER))
    html = viewer.get("/insights/analytics/client-brain/").content.decode()
    assert 'data-testid="verdicts-recorded">2<' in html


def test_an_agent_memory_beside_a_client_brain_row_is_still_graded(tenant):
    row, rule = client_brain_row(tenant, confidence=0.7), agent_memory(tenant, confidence=0.7)
    result = verdict(tenant, [row, rule], "pass", response=f"[mem:{row.pk}] [mem:{rule.pk}]")
    assert (confidence(row), confidence(rule)) == (0.7, pytest.approx(0.7 + DELTA))
    assert result.ungraded_memory_ids == (row.pk,) and result.unmoved_memory_ids == (row.pk,)


def judged_verdict(tenant, judged, injected_by_trace, verdict="fail", response="", **kwargs):
    """A verdict on a record made of several traces (a run, a conversation), as intelligence names them."""
    return apply_evaluator_verdict(
        tenant_id=tenant.pk, judged=judged, verdict=verdict, response_text=response,
        injected_by_trace={t: [m.pk for m in ms] for t, ms in injected_by_trace.items()}, **kwargs,
    )  # fmt: skip


def at_once(memory, calls) -> None:
    """Run `calls` in threads, each inside its statements before any commits: the test holds the memory's row
    lock until every one of them waits on a lock."""
    import threading
    import time

    from django.db import connection, transaction

    from tickets.tenancy.wall import tenant_scope

    errors: list[BaseException] = []

    def work(call) -> None:
        try:
            with tenant_scope(memory.tenant_id):
                call()
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(call,)) for call in calls]
    with transaction.atomic():
        Memory.objects.all_tenants().select_for_update().get(pk=memory.pk)
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 30
        with connection.cursor() as cursor:
            while time.monotonic() < deadline:
                # The statistics views are read once a transaction unless the snapshot is cleared.
                cursor.execute("SELECT pg_stat_clear_snapshot()")
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    " AND datname = current_database() AND pid <> pg_backend_pid()"
                )
                if cursor.fetchone()[0] >= len(calls):
                    break
                time.sleep(0.05)
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors


@pytest.mark.django_db(transaction=True)
def test_two_verdicts_on_one_trace_arriving_at_once_move_a_memory_by_one_delta(tenant):
    memory = agent_memory(tenant, confidence=0.9)
    cite = f"[mem:{memory.pk}]"
    at_once(
        memory,
        [
            lambda key=key: verdict(tenant, [memory], "fail", response=cite, trace="trace:8", verdict_key=key)
            for key in ("a", "b")
        ],
    )
    assert confidence(memory) == pytest.approx(0.9 - DELTA)
    history = MemoryHistory.objects.all_tenants().filter(memory=memory, action="verdict")
    assert sorted(h.after["applied_share"] for h in history) == [0.0, 1.0]


@pytest.mark.django_db(transaction=True)
def test_one_trace_judged_through_three_records_at_once_moves_a_memory_by_one_delta(tenant):
    """The trace alone, its run and its conversation: three records, three shares before; one trace, one now."""
    memory = agent_memory(tenant, confidence=0.9)
    cite = f"[mem:{memory.pk}]"
    at_once(
        memory,
        [
            lambda judged=judged: judged_verdict(tenant, judged, {"trace:8": [memory]}, response=cite)
            for judged in ("trace:8", "run:3", "conversation:4")
        ],
    )
    assert confidence(memory) == pytest.approx(0.9 - DELTA)
    history = MemoryHistory.objects.all_tenants().filter(memory=memory, action="verdict")
    assert sorted(h.after["applied_share"] for h in history) == [0.0, 0.0, 1.0]
    assert VerdictSpend.objects.all_tenants().get(memory_id=memory.pk).trace == "trace:8"


# --- A record of several traces: its verdicts spend every trace's share; a trace alone finds them spent ---------


def test_a_record_of_two_traces_charges_both_and_moves_by_the_least_left(tenant):
    a, b = agent_memory(tenant), agent_memory(tenant, "Always greet the customer by name.")
    run = judged_verdict(
        tenant, "run:1", {"trace:1": [a, b], "trace:2": [a]}, "pass", response=f"[mem:{a.pk}]"
    )
    assert [(n.memory_id, n.applied_share) for n in run.nudges] == [
        (a.pk, 1.0),
        (b.pk, pytest.approx(PARTIAL)),
    ]
    spent = dict(
        ((s.trace, s.memory_id), s.spent) for s in VerdictSpend.objects.for_tenant(tenant)
    )  # a memory is charged only to the traces that injected it
    assert spent == {
        ("trace:1", a.pk): 1.0,
        ("trace:2", a.pk): 1.0,
        ("trace:1", b.pk): pytest.approx(PARTIAL),
    }
    alone = verdict(tenant, [a, b], "fail", response=f"[mem:{a.pk}] [mem:{b.pk}]", trace="trace:1")
    assert [(n.applied_share, n.reason) for n in alone.nudges] == [
        (0.0, "verdict_trace_spent"),
        (pytest.approx(1 - PARTIAL), "verdict_cited"),
    ]
    assert confidence(a) == pytest.approx(0.7 + DELTA)
    assert confidence(b) == pytest.approx(0.7 + PARTIAL * DELTA - (1 - PARTIAL) * DELTA)
    # b's share on trace:1 is spent now: a conversation holding trace:1 and a fresh trace moves b by the least
    # left on them, nothing, and charges nothing to the fresh trace.
    later = judged_verdict(
        tenant, "conversation:1", {"trace:1": [b], "trace:3": [b]}, response=f"[mem:{b.pk}]"
    )
    assert [(n.memory_id, n.applied_share) for n in later.nudges] == [(b.pk, 0.0)]
    assert not VerdictSpend.objects.for_tenant(tenant).filter(trace="trace:3").exists()
    entry = MemoryHistory.objects.for_tenant(tenant).filter(memory=b, action="verdict").latest("id")
    assert entry.after["trace"] == "conversation:1" and entry.after["injected_by"] == ["trace:1", "trace:3"]


def test_a_judged_record_is_still_idempotent_per_key_whatever_its_traces(tenant):
    memory = agent_memory(tenant)
    first = judged_verdict(tenant, "run:2", {"trace:5": [memory], "trace:6": [memory]}, verdict_key="outcome")
    again = judged_verdict(tenant, "run:2", {"trace:5": [memory]}, verdict_key="outcome")
    assert first.applied and not again.applied and again.judged == "run:2"
    assert again.injected_memory_ids == (memory.pk,) and again.nudges == ()
    assert confidence(memory) == pytest.approx(0.7 - PARTIAL * DELTA)


def test_a_record_without_traces_is_recorded_and_moves_nothing(tenant):
    result = judged_verdict(tenant, "conversation:9", {})
    assert result.applied and result.nudges == () and result.injected_memory_ids == ()
