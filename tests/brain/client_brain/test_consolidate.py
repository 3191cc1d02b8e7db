"""`manage.py client_brain_consolidate` (issue 27): a tenant's stored issues, learned before issues were keyed by
their problem, fold into one memory per problem, keeping provenance and history; idempotent, with a dry run."""

from io import StringIO

import pytest
from django.core.management import call_command

from brain.api import learn_from_evidence
from brain.models import BrainEdge, GraphRelation, Memory, MemoryHistory, MemoryStatus
from tests.brain.factories import issue

from .test_issue_consolidation import ticket

pytestmark = pytest.mark.django_db(transaction=True)


def ticket_ref(n):
    return [{"kind": "ticket", "ticket_id": n, "external_id": f"T-{n}"}]


def old_rows(tenant):
    """What the producer before issue 27 stored: a row per ticket of one classified intent (same key), and
    unclassified rows keyed by their whole subject."""
    damaged = [
        issue(tenant, f"Damaged item (Orders): {s}", r, frequency=1, key="issue:orders-damaged_item",
              provenance=ticket_ref(n))
        for n, (s, r) in enumerate(
            [("Tent arrived broken", "We shipped a replacement pole."),
             ("Jacket zip torn on delivery", "We sent a new jacket."),
             ("Damaged stove in the box", "A replacement stove was dispatched.")],
            start=1,
        )
    ]  # fmt: skip
    router = [
        issue(tenant, "Help with my router", "We reset it.", frequency=2, key="issue:help-with-my-router",
              provenance=ticket_ref(4)),
        issue(tenant, "Router help", "We rebooted it remotely.", frequency=1, key="issue:router-help",
              provenance=ticket_ref(5)),
    ]  # fmt: skip
    printer = issue(
        tenant, "Help with printer", "We sent a driver.", frequency=1, key="issue:help-with-printer"
    )
    Memory.objects.for_tenant(tenant).filter(pk=router[0].pk).update(frequency=2)  # seen twice
    return damaged, router, printer


def run(*args) -> str:
    out = StringIO()
    call_command("client_brain_consolidate", *args, stdout=out)
    return out.getvalue()


def live(tenant):
    return Memory.objects.for_tenant(tenant).filter(type="issues").exclude(status=MemoryStatus.SUPERSEDED)


def test_a_dry_run_says_what_it_would_fold_and_writes_nothing(tenant):
    old_rows(tenant)
    output = run("--tenant", tenant.slug, "--dry-run")
    assert "would fold 3 of 6 issue rows" in output and "nothing written" in output
    assert live(tenant).count() == 6
    assert (
        not MemoryHistory.objects.for_tenant(tenant).filter(actor__startswith="process:client_brain").exists()
    )


def test_stored_issues_fold_into_one_row_per_problem_keeping_provenance_and_history(tenant):
    (first, *damaged), router, printer = old_rows(tenant)
    output = run("--tenant", tenant.slug)
    assert "folded 3 of 6 issue rows" in output and "3 rows superseded, 2 re-keyed" in output
    rows = {r.key: r for r in live(tenant)}
    assert set(rows) == {"issue:orders-damaged_item", "issue:router", "issue:printer"}
    survivor = rows["issue:orders-damaged_item"]
    assert survivor.pk == first.pk and survivor.frequency == 3 and survivor.payload["frequency"] == 3
    assert {p["ticket_id"] for p in survivor.provenance} == {1, 2, 3}
    assert survivor.payload["reports"] == ["Jacket zip torn on delivery", "Damaged stove in the box"]
    assert "also reported as: Jacket zip torn on delivery" in survivor.text
    for row in damaged:
        row.refresh_from_db()
        assert (row.status, row.superseded_by_id) == (MemoryStatus.SUPERSEDED, first.pk)
        assert MemoryHistory.objects.for_tenant(tenant).filter(memory=row, reason="consolidated").exists()
        assert (
            BrainEdge.objects.for_tenant(tenant)
            .filter(relation=GraphRelation.SUPERSEDES, source__memory_id=first.pk, target__memory_id=row.pk)
            .exists()
        )
    # The router seen twice survives and takes the new key; the printer is re-keyed alone.
    assert rows["issue:router"].pk == router[0].pk and rows["issue:router"].frequency == 3
    assert rows["issue:printer"].pk == printer.pk
    # Idempotent: nothing is left to fold.
    assert "folded 0 of 3 issue rows" in run("--tenant", tenant.slug)


def test_after_consolidation_a_new_ticket_of_the_problem_reinforces_its_row(tenant):
    old_rows(tenant)
    run()
    learn_from_evidence(ticket(tenant, 9, "My router drops", "", "We reset your router remotely."))
    (row,) = live(tenant).filter(key="issue:drop-router")  # another problem: its own row
    assert row.frequency == 1
    learn_from_evidence(ticket(tenant, 10, "Router help please", "", "We reset your router remotely."))
    assert live(tenant).get(key="issue:router").frequency == 4


def test_an_unknown_tenant_is_a_clear_error(tenant):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no tenant with slug 'nowhere'"):
        run("--tenant", "nowhere")
