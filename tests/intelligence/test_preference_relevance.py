"""Issue 27: a preference is relevant to a conversation by meaning (the engine's hybrid score, calibrated:
intelligence.relevance), not by the words it shares with it. The finding: "A delivery preference was left out
for 'my parcel has not arrived' and put in for an unrelated message that contained 'prefer'."
"""

import pytest

from brain.embedders import get_embedder
from brain.models import Memory
from brain.onnx_minilm import OnnxMiniLMEmbedder
from intelligence.relevance import near_best
from intelligence.services import ContextRequest, agent_context_assemble

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db


def embedded(*memory_ids):
    """Give rows their vectors now (the pipeline does it after the commit, which these tests never reach)."""
    embedder = get_embedder()
    for row in Memory.objects.all_tenants().filter(id__in=memory_ids):
        row.embedding = embedder.embed([row.text])[0]
        row.embedding_model = embedder.name
        row.save(update_fields=["embedding", "embedding_model"])


@pytest.fixture
def support(tenant, settings):
    """A support agent with preferences on different topics, embedded with the default embedder (MiniLM)."""
    settings.BRAIN_EMBEDDER = {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder"}
    assert get_embedder().name == OnnxMiniLMEmbedder.name
    agent = make_agent(tenant, name="Support assistant")
    texts = {
        "delivery": "When a delivery is late, prefer sharing the carrier's tracking link first.",
        "invoice": "Prefer attaching the PDF invoice rather than sending customers to the billing portal.",
        "password": "Prefer sending the password reset link rather than asking security questions.",
    }
    ids = {name: add_memory(agent, text, strength="preference") for name, text in texts.items()}
    embedded(*ids.values())
    return agent, ids


def injected_preferences(agent, conversation) -> list[int]:
    assembly, _ = agent_context_assemble(agent=agent, request=ContextRequest(conversation=conversation))
    return assembly.section_map["preference"].memory_ids


def test_a_delivery_preference_is_injected_for_a_parcel_that_has_not_arrived(support):
    agent, ids = support
    # No word in common with the delivery preference ("my", "has", "not" are stop words): its meaning.
    assert injected_preferences(agent, "my parcel has not arrived") == [ids["delivery"]]


def test_an_unrelated_message_that_says_prefer_injects_no_preference(support):
    agent, _ = support
    # Every preference says "prefer" (and one says "first"): shared words alone no longer make one relevant.
    assert injected_preferences(agent, "I prefer the blue sofa, is it in stock? Please answer first.") == []


def test_the_preference_a_conversation_is_about_is_injected_and_not_its_neighbours(support):
    agent, ids = support
    assert injected_preferences(agent, "I forgot my password and cannot log in") == [ids["password"]]
    assert injected_preferences(agent, "Can I get a copy of my bill for March?") == [ids["invoice"]]


def test_relevance_by_words_alone_is_the_former_rule(support, settings):
    """BRAIN_CONTEXT_RELEVANCE MODE "fulltext": what the runtime did before (the finding, reproduced)."""
    agent, ids = support
    settings.BRAIN_CONTEXT_RELEVANCE = {"MODE": "fulltext", "VECTOR_FLOOR": None, "NEAR_BEST": 0.0}
    assert injected_preferences(agent, "my parcel has not arrived") == []
    assert ids["delivery"] in injected_preferences(agent, "I prefer the blue sofa, please answer first.")


def test_only_the_preferences_near_the_best_stay_relevant():
    scores = {1: 0.06, 2: 0.058, 3: 0.03, 4: 0.01}  # 4 is a rule: the cut is for preferences only
    assert near_best(scores, {1, 2, 3}, 0.95) == {1: 0.06, 2: 0.058, 4: 0.01}
    assert near_best(scores, {1, 2, 3}, 0.0) == scores
    assert near_best({4: 0.01}, {1}, 0.95) == {4: 0.01}


def test_the_vector_floor_drops_a_word_match_the_vector_tier_scored_low_and_keeps_an_unscored_one(tenant):
    """`recall_scores(vector_floor=)`: meaning gates what the vector tier scored; a row without a vector yet is
    still found by its words (tests embed with the hashing embedder)."""
    from brain.api import recall_scores

    agent = make_agent(tenant, name="Support assistant")
    scored = add_memory(agent, "Prefer formal wording when discussing invoices.", strength="preference")
    unscored = add_memory(agent, "Prefer short replies when discussing invoices.", strength="preference")
    Memory.objects.all_tenants().filter(id=unscored).update(embedding=None, embedding_model="")
    assert Memory.objects.all_tenants().get(id=scored).embedding is not None
    query = {"tenant_id": tenant.pk, "query": "discussing invoices", "scope_kind": "agent", "mode": "hybrid"}
    assert set(recall_scores(**query, scope_ids=[str(agent.pk)])) == {scored, unscored}
    assert set(recall_scores(**query, scope_ids=[str(agent.pk)], vector_floor=1.01)) == {unscored}
