"""apply_evaluator_verdict (spec: shared_intelligence.txt, "Closing the loop: recall that's graded by outcome")."""

import math

import pytest

from brain.api import VerdictInputError, apply_evaluator_verdict, memory_history
from brain.models import AppliedVerdict, Memory, MemoryHistory
from brain.verdicts import DEFAULTS

pytestmark = pytest.mark.django_db

DELTA, PARTIAL, FLOOR = DEFAULTS["DELTA"], DEFAULTS["PARTIAL_CREDIT"], DEFAULTS["FLOOR"]


def agent_memory(tenant, text="Never promise refunds before billing confirms.", confidence=0.7, **extra):
    return Memory.objects.create(
        tenant=tenant, scope_kind="agent", scope_id="1", type="agent_memory", text=text,
        confidence=confidence, status=extra.pop("status", "active"), strength="hard_rule", **extra,
    )  # fmt: skip


def client_brain_row(tenant, confidence=0.7):
    return Memory.objects.create(
        tenant=tenant,
        scope_kind="tenant",
        type="business",
        text="Acme ships from Lyon.",
        confidence=confidence,
    )


def verdict(tenant, memories, verdict="pass", response="", trace="trace:1", **kwargs):
    return apply_evaluator_verdict(
        tenant_id=tenant.pk, trace=trace, verdict=verdict, response_text=response,
        injected_memory_ids=[m.pk if hasattr(m, "pk") else m for m in memories], **kwargs,
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
    row = client_brain_row(
        tenant, confidence=stored
    )  # a tenant row: never archived, so only the number moves
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


def test_client_brain_rows_move_in_confidence_but_are_never_archived_while_pruning_is_suspended(tenant):
    row = client_brain_row(tenant, confidence=FLOOR + 0.01)
    for n in range(5):
        verdict(tenant, [row], "fail", response=f"[mem:{row.pk}]", trace=f"trace:{n}")
    kept = Memory.objects.all_tenants().get(pk=row.pk)
    assert kept.status == "active"
    assert kept.confidence == 0.0
    assert not MemoryHistory.objects.for_tenant(tenant).filter(memory=row, action="archived").exists()


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
    assert confidence(memory) == 0.7 and not AppliedVerdict.objects.for_tenant(tenant).exists()


def test_a_verdict_costs_two_statements_whatever_the_number_of_memories(
    tenant, django_assert_max_num_queries
):
    memories = [agent_memory(tenant, f"Rule number {i} about refunds and invoices.") for i in range(40)]
    # Inside the test's transaction the function's atomic block is a savepoint: two statements more.
    with django_assert_max_num_queries(4):
        result = verdict(tenant, memories, "pass", response=" ".join(f"[mem:{m.pk}]" for m in memories[:5]))
    assert len(result.nudges) == 40
