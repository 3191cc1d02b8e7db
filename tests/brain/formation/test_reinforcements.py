"""Learning throughput (issue 18): a batch's reinforcements are written together, and counted as one by one.

`promote_many` leaves each reinforcement to `Reinforcements` and writes them with one UPDATE of the rows, one
insert of their history, one of their nodes and one of their edges; the rows, snapshots and edges are those
that promoting the candidates one by one writes.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from brain.client_brain import typed
from brain.formation import promote, promote_many
from brain.models import BrainEdge, BrainScopeKind, GraphRelation, Memory, MemoryHistory, WriteSurface
from brain.types import MemoryCandidate

pytestmark = pytest.mark.django_db

FACTS = (
    "Acme ships orders within two business days.",
    "The Leeds warehouse closes at six on weekdays.",
    "Refunds reach the customer's card within five days.",
    "Gift cards cannot be exchanged for cash.",
)


def candidate(tenant, text, ticket):
    return MemoryCandidate(
        tenant_id=tenant.pk,
        type="fact",
        text=text,
        confidence=0.6,
        actor="process:test",
        provenance=[{"kind": "ticket", "id": ticket}],
    )


def statements(queries, prefix):
    """The captured statements starting with `prefix` (names compared without their quotes)."""
    return [
        q["sql"] for q in queries.captured_queries if q["sql"].replace('"', "").lstrip().startswith(prefix)
    ]


def test_a_batchs_reinforcements_are_written_in_one_statement_per_table(tenant):
    added = [promote(candidate(tenant, text, ticket=1)) for text in FACTS]
    with CaptureQueriesContext(connection) as queries:
        outcomes = promote_many([candidate(tenant, text, ticket=2) for text in FACTS])
    assert [o.result for o in outcomes] == ["reinforced"] * len(FACTS)
    assert [o.memory_id for o in outcomes] == [o.memory_id for o in added]
    assert len(statements(queries, "UPDATE brain_memory ")) == 1
    assert len(statements(queries, "INSERT INTO brain_memoryhistory ")) == 1
    assert len(statements(queries, "INSERT INTO brain_brainedge ")) == 1
    assert len(statements(queries, "WITH new AS (\n    INSERT INTO brain_brainnode")) == 1
    reinforces = BrainEdge.objects.for_tenant(tenant).filter(relation=GraphRelation.REINFORCES)
    assert sorted(reinforces.values_list("source__ref", "target__memory_id")) == sorted(
        ("2", o.memory_id) for o in added
    )


def test_a_memory_reinforced_twice_in_one_batch_counts_twice_with_chained_snapshots(tenant):
    first = promote(candidate(tenant, FACTS[0], ticket=1))
    outcomes = promote_many(
        [candidate(tenant, FACTS[0], ticket=2), candidate(tenant, FACTS[1], ticket=2)]
        + [candidate(tenant, FACTS[0], ticket=3)]
    )
    assert [o.result for o in outcomes] == ["reinforced", "added", "reinforced"]
    memory = Memory.objects.for_tenant(tenant).get(pk=first.memory_id)
    assert memory.frequency == 3 and memory.confidence == pytest.approx(0.7)
    assert [p["id"] for p in memory.provenance] == [1, 2, 3]
    history = list(
        MemoryHistory.objects.for_tenant(tenant)
        .filter(memory_id=memory.pk, action="reinforced")
        .order_by("id")
    )
    assert [(h.before["frequency"], h.after["frequency"]) for h in history] == [(1, 2), (2, 3)]
    assert history[0].after == history[1].before
    # The first reinforcement was written before the add that followed it: the history reads in order.
    order = list(MemoryHistory.objects.for_tenant(tenant).order_by("id").values_list("action", "memory_id"))
    assert order[1:] == [
        ("reinforced", memory.pk),
        ("added", outcomes[1].memory_id),
        ("reinforced", memory.pk),
    ]
    sources = BrainEdge.objects.for_tenant(tenant).filter(
        relation=GraphRelation.REINFORCES, target__memory_id=memory.pk
    )
    assert sorted(sources.values_list("source__ref", flat=True)) == ["2", "3"]


@pytest.mark.parametrize("legacy", [float("nan"), None, 1.7])
def test_a_legacy_confidence_is_kept_as_it_is_when_reinforced_in_a_batch(tenant, legacy):
    first = promote(candidate(tenant, FACTS[0], ticket=1))
    Memory.objects.for_tenant(tenant).filter(pk=first.memory_id).update(confidence=legacy)
    outcomes = promote_many([candidate(tenant, FACTS[0], ticket=2), candidate(tenant, FACTS[0], ticket=3)])
    assert [o.result for o in outcomes] == ["reinforced", "reinforced"]
    memory = Memory.objects.for_tenant(tenant).get(pk=first.memory_id)
    assert memory.frequency == 3
    if legacy is None:
        assert memory.confidence is None
    elif legacy != legacy:  # NaN
        assert memory.confidence != memory.confidence
    else:
        assert memory.confidence == legacy


def _voice(tenant, value: dict, confidence: float, ticket: int) -> MemoryCandidate:
    return MemoryCandidate(
        tenant_id=tenant.pk,
        type=typed.VOICE,
        key="voice:formality",
        payload=value,
        text=typed.render_value(typed.VOICE, value),
        surface=WriteSurface.CLIENT_BRAIN,
        scope_kind=BrainScopeKind.TENANT,
        confidence=confidence,
        actor="process:test",
        provenance=[{"kind": "ticket", "id": ticket}],
    )


def _written(tenant) -> dict:
    """What formation wrote for the tenant, with ids replaced by each memory's position."""
    rows = list(Memory.objects.for_tenant(tenant).order_by("id"))
    position = {row.pk: n for n, row in enumerate(rows)}

    def plain(snapshot):
        return (
            {**snapshot, "superseded_by": position.get(snapshot.get("superseded_by"))} if snapshot else None
        )

    return {
        "memories": [
            (r.text, r.status, r.frequency, r.confidence, [p["id"] for p in r.provenance], position.get(r.superseded_by_id))
            for r in rows
        ],
        "history": [
            (position.get(h.memory_id), h.action, h.reason.split(":")[0], plain(h.before), plain(h.after))
            for h in MemoryHistory.objects.for_tenant(tenant).order_by("id")
        ],
        "edges": sorted(
            (e.relation, e.source.kind, position.get(e.source.memory_id, e.source.ref), e.target.kind,
             position.get(e.target.memory_id, e.target.ref))
            for e in BrainEdge.objects.for_tenant(tenant).select_related("source", "target")
        ),
    }  # fmt: skip


def test_promoting_a_batch_writes_what_promoting_its_candidates_one_by_one_writes(tenant, other_tenant):
    formal, neutral = (
        {"formality": "formal", "tone": "professional"},
        {"formality": "neutral", "tone": "warm"},
    )

    def batches(t):
        yield [
            _voice(t, formal, 1.0, 1),
            candidate(t, FACTS[0], 1),
            _voice(t, formal, 1.0, 2),
        ]  # evidence 2.0
        yield [_voice(t, neutral, 0.7, 3)]  # a competing value: 0.7
        yield [_voice(t, neutral, 0.7, 4), candidate(t, FACTS[0], 4)]  # 1.5
        # The standing value seen again before the competitor in one batch: 3.0 against 2.4, no turn yet (weighed
        # against the standing value as reinforced, not as it was before the batch).
        yield [_voice(t, formal, 1.0, 5), candidate(t, FACTS[0], 5), _voice(t, neutral, 0.7, 6)]
        yield [
            _voice(t, neutral, 0.7, 7),
            candidate(t, FACTS[0], 7),
            _voice(t, neutral, 0.7, 8),
        ]  # 3.4: turned
        yield [candidate(t, FACTS[1], 9), candidate(t, FACTS[0], 9), candidate(t, FACTS[1], 10)]

    for batch in batches(tenant):
        promote_many(batch)
    for batch in batches(other_tenant):
        for one in batch:
            promote(one)
    written = _written(tenant)
    assert any(h[2] == "evidence_turned" for h in written["history"])
    assert written == _written(other_tenant)
