"""recall(): each tier alone, fusion order, MMR, every filter, tenant/scope isolation, explanations."""

import math

import numpy as np
import pytest

from brain.api import RecalledMemory, RecallInputError, Reranker, recall
from brain.embedders import get_embedder
from brain.models import Memory
from tests.brain.search.test_vector_tier import fresh_tenant_graphs


def remember(tenant, text, *, key="", embed=True, **fields):
    """A memory row of `tenant`, embedded with the configured (test: hashing) embedder."""
    memory = Memory.objects.create(
        tenant=tenant, text=text, key=key, type=fields.pop("type", "fact"), **fields
    )
    if embed:
        embedder = get_embedder()
        memory.embedding = embedder.embed([f"{key} {text}".strip()])[0]
        memory.embedding_model = embedder.name
        memory.save(update_fields=["embedding", "embedding_model"])
    return memory


def ids(results):
    return [r.id for r in results]


@pytest.fixture
def shop(tenant):
    return {
        "refund": remember(
            tenant, "Refunds are issued within 14 days of the return arriving.", key="refund policy"
        ),
        "shipping": remember(tenant, "We ship to Canada and Mexico with tracked couriers.", key="shipping"),
        "voice": remember(tenant, "Always greet customers by first name and keep it friendly.", key="tone"),
    }


def test_lexical_tier_alone_finds_words_with_or_semantics(tenant, shop):
    results = recall(tenant_id=tenant.pk, query="refund for a damaged sofa", mode="lexical")
    assert ids(results) == [shop["refund"].id]
    assert set(results[0].explanation["tiers"]) <= {"fts", "trigram"}
    assert "fts" in results[0].explanation["tiers"]


def test_trigram_tier_finds_typos_and_partial_words(tenant, shop):
    results = recall(tenant_id=tenant.pk, query="refnd polcy", mode="lexical")
    assert ids(results)[:1] == [shop["refund"].id]
    assert "trigram" in results[0].explanation["tiers"]
    assert "fts" not in results[0].explanation["tiers"]  # no whole word matched


def test_fulltext_mode_uses_the_full_text_tier_alone(tenant, shop):
    results = recall(tenant_id=tenant.pk, query="refund for a damaged sofa", mode="fulltext")
    assert ids(results) == [shop["refund"].id]
    assert set(results[0].explanation["tiers"]) == {"fts"}
    assert recall(tenant_id=tenant.pk, query="refnd polcy", mode="fulltext") == []  # no typo matching


def test_vector_tier_alone_ranks_by_cosine(tenant, shop):
    results = recall(tenant_id=tenant.pk, query="shipping to canada", mode="vector", limit=3)
    assert ids(results)[0] == shop["shipping"].id
    assert all(set(r.explanation["tiers"]) == {"vector"} for r in results)
    scores = [r.explanation["tiers"]["vector"]["score"] for r in results]
    assert scores == sorted(scores, reverse=True)


def test_vector_tier_skips_rows_embedded_by_another_model(tenant):
    memory = remember(tenant, "Parcels ship from Lyon.")
    Memory.objects.all_tenants().filter(pk=memory.pk).update(embedding_model="some-old-model")
    assert recall(tenant_id=tenant.pk, query="Parcels ship from Lyon.", mode="vector") == []


def test_fusion_puts_a_memory_found_by_every_tier_first(tenant):
    both = remember(tenant, "Warranty claims need the order number and a photo.", key="warranty")
    remember(tenant, "The order number is printed on the invoice.", key="invoice")
    remember(tenant, "Photos can be uploaded in the customer portal.", key="portal")
    results = recall(tenant_id=tenant.pk, query="warranty claim order number photo", mode="hybrid")
    assert results[0].id == both.id
    assert set(results[0].explanation["tiers"]) >= {"fts", "vector"}
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_fusion_weights_come_from_settings(tenant, settings):
    lexical = remember(tenant, "zebra crossing zebra", key="zebra")
    settings.BRAIN_RECALL = {"WEIGHTS": {"fts": 1.0, "trigram": 0.0, "vector": 0.0}}
    results = recall(tenant_id=tenant.pk, query="zebra", mode="hybrid")
    assert ids(results) == [lexical.id]
    assert set(results[0].explanation["tiers"]) == {"fts"}


def test_mmr_separates_near_duplicates(tenant):
    text = "Customers in Berlin prefer delivery before noon on weekdays."
    twins = [remember(tenant, text, key=f"berlin delivery {i}") for i in range(3)]
    other = remember(tenant, "Berlin customers ask for invoices in German.", key="berlin invoices")
    plain = recall(tenant_id=tenant.pk, query="Berlin customers delivery", limit=2, mode="hybrid")
    diverse = recall(
        tenant_id=tenant.pk, query="Berlin customers delivery", limit=2, mode="hybrid", mmr_lambda=0.3
    )
    twin_ids = {t.id for t in twins}
    assert set(ids(plain)) <= twin_ids  # without MMR the two best are copies of one memory
    assert ids(diverse)[0] in twin_ids and ids(diverse)[1] == other.id
    assert diverse[1].explanation["mmr"]["step"] == 2
    assert plain[0].explanation["mmr"] is None


def test_mmr_lambda_default_comes_from_settings(tenant, settings, shop):
    settings.BRAIN_RECALL = {"MMR_LAMBDA": 0.5}
    results = recall(tenant_id=tenant.pk, query="refund policy")
    assert results[0].explanation["mmr"]["lambda"] == 0.5


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"types": ["lesson"]}, {"lesson"}),
        ({"statuses": ["archived"]}, {"archived"}),
        ({"statuses": None}, {"plain", "lesson", "archived", "agent7", "app", "rule", "correction", "low"}),
        ({"strengths": ["hard_rule"]}, {"rule"}),
        ({"categories": ["correction"]}, {"correction"}),
        ({"scope_kind": "agent"}, {"agent7"}),
        ({"scope_kind": "agent", "scope_ids": ["7"]}, {"agent7"}),
        ({"scope_kind": "agent", "scope_ids": ["8"]}, set()),
        ({"scope_ids": ["app-1"]}, {"app"}),
        ({"confidence_range": [0.0, 0.3]}, {"low"}),
        ({"confidence_range": [0.5, 1]}, {"plain", "lesson", "agent7", "app", "rule", "correction"}),
    ],
)
def test_every_filter_restricts_every_tier(tenant, filters, expected):
    base = "Orders over 100 euros ship free"
    rows = {
        "plain": {},
        "lesson": {"type": "lesson"},
        "archived": {"status": "archived"},
        "agent7": {"scope_kind": "agent", "scope_id": "7"},
        "app": {"scope_kind": "app", "scope_id": "app-1"},
        "rule": {"strength": "hard_rule"},
        "correction": {"category": "correction"},
        "low": {"confidence": 0.2},
    }
    made = {
        remember(tenant, f"{base} ({name})", key=name, **fields).id: name for name, fields in rows.items()
    }
    for mode in ("lexical", "vector", "hybrid"):
        results = recall(tenant_id=tenant.pk, query="orders ship free", mode=mode, limit=20, **filters)
        assert {made[r.id] for r in results} == expected, mode


def test_invalid_confidence_values_are_never_returned(tenant):
    good = remember(tenant, "Store opens at nine.", key="hours", confidence=0.9)
    ungraded = remember(tenant, "Store opens at nine on Saturdays.", key="hours sat", confidence=None)
    for bad in (math.nan, math.inf, -math.inf, -0.5, 1.5):
        remember(tenant, "Store opens at nine.", key="hours", confidence=bad)
    for mode in ("lexical", "vector", "hybrid"):
        default = recall(tenant_id=tenant.pk, query="store opens nine", mode=mode, limit=20)
        assert set(ids(default)) == {good.id, ungraded.id}, mode
        ranged = recall(
            tenant_id=tenant.pk, query="store opens nine", mode=mode, limit=20, confidence_range=[0.5, 1]
        )
        assert ids(ranged) == [good.id], mode


@pytest.mark.parametrize("mode", ["lexical", "vector", "hybrid"])
def test_another_tenants_memories_are_never_recalled(tenant, other_tenant, mode):
    mine = remember(tenant, "Our returns window is 30 days.", key="returns")
    theirs = remember(other_tenant, "Our returns window is 30 days.", key="returns")
    for t, own, foreign in ((tenant, mine, theirs), (other_tenant, theirs, mine)):
        results = recall(tenant_id=t.pk, query="returns window 30 days", mode=mode, mmr_lambda=0.7)
        assert ids(results) == [own.id]
        assert foreign.id not in ids(results)


@pytest.mark.parametrize("strategy", ["hnsw", "exact", "in memory"])
def test_vector_tier_is_tenant_and_scope_isolated_under_both_strategies(
    transactional_db, tenant, other_tenant, settings, strategy
):
    # PostgreSQL's two strategies, and the in-memory backend's exact scan (a small scope, by default).
    settings.BRAIN_RECALL = (
        {"IN_MEMORY": True} if strategy == "in memory" else {"VECTOR_STRATEGY": strategy, "IN_MEMORY": False}
    )
    mine = remember(tenant, "Escalate chargebacks to finance.", scope_kind="agent", scope_id="a1")
    remember(tenant, "Escalate chargebacks to finance.", scope_kind="agent", scope_id="a2")
    for _ in range(5):
        remember(other_tenant, "Escalate chargebacks to finance.", scope_kind="agent", scope_id="a1")
    if strategy == "hnsw":
        fresh_tenant_graphs(min_rows=1)  # each tenant walks a graph of its own
    results = recall(
        tenant_id=tenant.pk,
        query="chargebacks",
        mode="vector",
        scope_kind="agent",
        scope_ids=["a1"],
        limit=10,
    )
    assert ids(results) == [mine.id]
    assert results[0].explanation["vector_strategy"] == ("exact" if strategy == "in memory" else strategy)


def test_every_result_explains_why_it_was_returned(tenant, shop):
    results = recall(tenant_id=tenant.pk, query="refund policy", limit=3)
    assert results
    for position, result in enumerate(results, start=1):
        assert isinstance(result, RecalledMemory)
        explanation = result.explanation
        assert explanation["rank"] == position
        assert explanation["tiers"]
        for tier in explanation["tiers"].values():
            assert {"rank", "score", "rrf"} <= set(tier)
        assert explanation["fused_score"] > 0
        assert 0 <= explanation["confidence_feature"] <= 1
        assert 0 < explanation["recency_feature"] <= 1
        assert explanation["final_score"] == pytest.approx(result.score, abs=1e-6)


def test_explanations_come_rounded_for_the_reader(tenant, shop):
    """Scores to 6 places, features to 4 (rounded once, for the results returned)."""

    def places(value, n):
        return value is None or value == round(value, n)

    results = recall(tenant_id=tenant.pk, query="refunds for the return", limit=3)
    assert results and all(r.explanation["rerank"] for r in results)  # the default reranker ran
    for result in results:
        explanation = result.explanation
        for tier in explanation["tiers"].values():
            assert places(tier["score"], 6) and places(tier["rrf"], 6)
        assert places(explanation["fused_score"], 6) and places(explanation["final_score"], 6)
        assert places(explanation["confidence_feature"], 4) and places(explanation["recency_feature"], 4)
        assert places(explanation["rerank"]["score"], 6)
        assert all(places(v, 4) for v in explanation["rerank"]["features"].values())


def test_a_results_payload_is_its_own_copy(tenant):
    """The rows of a small scope are cached between searches: what a caller does to a result's payload
    never reaches the next search."""
    flat = remember(tenant, "Parcels to Leeds go by courier", payload={"speaker": "Ann"})
    nested = remember(tenant, "Courier pickups in Leeds", payload={"tags": ["pickup"], "meta": {"n": 1}})
    for result in recall(tenant_id=tenant.pk, query="courier leeds", limit=5):
        result.payload["speaker"] = "changed"
        result.payload.setdefault("tags", []).append("changed")
        result.payload.setdefault("meta", {})["n"] = 99
    again = {r.id: r.payload for r in recall(tenant_id=tenant.pk, query="courier leeds", limit=5)}
    assert again == {flat.id: {"speaker": "Ann"}, nested.id: {"tags": ["pickup"], "meta": {"n": 1}}}


def test_confidence_breaks_ties_between_equal_matches(tenant):
    weak = remember(tenant, "Gift cards never expire.", key="gift cards", confidence=0.55)
    strong = remember(tenant, "Gift cards never expire.", key="gift cards", confidence=0.95)
    results = recall(tenant_id=tenant.pk, query="gift cards expire")
    assert ids(results)[:2] == [strong.id, weak.id]


class ReverseReranker(Reranker):
    """A plug-in reranker for the test: reverses the order it is given."""

    name = "reverse"

    def rerank(self, *, query, memories):
        return list(reversed(memories))


def test_configured_reranker_reorders_and_says_so(tenant, settings, shop):
    plain = recall(tenant_id=tenant.pk, query="refund shipping greet", mode="lexical", limit=3, rerank=False)
    settings.BRAIN_RERANKER = {"BACKEND": "tests.brain.search.test_recall.ReverseReranker"}
    reranked = recall(tenant_id=tenant.pk, query="refund shipping greet", mode="lexical", limit=3)
    assert ids(reranked) == list(reversed(ids(plain)))
    assert reranked[0].explanation["rerank"]["reranker"] == "reverse"


def test_rerank_without_a_configured_reranker_is_an_input_error(tenant, settings):
    settings.BRAIN_RERANKER = None
    with pytest.raises(RecallInputError, match="no reranker"):
        recall(tenant_id=tenant.pk, query="x", rerank=True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": "  "}, "blank"),
        ({"query": "x", "mode": "fuzzy"}, "mode"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "limit": 1000}, "limit"),
        ({"query": "x", "confidence_range": [0.2, math.nan]}, "finite"),
        ({"query": "x", "confidence_range": [0.9, 0.1]}, "swap"),
        ({"query": "x", "mmr_lambda": 2}, "mmr_lambda"),
        ({"query": "x", "types": []}, "types"),
    ],
)
def test_bad_arguments_raise_input_errors_that_say_what_to_fix(tenant, kwargs, message):
    with pytest.raises(RecallInputError, match=message):
        recall(tenant_id=tenant.pk, **kwargs)


def test_query_embedding_can_be_passed_with_its_model(tenant, shop):
    vector = np.asarray(get_embedder().embed(["shipping to canada"])[0])
    results = recall(
        tenant_id=tenant.pk,
        query="shipping to canada",
        mode="vector",
        query_embedding=vector,
        embedding_model=get_embedder().name,
    )
    assert ids(results)[0] == shop["shipping"].id


def test_graph_expansion_adds_related_memories_under_the_same_filters(tenant, other_tenant):
    from brain.graph import edge_add, node_for_memory
    from brain.models import GraphRelation

    seed = remember(tenant, "Invoices are sent on the first of the month.", key="invoices")
    related = remember(tenant, "Late payers get a reminder after ten days.", key="reminders")
    archived = remember(tenant, "Reminders used to go out by fax.", key="fax", status="archived")
    edge_add(source=node_for_memory(seed), target=node_for_memory(related), relation=GraphRelation.RELATED_TO)
    edge_add(
        source=node_for_memory(seed), target=node_for_memory(archived), relation=GraphRelation.RELATED_TO
    )

    plain = recall(tenant_id=tenant.pk, query="invoices first of the month", mode="lexical")
    assert ids(plain) == [seed.id]
    expanded = recall(
        tenant_id=tenant.pk, query="invoices first of the month", mode="lexical", expand_graph=True
    )
    assert ids(expanded) == [seed.id, related.id]  # the archived neighbour stays out (statuses filter)
    assert expanded[1].explanation["tiers"] == {
        "graph": {"rank": 1, "score": None, "rrf": round(0.5 / 11, 6)}
    }
    assert {"confidence_feature", "recency_feature", "final_score", "rank"} <= set(expanded[1].explanation)
    # Another tenant's recall never walks this tenant's graph.
    remember(other_tenant, "Invoices are sent on the first of the month.", key="invoices")
    theirs = recall(
        tenant_id=other_tenant.pk, query="invoices first of the month", mode="lexical", expand_graph=True
    )
    assert related.id not in ids(theirs) and len(theirs) == 1


def test_results_carry_the_payload_as_json_not_as_text(tenant):
    memory = remember(tenant, "Refunds are issued within 14 days.", payload={"fact": "refunds", "days": 14})
    (found,) = recall(tenant_id=tenant.pk, query="refunds issued", mode="lexical")
    assert found.id == memory.id and found.payload == {"fact": "refunds", "days": 14}


def test_both_ways_of_counting_lexemes_give_the_same_scores(tenant, settings):
    """Under BM25_SAMPLE rows every lexeme is counted in one pass; at or over it, lexeme by lexeme. On the
    same rows (10, so the per-lexeme counts are not capped) the scores must agree."""
    for i in range(10):
        remember(tenant, f"Parcel {i} ships from Leeds" + (" with a refund note" if i % 3 == 0 else ""))
    scores = []
    for sample in (11, 10):
        settings.BRAIN_RECALL = {"BM25_SAMPLE": sample}
        found = recall(tenant_id=tenant.pk, query="refund parcel leeds", mode="fulltext", limit=10)
        scores.append([(r.id, r.explanation["tiers"]["fts"]["score"]) for r in found])
    assert scores[0] == scores[1] and len(scores[0]) == 10


def test_when_every_lexeme_is_common_full_text_scores_a_bounded_number_of_matches(tenant, settings):
    for i in range(12):
        remember(tenant, f"Parcel {i} ships from Leeds", embed=False)
    # Every lexeme counts as common; BM25_SAMPLE 12 keeps the scope on the SQL path (in memory, the
    # few rows are all scored).
    settings.BRAIN_RECALL = {"COMMON_ROWS": 1, "AND_MATCH_LIMIT": 5, "BM25_SAMPLE": 12}
    found = recall(tenant_id=tenant.pk, query="parcel leeds", mode="fulltext", limit=20)
    assert found[0].explanation["query"]["match"] == "and"
    assert len(found) == 5
    settings.BRAIN_RECALL = {"COMMON_ROWS": 1, "AND_MATCH_LIMIT": 50, "BM25_SAMPLE": 12}
    assert len(recall(tenant_id=tenant.pk, query="parcel leeds", mode="fulltext", limit=20)) == 12


def test_beside_the_vector_tier_a_word_in_every_counted_row_does_not_vote(tenant, settings):
    """Past BM25_SAMPLE rows, a word counted in every row its count read (IDF about 0) leaves full text only
    the rows' lengths to order them by: in hybrid its tier is left out, so its shortest rows cannot outvote the
    nearest row by rank. A lexical search for the word still finds rows."""
    for i in range(14):
        remember(tenant, f"Order {i} left the depot")
    target = remember(tenant, "Order placed by a returning customer who asked for gift wrapping and a note")
    settings.BRAIN_RECALL = {"BM25_SAMPLE": 10}  # 15 rows: "order" counted in all 10 the count reads
    hybrid = recall(
        tenant_id=tenant.pk,
        query="order",
        mode="hybrid",
        limit=5,
        query_embedding=[float(v) for v in target.embedding],
        embedding_model=target.embedding_model,
    )
    assert hybrid[0].id == target.id
    assert all("fts" not in r.explanation["tiers"] and r.explanation["query"]["saturated"] for r in hybrid)
    assert len(recall(tenant_id=tenant.pk, query="order", mode="lexical", limit=5)) == 5


def test_full_text_in_memory_gives_what_the_sql_gives(tenant, settings):
    """A scope under BM25_SAMPLE rows is scored in memory; at or over it, in SQL. Same rows, ranks, scores."""
    import random

    rng = random.Random(3)
    vocabulary = "refund parcel leeds courier invoice damaged warranty screen battery tracking late".split()
    for i in range(40):
        remember(tenant, " ".join(rng.choices(vocabulary, k=rng.randint(2, 8))) + f" note {i}", embed=False)
    queries = [" ".join(rng.sample(vocabulary, rng.randint(1, 4))) for _ in range(25)] + ["note refund"]
    for common_rows in (500, 8):  # 8: some queries have only common lexemes (all ANDed)
        found = {}
        for sample, path in ((1000, "memory"), (40, "sql")):
            settings.BRAIN_RECALL = {
                "BM25_SAMPLE": sample,
                "COMMON_ROWS": common_rows,
                "AND_MATCH_LIMIT": 1000,
            }
            found[path] = [
                [(r.id, r.explanation["tiers"]["fts"]["rank"], r.explanation["tiers"]["fts"]["score"], r.payload)
                 for r in recall(tenant_id=tenant.pk, query=q, mode="fulltext", limit=30)]
                for q in queries
            ]  # fmt: skip
        assert found["memory"] == found["sql"]
        assert any(len(hits) > 5 for hits in found["sql"])


def test_recall_scores_are_recalls_scores_without_the_rows(tenant):
    from brain.api import recall_scores

    for i in range(15):
        remember(
            tenant, f"Parcel {i} ships from Leeds" + (" with a refund" if i % 4 == 0 else ""), embed=False
        )
    for mode in ("fulltext", "lexical"):  # in memory, and through SQL
        for query in ("refund parcel", "leeds", "parcel refund leeds", "nothing here"):
            found = recall(tenant_id=tenant.pk, query=query, mode=mode, limit=7, rerank=False)
            expected = {r.id: r.score for r in found}
            got = recall_scores(tenant_id=tenant.pk, query=query, mode=mode, limit=7)
            # The recency feature moves with the clock between the two calls, by far less than 1e-9.
            assert list(got) == list(expected), (mode, query)
            assert got == pytest.approx(expected, abs=1e-9), (mode, query)
    with pytest.raises(RecallInputError, match="mmr_lambda"):
        recall_scores(tenant_id=tenant.pk, query="refund", mmr_lambda=0.5)
