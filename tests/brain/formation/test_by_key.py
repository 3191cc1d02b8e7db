"""Learning throughput (issue 26): rows of a candidate's own key that settle the local judge's reinforcement are
all it is shown (brain/formation/by_key.py). promote() then reads only those rows under the lock and asks recall
nothing, and writes exactly what the full path (recall before the lock, the direct neighbour query) writes."""

import random
from dataclasses import asdict

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from brain.api import TicketEvidence, learn_from_evidence
from brain.formation import promote_many
from brain.formation.by_key import key_neighbours
from brain.formation.judge import DEFAULTS, Neighbour, find_neighbours
from brain.models import BrainEdge, BrainScopeKind, Memory, MemoryHistory, MemoryStatus, WriteSurface
from brain.types import MemoryCandidate
from tickets.demo import ACME_TICKETS, GLOBEX_TICKETS

pytestmark = pytest.mark.django_db

PRODUCTS = ("tent pole", "rain jacket", "router", "SIM card", "headlamp", "roaming pass")


def _tickets(tenant, count: int) -> list[TicketEvidence]:
    """The demo tickets again and again, varied as `brain_bench client-brain` varies them (products, numbers), from
    five customers: issues and voice reinforced by key, facts and rules held and corroborated, values competing."""
    rng = random.Random(26)
    templates = ACME_TICKETS + GLOBEX_TICKETS
    evidence = []
    for n in range(count):
        demo = templates[n % len(templates)]
        evidence.append(
            TicketEvidence(
                tenant_id=tenant.pk,
                ticket_id=n + 1,
                external_id=f"T-{n}",
                subject=f"{demo.subject} ({rng.choice(PRODUCTS)})",
                status="solved",
                classification={"category": demo.category, "intent": demo.intent, "labels": []},
                latest_reply={
                    "body": demo.reply.replace("two", rng.choice(("two", "three", "four"))),
                    "author": "Agent",
                    "sent_at": "2026-12-01T10:00:00+00:00",
                },
                approvals=[
                    {"proposed_action": action, "kind": kind, "decision": decision}
                    for action, kind, decision in demo.approvals
                ],
                customer=f"customer{n % 5}@example.com",
            )
        )
    return evidence


def _written(tenant) -> dict:
    """What learning wrote for the tenant, with ids replaced by each memory's position."""
    rows = list(Memory.objects.for_tenant(tenant).order_by("id"))
    position = {row.pk: n for n, row in enumerate(rows)}

    def plain(snapshot):
        return (
            {**snapshot, "superseded_by": position.get(snapshot.get("superseded_by"))} if snapshot else None
        )

    return {
        "memories": [
            (r.key, r.text, r.status, r.frequency, r.confidence, r.payload, position.get(r.superseded_by_id))
            for r in rows
        ],
        "history": [
            (position.get(h.memory_id), h.action, h.reason.split(":")[0], plain(h.before), plain(h.after))
            for h in MemoryHistory.objects.for_tenant(tenant).order_by("id")
        ],
        "edges": sorted(
            (e.relation, e.source.kind, position.get(e.source.memory_id, e.source.ref), e.target.kind,
             position.get(e.target.memory_id, e.target.ref), e.weight)
            for e in BrainEdge.objects.for_tenant(tenant).select_related("source", "target")
        ),
    }  # fmt: skip


def _learn(tenant, by_key: bool, settings) -> tuple[list, int]:
    """Learn the tickets; (each ticket's outcomes without memory ids, direct neighbour queries run)."""
    settings.BRAIN_FORMATION = {"JUDGE_BY_KEY": by_key}
    outcomes = []
    with CaptureQueriesContext(connection) as queries:
        for evidence in _tickets(tenant, 60):
            result = learn_from_evidence(evidence)
            outcomes.append([(o.type, o.key, o.result, o.reason) for o in result.outcomes])
    ranked = sum("m.text %" in q["sql"] for q in queries.captured_queries)
    return outcomes, ranked


def test_judging_by_key_writes_what_the_full_path_writes(tenant, other_tenant, settings):
    by_key, ranked_by_key = _learn(tenant, True, settings)
    full, ranked_full = _learn(other_tenant, False, settings)
    assert by_key == full
    assert _written(tenant) == _written(other_tenant)
    reasons = {reason for ticket in full for _, _, _, reason in ticket}
    # The stream goes through the paths that matter: reinforced by key, held and corroborated, new values.
    assert {"same_issue", "same_key_same_value", "awaiting_evidence", "new_fact"} <= reasons, reasons
    # ... and most reinforcements no longer rank the scope by trigram similarity and cosine distance.
    assert ranked_by_key < ranked_full / 2, (ranked_by_key, ranked_full)


def test_more_rows_of_a_key_than_the_direct_query_reads_are_left_to_it(tenant, settings):
    settings.BRAIN_FORMATION = {"NEIGHBOURS": 2}
    for status in (MemoryStatus.ACTIVE, MemoryStatus.DRAFT):
        Memory.objects.create(
            tenant=tenant,
            scope_kind=BrainScopeKind.TENANT,
            type="business",
            key="fact:returns",
            text=f"Returns are free ({status}).",
            status=status,
        )
    scope = {"tenant_id": tenant.pk, "scope_kind": BrainScopeKind.TENANT, "scope_id": ""}
    text = "Returns are free (active)."
    # Which rows of the key the direct query shows is then PostgreSQL's choice: only it can say.
    assert key_neighbours(**scope, text=text, key="fact:returns") is None
    settings.BRAIN_FORMATION = {"NEIGHBOURS": 3}
    rows = key_neighbours(**scope, text=text, key="fact:returns")
    shown = [n for n in find_neighbours(**scope, text=text, key="fact:returns") if n.key == "fact:returns"]
    assert rows == shown and len(rows) == 2


def test_a_neighbour_is_shown_to_the_judge_as_asdict_shows_it():
    neighbour = Neighbour(
        id=7, key="fact:x", text="X.", status="active", cosine=None, lexical=0.25, token_overlap=1.0
    )
    assert neighbour.as_payload() == asdict(neighbour)
    assert DEFAULTS["JUDGE_BY_KEY"] is True


def test_reinforcements_by_key_lock_and_read_their_rows_in_one_statement(tenant):
    values = {
        "fact:returns": "Returns are free.",
        "fact:hours": "The shop opens at nine.",
        "fact:gift": "Gift cards never expire.",
    }

    def candidates(ticket):
        return [
            MemoryCandidate(
                tenant_id=tenant.pk,
                type="business",
                key=key,
                payload={"fact": text},
                text=text,
                surface=WriteSurface.CLIENT_BRAIN,
                scope_kind=BrainScopeKind.TENANT,
                confidence=0.7,
                actor="process:test",
                provenance=[{"kind": "ticket", "ticket_id": ticket}],
            )
            for key, text in values.items()
        ]

    added = promote_many(candidates(1))
    with CaptureQueriesContext(connection) as queries:
        reinforced = promote_many(candidates(2))
    assert [o.result for o in reinforced] == ["reinforced"] * 3
    assert [o.memory_id for o in reinforced] == [o.memory_id for o in added]
    sql = [q["sql"] for q in queries.captured_queries]
    assert len([s for s in sql if "brain_memory" in s and s.rstrip().endswith("FOR UPDATE")]) == 1
    assert not [s for s in sql if "m.text %" in s]
    assert set(Memory.objects.for_tenant(tenant).values_list("frequency", flat=True)) == {2}
