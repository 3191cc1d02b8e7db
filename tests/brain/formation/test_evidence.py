"""Issue 13, "One ticket flips the brand voice": supersession follows the weight of evidence; issue 27: an
issue's key is its problem, which every ticket of it reinforces and no other problem merges into."""

from brain.client_brain import typed
from brain.formation import promote
from brain.models import BrainEdge, BrainScopeKind, GraphRelation, Memory, MemoryStatus, WriteSurface
from brain.types import MemoryCandidate


def learned(tenant, memory_type: str, key: str, value: dict, confidence: float = 0.7):
    return promote(
        MemoryCandidate(
            tenant_id=tenant.pk,
            type=memory_type,
            key=key,
            payload=value,
            text=typed.render_value(memory_type, value),
            surface=WriteSurface.CLIENT_BRAIN,
            scope_kind=BrainScopeKind.TENANT,
            confidence=confidence,
            actor="process:client_brain.learner",
        )
    )


FORMAL = {"formality": "formal", "tone": "professional"}
NEUTRAL = {"formality": "neutral", "tone": "warm"}


def voice_rows(tenant):
    return Memory.objects.for_tenant(tenant).filter(key="voice:formality")


def test_one_ticket_does_not_flip_a_voice_seen_many_times(tenant):
    for _ in range(8):
        learned(tenant, typed.VOICE, "voice:formality", FORMAL, confidence=1.0)
    standing = voice_rows(tenant).get()
    assert (standing.frequency, standing.confidence) == (8, 1.0)

    outcome = learned(tenant, typed.VOICE, "voice:formality", NEUTRAL)

    assert (outcome.result, outcome.reason) == ("added", "competing_value")
    standing.refresh_from_db()
    assert standing.status == MemoryStatus.ACTIVE
    competitor = Memory.objects.for_tenant(tenant).get(pk=outcome.memory_id)
    assert competitor.status == MemoryStatus.DRAFT  # kept, never injected (recall admits active rows only)
    assert voice_rows(tenant).filter(status=MemoryStatus.ACTIVE).count() == 1
    assert (
        BrainEdge.objects.for_tenant(tenant)
        .filter(
            relation=GraphRelation.CONTRADICTS, source__memory_id=competitor.pk, target__memory_id=standing.pk
        )
        .exists()
    )


def test_a_change_of_voice_seen_repeatedly_does_supersede(tenant):
    for _ in range(8):
        learned(tenant, typed.VOICE, "voice:formality", FORMAL, confidence=1.0)
    outcomes = [learned(tenant, typed.VOICE, "voice:formality", NEUTRAL) for _ in range(12)]

    turned = [o for o in outcomes if o.result == "superseded"]
    assert len(turned) == 1 and turned[0].reason == "evidence_turned"
    active = voice_rows(tenant).get(status=MemoryStatus.ACTIVE)
    assert active.payload == NEUTRAL and active.frequency > 8
    old = voice_rows(tenant).get(payload=FORMAL)
    assert (old.status, old.superseded_by_id) == (MemoryStatus.SUPERSEDED, active.pk)
    # Every later sighting reinforces the new voice; the old one stays history.
    assert all(o.result == "reinforced" for o in outcomes[outcomes.index(turned[0]) + 1 :])


def test_a_newer_value_against_equal_evidence_still_supersedes(tenant):
    learned(tenant, typed.VOICE, "voice:formality", FORMAL)
    outcome = learned(tenant, typed.VOICE, "voice:formality", NEUTRAL)
    assert outcome.result == "superseded"
    assert voice_rows(tenant).get(status=MemoryStatus.ACTIVE).payload == NEUTRAL


def issue(pattern: str, resolution: str) -> dict:
    return {"pattern": pattern, "best_resolution": resolution, "frequency": 1}


def test_tickets_of_one_problem_reinforce_its_one_issue_whatever_their_wording(tenant):
    """Issue 27: an issue's key is its problem; three damaged items are three sightings of one issue (before,
    each ticket's own wording made a new row: 1,098 issue rows from 2,400 tickets of 27 intents)."""
    outcomes = [
        learned(tenant, typed.ISSUES, "issue:damaged-item", issue(f"Damaged item: {subject}", resolution))
        for subject, resolution in [
            ("tent pole snapped on first use", "We shipped a replacement pole."),
            ("jacket zip broke after a week", "We sent a prepaid label and a new jacket."),
            ("backpack strap tore at the seam", "We refunded the backpack in full."),
        ]
    ]
    assert [o.result for o in outcomes] == ["added", "reinforced", "reinforced"]
    assert outcomes[1].reason == "same_issue"
    row = Memory.objects.for_tenant(tenant).get(key="issue:damaged-item")
    assert (row.status, row.frequency, row.payload["frequency"]) == (MemoryStatus.ACTIVE, 3, 3)
    assert "seen" not in row.text  # the count lives on the row, not in a text that would go stale


def test_an_issue_of_another_problem_never_merges_however_alike_the_texts(tenant):
    first = learned(tenant, typed.ISSUES, "issue:router", issue("Help with router", "We reset it remotely."))
    other = learned(
        tenant, typed.ISSUES, "issue:printer", issue("Help with printer", "We reset it remotely.")
    )
    assert other.result == "added" and other.memory_id != first.memory_id


def test_the_same_issue_again_is_reinforced(tenant):
    value = issue("Damaged item: tent pole snapped on first use", "We shipped a replacement pole.")
    first = learned(tenant, typed.ISSUES, "issue:damaged-item", value)
    again = learned(tenant, typed.ISSUES, "issue:damaged-item", value)
    assert (again.result, again.memory_id) == ("reinforced", first.memory_id)
    assert Memory.objects.for_tenant(tenant).get(pk=first.memory_id).frequency == 2
