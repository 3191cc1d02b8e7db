"""Issue 27: a preference is relevant to a conversation by meaning (the engine's hybrid score, calibrated:
intelligence.relevance), not by the words it shares with it. The finding: "A delivery preference was left out
for 'my parcel has not arrived' and put in for an unrelated message that contained 'prefer'."
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from brain.embedders import get_embedder
from brain.models import Memory
from brain.onnx_minilm import OnnxMiniLMEmbedder
from intelligence.benchmarks.relevance_projection import training_rows
from intelligence.intent_projection import intent_projection
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


def support_agent(tenant, settings, texts: dict[str, str]):
    """A support agent holding `texts` as active preferences, embedded with MiniLM: (agent, {name: memory id})."""
    settings.BRAIN_EMBEDDER = {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder"}
    assert get_embedder().name == OnnxMiniLMEmbedder.name
    agent = make_agent(tenant, name="Support assistant")
    ids = {name: add_memory(agent, text, strength="preference") for name, text in texts.items()}
    embedded(*ids.values())
    return agent, ids


@pytest.fixture
def support(tenant, settings):
    """A support agent with preferences on different topics, embedded with the default embedder (MiniLM)."""
    texts = {
        "delivery": "When a delivery is late, prefer sharing the carrier's tracking link first.",
        "invoice": "Prefer attaching the PDF invoice rather than sending customers to the billing portal.",
        "password": "Prefer sending the password reset link rather than asking security questions.",
    }
    return support_agent(tenant, settings, texts)


@pytest.fixture
def neighbours(tenant, settings):
    """Preferences on neighbouring support topics (the benchmark set's wording), MiniLM-embedded: where the
    raw cosine confused them (issue 27: refund / its timing, cancelling / its fee, the account intents)."""
    texts = {
        "store_credit": "Prefer offering store credit before a cash refund when a customer asks for their money back.",
        "refund_timing": "When a customer asks where their refund is, prefer giving the 5 to 7 business day "
        "processing time.",
        "pause": "Prefer offering to pause or change an order before cancelling it.",
        "fee": "Prefer stating the cancellation fee amount up front when a customer asks about cancellation charges.",
        "export": "Prefer mentioning the data export before deleting a customer's account.",
        "relogin": "Prefer telling customers that profile changes apply after they log out and back in.",
    }
    return support_agent(tenant, settings, texts)


@pytest.fixture
def ordering(tenant, settings):
    """Preferences about placing, changing and cancelling orders (the benchmark set's wording), MiniLM-embedded:
    the projection alone found none of them for a customer who wants to buy or to add to an order."""
    texts = {
        "free_shipping": "Prefer mentioning the free-shipping threshold when a customer is about to place an order.",
        "order_edit": "Prefer editing the items of an order that has not shipped yet instead of cancelling and "
        "reordering.",
        "pause": "Prefer offering to pause or change an order before cancelling it.",
        "fee": "Prefer stating the cancellation fee amount up front when a customer asks about cancellation charges.",
    }
    return support_agent(tenant, settings, texts)


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


# The intent projection (mode "projected", the default): messages written here, not in the benchmark's set.


@pytest.mark.xfail(
    strict=True,
    reason="known, left alone on 2026-12-07: since the classifier learned operators' preferences it reads the"
    " refund-timing preference as where-is-my-refund (it read it as the refund policy before, which this message"
    " also leaned to), and this message as asking for money back (0.70); Bitext's messages say 'money back' when"
    " they ask for a refund",
)
def test_a_refund_that_has_not_come_back_injects_the_refund_timing_preference(neighbours):
    agent, ids = neighbours
    # The raw cosine (mode "hybrid") injected the store-credit preference: "money back" is a refund request.
    message = "I returned the jacket three weeks ago and the money is still not back on my card"
    assert injected_preferences(agent, message) == [ids["refund_timing"]]


@pytest.mark.parametrize(
    "message",
    ["where is my refund?", "it's been two weeks and no refund on my card", "my refund hasn't arrived yet"],
)
def test_asking_where_a_refund_is_injects_the_refund_timing_preference(neighbours, message):
    """The classifier learned preferences as operators write them (relevance_projection.OPERATOR_PREFERENCES):
    before, it read "When a customer asks where their refund is, prefer giving the 5 to 7 business day processing
    time." as the refund policy, and "where is my refund?" did not get it (the other two did, and still do)."""
    agent, ids = neighbours
    assert injected_preferences(agent, message) == [ids["refund_timing"]]


def test_a_question_about_what_cancelling_costs_injects_the_fee_preference_alone(neighbours):
    agent, ids = neighbours
    assert injected_preferences(agent, "is there a charge if I cancel my order now?") == [ids["fee"]]
    assert injected_preferences(agent, "how much is the penalty for cancelling?") == [ids["fee"]]
    assert injected_preferences(agent, "I want to cancel the order I placed yesterday") == [ids["pause"]]


def test_moving_to_another_plan_of_an_account_is_not_deleting_it(neighbours):
    agent, ids = neighbours
    message = "I want to switch to the premium plan on my account"
    assert injected_preferences(agent, message) == [ids["relogin"]]
    assert injected_preferences(agent, "please close my account for good") == [ids["export"]]


# The intent classifier: a preference's clauses, read in the customer's voice, say which intents it is about.


def test_a_customer_who_wants_to_buy_gets_the_preference_about_placing_an_order(ordering):
    agent, ids = ordering
    message = "I'd like to buy two of the garden chairs, how do I do that?"
    assert injected_preferences(agent, message) == [ids["free_shipping"]]


def test_adding_to_an_order_gets_the_preference_about_editing_it_not_cancelling(ordering):
    agent, ids = ordering
    assert injected_preferences(agent, "add a second lamp to the order I made this morning") == [
        ids["order_edit"]
    ]
    assert injected_preferences(agent, "do you charge anything if I cancel?") == [ids["fee"]]


def test_a_preference_is_read_by_its_clauses_in_the_customers_voice():
    from intelligence.intent_projection import clauses

    text = (
        "When a customer asks where their refund is, prefer giving the 5 to 7 business day processing time."
    )
    assert clauses(text) == [
        text,
        "a customer asks where their refund is",
        "prefer giving the 5 to 7 business day processing time",
        "When I asks where my refund is, prefer giving the 5 to 7 business day processing time.",
        "I asks where my refund is",  # the verb is left as written
        "giving the 5 to 7 business day processing time",
    ]
    assert clauses("Prefer short replies.") == [
        "Prefer short replies.",
        "Prefer short replies",
        "short replies.",
        "short replies",
    ]
    assert clauses("  ") == []


def test_without_the_classifier_the_similarity_is_the_projections_alone():
    """A weights file written before the classifier (no `classifier_weights`) measures by the projection."""
    import dataclasses

    import numpy as np

    shipped = intent_projection()
    alone = dataclasses.replace(shipped, intent_share=0.0)
    rows = np.random.default_rng(3).normal(size=(4, 384)).astype(np.float32)
    query = np.random.default_rng(4).normal(size=384).astype(np.float32)
    affinities = np.full((4, len(shipped.intents)), 0.5, dtype=np.float32)
    projected = shipped.project(rows)
    expected = alone.similarity(query, rows, projected)
    assert np.allclose(alone.similarity(query, rows, projected, affinities), expected)
    blended = shipped.similarity(query, rows, projected, affinities)
    assert np.allclose(blended, 0.5 * 0.5 + 0.5 * expected)  # each row's affinities sum against probabilities


def test_the_former_hybrid_rule_is_still_a_mode(neighbours, settings):
    agent, ids = neighbours
    settings.BRAIN_CONTEXT_RELEVANCE = settings.BRAIN_CONTEXT_RELEVANCE | {"MODE": "hybrid"}
    message = "I returned the jacket three weeks ago and the money is still not back on my card"
    assert injected_preferences(agent, message) == [ids["store_credit"]]


def test_the_projection_reads_the_preference_vectors_once_per_memory_state(neighbours, settings):
    """The stored vectors are cached under the agent's memory state: once read, a context call in mode
    "projected" runs the statements mode "hybrid" runs (the query's vector is computed once for both)."""
    agent, _ = neighbours
    configured = settings.BRAIN_CONTEXT_RELEVANCE
    injected_preferences(agent, "where is my refund now")  # the words' lexemes, cached for every call below

    def statements(mode: str, message: str) -> int:
        settings.BRAIN_CONTEXT_RELEVANCE = configured | {"MODE": mode}
        injected_preferences(agent, "where is my refund now")
        with CaptureQueriesContext(connection) as captured:
            injected_preferences(agent, message)  # a text not seen before: its vector is computed
        return len(captured)

    assert (
        statements("projected", "now where is my refund")
        == statements("hybrid", "my refund now is where")
        == 1
    )


def test_the_shipped_projection_was_trained_without_the_labelled_set():
    """The projection is trained on the Bitext sample without every row the benchmark's openings refer to
    (both halves): the figures it reports are measured on messages it never saw."""
    from brain.benchmarks.common import bitext_path
    from intelligence.benchmarks.preference_relevance import load_set

    projection = intent_projection()
    openings, _, _ = load_set(bitext_path())
    messages, intents, held_out = training_rows(bitext_path(), openings)
    assert held_out == sum("bitext_row" in o for o in openings) == projection.about["held_out_rows"]
    assert projection.about["rows"] == len(messages) and projection.about["intents"] == len(set(intents))
    assert projection.model == OnnxMiniLMEmbedder.name and projection.weights.shape == (384, 26)
    assert projection.classifier_weights.shape == (384, 27) and projection.classifier_bias.shape == (27,)
    assert sorted(projection.intents) == sorted(set(intents)) and projection.intent_share == 0.5
    assert projection.about["classifier"].startswith("LogisticRegression")
    assert projection.about["operator_preferences"] == 809


def test_the_operator_preferences_the_classifier_learns_are_none_of_the_labelled_sets():
    """The classifier's preferences (two authors who saw neither the labelled set nor the code) name each of the
    27 intents, and none is a preference the benchmark measures with."""
    import json

    from intelligence.benchmarks.preference_relevance import DATA, HELDOUT_SETS
    from intelligence.benchmarks.relevance_projection import OPERATOR_PREFERENCES

    learned = [json.loads(line) for line in OPERATOR_PREFERENCES.open()]
    measured = {
        json.loads(line)["text"]
        for name in ("preference_relevance_preferences.jsonl", *HELDOUT_SETS.values())
        for line in (DATA / name).open()
    }
    assert len(learned) == len({item["text"] for item in learned}) == 809
    assert sorted({item["intent"] for item in learned}) == sorted(intent_projection().intents)
    assert not measured & {item["text"] for item in learned}


def test_a_preference_written_after_a_call_is_judged_at_the_next_call(neighbours):
    """The stacked preference vectors are kept per memory state: a new preference (and its vector, written
    after its commit) changes the state, so the next call measures it too."""
    import numpy as np

    from brain import api as brain_api
    from intelligence.relevance import preference_similarities

    agent, ids = neighbours
    parcel = "my parcel has not arrived"
    vector, model = brain_api.embed_search_query(parcel)

    def similarities(preference_ids):
        return preference_similarities(agent.tenant_id, agent.pk, preference_ids, np.asarray(vector), model)

    before = similarities(set(ids.values()))  # built under the current state
    delivery = add_memory(
        agent,
        "When a delivery is late, prefer sharing the carrier's tracking link first.",
        strength="preference",
    )
    embedded(delivery)
    after = similarities(set(ids.values()) | {delivery})
    assert set(before) == set(ids.values()) and set(after) == set(ids.values()) | {delivery}
    assert max(after, key=after.get) == delivery
    assert injected_preferences(agent, parcel) == [delivery]


def test_the_projection_reads_the_vectors_of_preferences_only(neighbours):
    """Rules and patterns keep the hybrid score: their vectors are not loaded for the projection."""
    from brain import api as brain_api

    agent, ids = neighbours
    rule = add_memory(
        agent, "Never promise a delivery date the carrier has not confirmed.", strength="hard_rule"
    )
    embedded(rule)
    loaded = brain_api.agent_memory_vectors(
        tenant_id=agent.tenant_id, agent_id=agent.pk, strength="preference"
    )
    everything = brain_api.agent_memory_vectors(tenant_id=agent.tenant_id, agent_id=agent.pk)
    assert set(loaded) == set(ids.values()) and set(everything) == set(ids.values()) | {rule}
