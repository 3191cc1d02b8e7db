"""The contract every search backend passes (brain.search.backends): one class, run against each backend.

The generalisation of "full text in memory gives what the SQL gives": a plan a backend supports gives
the same hits (ids, ranks, scores) on every backend, and containment gives the spec's Client Brain rows.
"""

import random
from dataclasses import replace
from typing import NamedTuple

import pytest

from brain.memory_state import memory_state
from brain.models import Memory
from brain.search import ContainmentPlan
from brain.search.backends import BACKENDS, MEMORY_BACKEND
from brain.search.engine import execute, plan_recall
from brain.search.types import recall_settings
from tests.brain.search.test_recall import remember

VOCABULARY = "refund parcel leeds courier invoice damaged warranty screen battery tracking late".split()


def full_text_plan(tenant, query, *, mode="fulltext", limit=30, **config):
    extra = {}
    if mode != "fulltext":  # the query's vector given, with the model that made it
        from brain.embedders import get_embedder

        embedder = get_embedder()
        extra = {"query_embedding": embedder.embed([query])[0], "embedding_model": embedder.name}
    return plan_recall(
        tenant_id=tenant.pk,
        query=query,
        limit=limit,
        mode=mode,
        details=True,
        with_embedding=False,
        config={**recall_settings(), **config},
        **extra,
    )


def hybrid_plan(tenant, query, **config):
    return full_text_plan(tenant, query, mode="hybrid", limit=10, **config)


def tier_ranks(hits):
    """Per hit, by id: its text and each tier's rank, then the tiers' scores apart (`approx`: pgvector sums
    in float32, so its scores and numpy's agree to about 1e-7)."""
    rows = sorted(hits, key=lambda h: h.id)
    ranks = [(h.id, h.text, h.fts_rank, h.trigram_rank, h.vector_rank) for h in rows]
    scores = [s for h in rows for s in (h.fts_score, h.trigram_score, h.vector_score) if s is not None]
    return ranks, scores


def ranked(hits):
    return sorted(((h.fts_rank, h.id, h.fts_score, h.text) for h in hits), key=lambda h: (h[0], h[1]))


class Row(NamedTuple):
    id: int
    type: str
    key: str
    text: str
    payload: dict
    confidence: float


def ids(rows):
    return [row.id for row in rows]


def containment_plan(tenant, terms, *, limit=200, after=None):
    return ContainmentPlan(
        tenant_id=tenant.pk,
        terms=terms,
        limit=limit,
        window_size=10_000,  # every row of the test is in the window
        live=lambda rows: rows.filter(scope_kind="tenant", status="active"),
        fields=("id", "type", "key", "text", "payload", "confidence", "created_at"),
        prepare=Row._make,
        state=memory_state(tenant.pk, scope_kind="tenant"),
        name="contract-test",
        after=after,
    )


@pytest.fixture(params=sorted(BACKENDS))
def backend(request):
    return BACKENDS[request.param]


class TestSearchBackendContract:
    def test_full_text_gives_every_backend_the_same_rows_ranks_and_scores(self, backend, tenant):
        rng = random.Random(3)
        for i in range(40):
            remember(
                tenant, " ".join(rng.choices(VOCABULARY, k=rng.randint(2, 8))) + f" note {i}", embed=False
            )
        queries = [" ".join(rng.sample(VOCABULARY, rng.randint(1, 4))) for _ in range(15)] + ["note refund"]
        found = []
        for common_rows in (500, 8):  # 8: some queries have only common lexemes (all ANDed)
            for query in queries:
                got = ranked(execute(full_text_plan(tenant, query, COMMON_ROWS=common_rows), backend).hits)
                reference = ranked(
                    execute(full_text_plan(tenant, query, COMMON_ROWS=common_rows), BACKENDS["postgres"]).hits
                )
                assert got == reference, query
                found.append(got)
        assert sum(len(hits) > 5 for hits in found) > 5 and all(hits[0][0] == 1 for hits in found if hits)

    def test_hybrid_gives_every_backend_the_same_rows_ranks_and_scores(
        self, backend, tenant, other_tenant, settings
    ):
        # MiniLM's vectors: the hashing embedder's sparse ones tie exactly (many cosines of 0), and ties
        # rank by summation order, which pgvector (float32, vectorised) and numpy do not share.
        settings.BRAIN_EMBEDDER = {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder"}
        rng = random.Random(5)
        for i in range(60):
            remember(tenant, " ".join(rng.choices(VOCABULARY, k=rng.randint(2, 8))) + f" note {i}")
        remember(tenant, "Warranty for the screen", embed=False)  # no vector: full text alone finds it
        remember(tenant, "Refund for a damaged parcel", status="archived")
        remember(other_tenant, "refund parcel leeds courier invoice")
        queries = [" ".join(rng.sample(VOCABULARY, rng.randint(1, 4))) for _ in range(12)]
        queries += ["warranty screen", "refnud for the parcl", "trackin", "what about it"]
        served = set()
        for query in queries:
            result = execute(hybrid_plan(tenant, query), backend)
            got, plan = result.hits, result.plan
            reference = execute(hybrid_plan(tenant, query), BACKENDS["postgres"]).hits
            (got_ranks, got_scores), (ranks, scores) = tier_ranks(got), tier_ranks(reference)
            assert got_ranks == ranks, query
            assert got_scores == pytest.approx(scores, abs=1e-6), query
            if backend is MEMORY_BACKEND and MEMORY_BACKEND.supports(plan):
                served.add(tuple(plan.tiers))
                # the explanation says how the vector tier was served
                assert result.vector_strategy == ("exact" if "vector" in plan.tiers else None)
        if backend is MEMORY_BACKEND:
            # Full text with vectors, vectors alone (only stop words), and a trigram tier over the rows
            # the vocabulary chose: all served in memory.
            assert {("fts", "vector"), ("vector",)} <= served
            assert any("trigram" in tiers for tiers in served)
        for query in queries[:6]:  # mode="vector": no lexical plan; the scope's statistics say it is small
            result = execute(full_text_plan(tenant, query, mode="vector", limit=10), backend)
            got, plan = result.hits, result.plan
            reference = execute(
                full_text_plan(tenant, query, mode="vector", limit=10), BACKENDS["postgres"]
            ).hits
            (got_ranks, got_scores), (ranks, scores) = tier_ranks(got), tier_ranks(reference)
            assert got_ranks == ranks and len(ranks) == plan.pool, query
            assert got_scores == pytest.approx(scores, abs=1e-6), query
            assert MEMORY_BACKEND.supports(plan), query

    def test_hybrid_in_memory_sees_every_write_at_once(self, tenant):
        first = remember(tenant, "Parcels to Leeds go by courier")
        plan = hybrid_plan(tenant, "courier leeds")
        assert [h.id for h in execute(plan, MEMORY_BACKEND).hits] == [first.id]
        second = remember(tenant, "Courier pickups in Leeds start at nine")
        found = execute(hybrid_plan(tenant, "courier leeds"), MEMORY_BACKEND).hits
        assert {h.id for h in found} == {first.id, second.id}
        assert all(h.vector_rank is not None for h in found)  # the new row's vector is searched too
        Memory.objects.for_tenant(tenant).filter(pk=first.pk).update(status="archived")
        assert [h.id for h in execute(hybrid_plan(tenant, "courier leeds"), MEMORY_BACKEND).hits] == [
            second.id
        ]

    def test_full_text_ranks_more_matched_words_first_and_ties_share_a_rank(self, backend, tenant):
        both = remember(tenant, "Refund for a damaged parcel", embed=False)
        twins = [remember(tenant, f"Damaged screen {i}", embed=False) for i in range(2)]
        remember(tenant, "Courier tracking", embed=False)
        hits = ranked(execute(full_text_plan(tenant, "damaged refund"), backend).hits)
        assert [h[1] for h in hits] == [both.id, *sorted(t.id for t in twins)]
        assert [h[0] for h in hits] == [1, 2, 2]  # rank(): ties share the first rank of them
        assert hits[0][3] == "Refund for a damaged parcel"  # details: the memory's columns

    def test_scores_only_hits_carry_no_columns(self, backend, tenant):
        remember(tenant, "Refund for a damaged parcel", embed=False)
        plan = replace(full_text_plan(tenant, "refund"), details=False)
        (hit,) = execute(plan, backend).hits
        assert hit.fts_rank == 1 and hit.confidence == 0.7 and hit.created_at is not None
        if backend is MEMORY_BACKEND:
            assert hit.text is None  # no row was read

    def test_full_text_never_returns_another_tenants_rows_or_invalid_confidence(
        self, backend, tenant, other_tenant
    ):
        mine = remember(tenant, "Warranty claims need a photo", embed=False)
        remember(tenant, "Warranty claims by letter", embed=False, confidence=float("nan"))
        remember(other_tenant, "Warranty claims need a receipt", embed=False)
        assert [h.id for h in execute(full_text_plan(tenant, "warranty claims"), backend).hits] == [mine.id]

    def test_containment_is_case_insensitive_in_confidence_order_and_bounded(
        self, backend, tenant, other_tenant
    ):
        rows = [
            Memory.objects.create(
                tenant=tenant, scope_kind="tenant", type="business", text=text, confidence=c
            )
            for text, c in [
                ("Das Café SCHLIESST um 18 Uhr", 0.6),
                ("Key_code on the parcel", 0.9),
                ("Invoices go out monthly", 0.7),
                ("Invoice copies on request", 0.8),
                ("Keyxcode is not a key_code", 0.5),
            ]
        ]
        Memory.objects.create(
            tenant=other_tenant, scope_kind="tenant", type="business", text="Invoice", confidence=1
        )
        Memory.objects.create(
            tenant=tenant, scope_kind="tenant", type="business", text="Invoice", status="archived"
        )

        def contains(plan):
            return ids(backend.contains(plan))

        assert contains(containment_plan(tenant, ["invoice"])) == [rows[3].id, rows[2].id]
        assert contains(containment_plan(tenant, ["invoice"], limit=1)) == [rows[3].id]
        assert contains(containment_plan(tenant, ["café", "schliesst"])) == [rows[0].id]
        # "_" is a word character, not LIKE's any-character wildcard.
        assert contains(containment_plan(tenant, ["key_code"])) == [rows[1].id, rows[4].id]
        assert contains(containment_plan(tenant, ["nothing"])) == []

    def test_only_the_in_memory_backend_declines_plans(self, backend, tenant):
        plan = replace(full_text_plan(tenant, "refund"), tiers=("fts", "trigram"))
        assert backend.supports(plan) is (backend is not MEMORY_BACKEND)

    def test_a_scoring_constant_is_one_edit_that_moves_every_backends_scores_alike(
        self, backend, tenant, settings
    ):
        """BM25's k1 and b are read in one place (brain.search.scoring): changing the setting changes both
        backends' full-text scores, identically."""
        rng = random.Random(8)
        for i in range(30):
            remember(
                tenant, " ".join(rng.choices(VOCABULARY, k=rng.randint(2, 12))) + f" note {i}", embed=False
            )
        queries = ["refund parcel", "courier late tracking", "warranty screen battery", "invoice"]

        def scores(query):
            return [(h[0], h[1], h[2]) for h in ranked(execute(full_text_plan(tenant, query), backend).hits)]

        default = {query: scores(query) for query in queries}
        settings.BRAIN_RECALL = {"BM25_K1": 2.5, "BM25_B": 0.3}
        for query in queries:
            changed = scores(query)
            reference = ranked(execute(full_text_plan(tenant, query), BACKENDS["postgres"]).hits)
            assert changed == [(h[0], h[1], h[2]) for h in reference], query
            assert [s for _, _, s in changed] != [s for _, _, s in default[query]], query

    def test_every_backend_scores_through_the_one_scorer(self, backend, tenant, monkeypatch):
        """The full-text and vector scores are brain.search.scoring's, whichever backend found the rows."""
        from brain.search import scoring

        remember(tenant, "Refund for a damaged parcel")
        remember(tenant, "Courier tracking for a parcel")
        plain = execute(hybrid_plan(tenant, "parcel refund"), backend).hits
        monkeypatch.setattr(scoring.Bm25, "score", lambda self, total, length: 7.0)
        original = scoring.cosine_similarities
        monkeypatch.setattr(scoring, "cosine_similarities", lambda *args: original(*args) * 0 + 0.25)
        hits = execute(hybrid_plan(tenant, "parcel refund"), backend).hits
        assert {h.id for h in hits} == {h.id for h in plain}
        assert {h.fts_score for h in hits if h.fts_rank} == {7.0}
        assert {h.vector_score for h in hits if h.vector_rank} == {0.25}

    @pytest.mark.parametrize("b", [0.75, 0.0])
    def test_more_matches_than_the_pool_give_every_backend_the_same_best(self, backend, tenant, b):
        """PostgreSQL sends, per set of held lexemes, only the best `pool` rows by length (then id), or by
        id when length does not matter (b = 0): the tier's best `pool` are the same as over every match."""
        rng = random.Random(4)
        for i in range(70):
            words = rng.choices(VOCABULARY, k=rng.randint(0, 9))
            remember(tenant, " ".join(["parcel", *words, f"n{i}"]), embed=False)
        for query in ("parcel", "parcel refund", "parcel courier late"):
            plan = full_text_plan(tenant, query, limit=1, BM25_B=b)
            got = ranked(execute(plan, backend).hits)
            assert len(got) == plan.pool == 50
            assert got == ranked(
                execute(full_text_plan(tenant, query, limit=1, BM25_B=b), BACKENDS["memory"]).hits
            )
