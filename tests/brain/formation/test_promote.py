"""promote(): gate → judge → hard duplicate backstop → add / reinforce / supersede / reject, with history and graph."""

import pytest

from brain.api import memory_history, promote
from brain.models import BrainEdge, GraphRelation, Memory, MemoryHistory, MemoryStatus, WriteSurface
from brain.types import MemoryCandidate
from tests.loopback import LoopbackOpenAI

pytestmark = pytest.mark.django_db


def candidate(tenant, text, **kwargs):
    kwargs.setdefault("type", "fact")
    kwargs.setdefault("actor", "process:test")
    return MemoryCandidate(tenant_id=tenant.pk, text=text, **kwargs)


def edges(tenant, relation):
    return list(
        BrainEdge.objects.for_tenant(tenant)
        .filter(relation=relation)
        .values_list("source__kind", "source__ref", "target__kind", "target__ref")
    )


def test_a_new_fact_is_added_with_its_history_embedding_and_provenance_edge(tenant):
    outcome = promote(
        candidate(
            tenant, "Acme ships orders within two business days.", provenance=[{"kind": "ticket", "id": 17}]
        )
    )
    assert (outcome.result, outcome.reason) == ("added", "new_fact")
    memory = Memory.objects.for_tenant(tenant).get(pk=outcome.memory_id)
    assert memory.text == "Acme ships orders within two business days." and memory.frequency == 1
    assert memory.embedding is not None and memory.embedding_model
    assert memory.provenance[0]["kind"] == "ticket" and memory.provenance[0]["surface"] == WriteSurface.IMPORT
    [entry] = memory_history(tenant_id=tenant.pk, memory_id=memory.pk)
    assert (entry.action, entry.after["text"]) == ("added", memory.text)
    assert edges(tenant, GraphRelation.DERIVED_FROM) == [("memory", str(memory.pk), "ticket", "17")]


def test_the_same_fact_again_is_reinforced_not_written_twice(tenant):
    first = promote(candidate(tenant, "Acme ships orders within two business days.", confidence=0.6))
    second = promote(
        candidate(
            tenant, "acme ships orders within two business days!", provenance=[{"kind": "run", "id": "r-9"}]
        )
    )
    assert second.result == "reinforced" and second.memory_id == first.memory_id
    memory = Memory.objects.for_tenant(tenant).get()
    assert memory.frequency == 2 and memory.confidence == pytest.approx(0.65)
    assert [p.get("kind") for p in memory.provenance] == [None, "run"]
    actions = [h.action for h in memory_history(tenant_id=tenant.pk, memory_id=memory.pk)]
    assert actions == ["reinforced", "added"]
    assert edges(tenant, GraphRelation.REINFORCES) == [("run", "r-9", "memory", str(memory.pk))]


def test_a_paraphrase_of_a_standing_fact_is_reinforced(tenant):
    promote(candidate(tenant, "Acme ships all orders within two business days."))
    outcome = promote(candidate(tenant, "Orders from Acme ship within two business days."))
    assert outcome.result == "reinforced"
    assert Memory.objects.for_tenant(tenant).count() == 1


def test_a_newer_value_for_the_same_key_supersedes_the_old_memory(tenant):
    old = promote(candidate(tenant, "Support hours are 9 to 5 on weekdays.", key="support_hours"))
    new = promote(candidate(tenant, "Support hours are 8 to 8 every day of the week.", key="support_hours"))
    assert (new.result, new.related_memory_id, new.reason) == (
        "superseded",
        old.memory_id,
        "same_key_new_value",
    )
    old_row = Memory.objects.for_tenant(tenant).get(pk=old.memory_id)
    assert old_row.status == MemoryStatus.SUPERSEDED and old_row.superseded_by_id == new.memory_id
    assert (old_row.pk, new.memory_id) not in []
    assert edges(tenant, GraphRelation.SUPERSEDES) == [
        ("memory", str(new.memory_id), "memory", str(old.memory_id))
    ]
    assert [h.action for h in memory_history(tenant_id=tenant.pk, memory_id=old.memory_id)] == [
        "superseded",
        "added",
    ]
    assert edges(tenant, GraphRelation.ABOUT)  # both memories are about the support_hours topic


def test_a_gate_rejection_writes_nothing_and_is_recorded_with_surface_and_reason(tenant):
    outcome = promote(
        candidate(
            tenant,
            "The admin password: hunter2hunter",
            surface=WriteSurface.MEMORY_APPEND,
            scope_kind="agent",
            scope_id="7",
        )
    )
    assert (outcome.result, outcome.reason, outcome.memory_id) == ("rejected", "secret", None)
    assert not Memory.objects.for_tenant(tenant).exists()
    record = MemoryHistory.objects.for_tenant(tenant).get()
    assert (record.action, record.memory, record.surface, record.reason) == (
        "rejected",
        None,
        "memory_append",
        "secret",
    )
    assert "hunter2hunter" not in str(record.after)


def test_operators_manual_memories_skip_the_judge_but_never_the_gate(tenant):
    rejected = promote(
        candidate(tenant, "I will now check the refund tool.", skip_judge=True, surface=WriteSurface.OPERATOR)
    )
    assert (rejected.result, rejected.reason) == ("rejected", "process_narration")
    added = promote(candidate(tenant, "VIP customers get free express shipping.", skip_judge=True))
    assert added.result == "added" and added.detail["judge"] == "skipped"


def test_injected_memory_ids_are_resolved_for_the_echo_rule(tenant):
    injected = promote(candidate(tenant, "Canadian customers pay import duties on delivery."))
    echo = promote(
        candidate(
            tenant,
            "Canadian customers pay the import duties on delivery.",
            scope_kind="agent",
            scope_id="3",
            injected_memory_ids=[injected.memory_id],
        )
    )
    assert (echo.result, echo.reason) == ("rejected", "echoes_injected_memory")


def test_different_numbers_are_an_update_not_a_duplicate_and_are_marked_contradicting(tenant):
    first = promote(candidate(tenant, "The warehouse closes at 5 pm on Fridays."))
    second = promote(candidate(tenant, "The warehouse closes at 3 pm on Fridays."))
    assert second.result == "added"
    assert edges(tenant, GraphRelation.CONTRADICTS) == [
        ("memory", str(second.memory_id), "memory", str(first.memory_id))
    ]


def test_scopes_and_tenants_do_not_deduplicate_each_other(tenant, other_tenant):
    text = "Acme ships orders within two business days."
    outcomes = [
        promote(candidate(tenant, text)),
        promote(candidate(tenant, text, scope_kind="agent", scope_id="1")),
        promote(candidate(tenant, text, scope_kind="agent", scope_id="2")),
        promote(MemoryCandidate(tenant_id=other_tenant.pk, type="fact", text=text)),
    ]
    assert [o.result for o in outcomes] == ["added"] * 4


def test_a_related_neighbour_gets_a_related_to_edge(tenant):
    first = promote(candidate(tenant, "Acme ships orders within two business days."))
    second = promote(candidate(tenant, "Acme ships orders to Canada within five business days."))
    assert second.result == "added"
    assert ("memory", str(second.memory_id), "memory", str(first.memory_id)) in edges(
        tenant, GraphRelation.RELATED_TO
    ) + edges(tenant, GraphRelation.CONTRADICTS)


def test_memory_append_dedupes_against_the_agents_own_recent_notes(tenant):
    note = dict(surface=WriteSurface.MEMORY_APPEND, scope_kind="agent", scope_id="5", type="note")
    first = promote(candidate(tenant, "Customer Maria wants invoices sent to her accounting team.", **note))
    again = promote(candidate(tenant, "Maria wants her invoices sent to the accounting team.", **note))
    assert (again.result, again.reason, again.memory_id) == (
        "reinforced",
        "duplicate_recent_note",
        first.memory_id,
    )


# --- the judge: deterministic by default, an LLM through the provider interface when configured ---------


def test_the_backstop_overrides_an_llm_judge_that_always_says_add(tenant, settings):
    with LoopbackOpenAI() as server:
        server.chat_answers.append({"decision": "add", "target_id": None, "reason": "looks_new"})
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        outcomes = [
            promote(candidate(tenant, "Acme ships orders within two business days.")) for _ in range(5)
        ]
    assert [o.result for o in outcomes] == ["added"] + ["reinforced"] * 4
    assert all(o.detail["judge"] == "openai" and o.detail["judge_decision"] == "add" for o in outcomes)
    assert all(o.reason == "backstop_duplicate" and o.detail["backstop"] for o in outcomes[1:])
    assert Memory.objects.for_tenant(tenant).get().frequency == 5
    judged = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert len(judged) == 5 and "Formation Judge" in judged[0]["body"]["messages"][0]["content"]


def test_an_llm_judge_can_supersede_a_neighbour_it_was_shown(tenant, settings):
    old = promote(candidate(tenant, "The returns window is 30 days from delivery."))
    with LoopbackOpenAI() as server:
        server.chat_answers.append(
            {"decision": "supersede", "target_id": old.memory_id, "reason": "policy_changed"}
        )
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        new = promote(candidate(tenant, "Since March the returns window is 60 days from delivery."))
    assert (new.result, new.related_memory_id, new.reason) == ("superseded", old.memory_id, "policy_changed")
    assert Memory.objects.for_tenant(tenant).get(pk=old.memory_id).status == MemoryStatus.SUPERSEDED


def test_an_llm_answer_naming_an_unknown_memory_falls_back_to_the_local_judge(tenant, other_tenant, settings):
    foreign = promote(
        MemoryCandidate(tenant_id=other_tenant.pk, type="fact", text="Globex sells garden furniture online.")
    )
    with LoopbackOpenAI() as server:
        server.chat_answers.append({"decision": "reinforce", "target_id": foreign.memory_id, "reason": "x"})
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        outcome = promote(candidate(tenant, "Acme sells garden furniture online."))
    assert outcome.result == "added" and outcome.detail["judge"] == "openai_invalid_answer"
    assert Memory.objects.all_tenants().get(pk=foreign.memory_id).frequency == 1


def test_a_failing_llm_judge_falls_back_to_the_local_judge(tenant, settings):
    promote(candidate(tenant, "Acme ships orders within two business days."))
    with LoopbackOpenAI() as server:
        server.fail_next = 10
        server.chat_answers.append({"decision": "add"})
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        outcome = promote(candidate(tenant, "Acme ships orders within two business days."))
    assert (outcome.result, outcome.detail["judge"]) == ("reinforced", "local_fallback")


@pytest.mark.parametrize(
    "bad",
    [{"scope_kind": "galaxy"}, {"status": "superseded"}, {"scope_kind": "tenant", "scope_id": "7"}],
)
def test_a_candidate_no_surface_can_send_is_a_caller_error(tenant, bad):
    with pytest.raises(ValueError):
        promote(candidate(tenant, "Acme ships orders within two business days.", **bad))
    assert not MemoryHistory.objects.for_tenant(tenant).exists()


def test_a_different_key_does_not_let_the_same_fact_in_twice(tenant):
    # Client Brain keys are slugs of the wording: the same fact reworded arrives with another key.
    first = promote(
        candidate(tenant, "Refunds are issued within 14 days of the return.", key="business:refunds-14-days")
    )
    again = promote(
        candidate(tenant, "Refunds are issued within 14 days of the return!", key="business:refunds-14-day")
    )
    assert (again.result, again.memory_id) == ("reinforced", first.memory_id)


def test_provenance_in_the_learners_shape_links_the_ticket(tenant):
    outcome = promote(
        candidate(
            tenant,
            "Acme refunds shipping on damaged parcels.",
            provenance=[{"kind": "ticket", "ticket_id": 88, "external_id": "Z-88"}],
        )
    )
    assert edges(tenant, GraphRelation.DERIVED_FROM) == [("memory", str(outcome.memory_id), "ticket", "88")]
