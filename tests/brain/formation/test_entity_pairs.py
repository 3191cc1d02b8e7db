"""Issue 13, "Distinct facts are merged and lost": every duplicate check (memory-append's recent notes,
the judge, the backstop) tells apart facts that differ in a name, a place, an address, a product or a
number, on every write surface, and still merges restatements of one fact."""

from django.urls import reverse

from brain.benchmarks.entity_pairs import load_pairs, replay_pairs
from brain.models import Memory
from tests.brain.formation.test_write_surfaces import agent


def test_no_entity_swapped_pair_is_merged_and_paraphrases_are(tenant):
    figures = replay_pairs(tenant.pk, load_pairs())
    assert figures.entity_pairs >= 100 and figures.paraphrase_pairs >= 100
    assert figures.entity_pairs_merged == 0, figures.merged_entity_examples
    # Paraphrases are merged by the similarity thresholds; a one-word synonym in a short sentence can stay
    # below them with the tests' hashing embedder (a near duplicate, never a lost fact).
    assert figures.paraphrase_pairs_merged >= 0.95 * figures.paraphrase_pairs


def test_memory_append_keeps_two_customers_apart(api, tenant):
    """The finding: the second note answered `reinforced`, `duplicate_recent_note`."""
    agent_id = agent(tenant, "support")
    outcomes = []
    for name in ("Alice Morgan", "Brian Chen"):
        text = f"The customer {name} prefers a phone call after five pm on weekdays"
        body = {"agent_id": agent_id, "text": text}
        outcomes.append(api.post(reverse("brain-memory-append"), body, format="json").json()["outcome"])
    assert [o["result"] for o in outcomes] == ["added", "added"]
    assert Memory.objects.for_tenant(tenant).filter(scope_id=agent_id).count() == 2


def test_memory_append_still_merges_the_same_note(api, tenant):
    agent_id = agent(tenant, "support")
    for text in (
        "The customer Alice Morgan prefers a phone call.",
        "the customer alice morgan prefers a phone call!",
    ):
        api.post(reverse("brain-memory-append"), {"agent_id": agent_id, "text": text}, format="json")
    assert Memory.objects.for_tenant(tenant).filter(scope_id=agent_id).count() == 1
