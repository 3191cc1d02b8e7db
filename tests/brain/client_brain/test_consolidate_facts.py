"""`manage.py client_brain_consolidate` (issue 27): the business facts learned before facts.py that are not
statements about the business (steps, requests, sentences leaning on another) are archived with their history;
the facts about the business, and every row an operator wrote or touched, stay."""

import pytest

from brain.api import memory_set_status
from brain.models import Memory, MemoryHistory, MemoryStatus
from tests.brain.factories import fact

from .test_consolidate import run, ticket_ref

pytestmark = pytest.mark.django_db(transaction=True)

STEPS = ["Look for the help or support section.", "They are available at +44 20 7946 0000 or via live chat."]
FACTS = ["We offer free returns within 60 days on unused gear.", "Yes, we do deliver to Canada!"]


def learned(tenant):
    steps = [
        fact(tenant, text, key=f"fact:step-{n}", provenance=ticket_ref(n)) for n, text in enumerate(STEPS)
    ]
    facts = [
        fact(tenant, text, key=f"fact:fact-{n}", provenance=ticket_ref(9 + n)) for n, text in enumerate(FACTS)
    ]
    return steps, facts


def statuses(rows):
    return [Memory.objects.for_tenant(rows[0].tenant_id).get(pk=r.pk).status for r in rows]


def test_a_dry_run_counts_the_learned_rows_that_are_not_facts_and_writes_nothing(tenant):
    steps, facts = learned(tenant)
    output = run("--tenant", tenant.slug, "--dry-run")
    assert "4 learned business facts, 2 would be archived" in output
    assert "would archive 2 of 4 learned business facts" in output and "nothing written" in output
    assert statuses(steps + facts) == ["active"] * 4


def test_learned_steps_are_archived_with_their_history_and_facts_stay(tenant):
    steps, facts = learned(tenant)
    output = run("--tenant", tenant.slug)
    assert "archived 2 of 4 learned business facts that are not about the business" in output
    assert statuses(steps) == ["archived", "archived"] and statuses(facts) == ["active", "active"]
    history = MemoryHistory.objects.for_tenant(tenant).filter(memory_id__in=[s.pk for s in steps])
    assert {(h.action, h.reason, h.actor) for h in history} == {
        ("archived", "not_a_business_fact", "process:client_brain_consolidate")
    }
    assert all(h.before["status"] == "active" and h.after["status"] == "archived" for h in history)
    assert Memory.objects.for_tenant(tenant).get(pk=steps[0].pk).provenance == ticket_ref(0)
    # Idempotent: the second run finds nothing left to archive.
    assert "archived 0 of 2 learned business facts" in run("--tenant", tenant.slug)


def test_rows_an_operator_wrote_or_touched_stay(tenant):
    written = fact(
        tenant, "Look for the Returns tab in your account.", key="fact:operator", surface="operator"
    )
    touched = fact(tenant, "Look for the help or support section.", key="fact:touched")
    memory_set_status(tenant_id=tenant.pk, memory_id=touched.pk, status="draft", actor="user:7")
    output = run("--tenant", tenant.slug)
    assert "archived 0 of 0 learned business facts" in output
    assert statuses([written, touched]) == [MemoryStatus.ACTIVE, MemoryStatus.DRAFT]
