"""The trigram tier decided by the scope's vocabulary (brain.search.vocabulary): a typo word goes to pg_trgm
only when some word of the rows resembles it, and pg_trgm then looks only at the rows holding such a word."""

import json

import pytest
from django.db import connection

from brain.search.engine import execute, plan_recall
from brain.search.types import recall_settings
from brain.search.vocabulary import word_trigrams
from tests.brain.search.test_recall import ids, remember


def lexical_plan(tenant, query, **config):
    plan = plan_recall(
        tenant_id=tenant.pk,
        query=query,
        limit=10,
        mode="lexical",
        details=True,
        with_embedding=False,
        config={**recall_settings(), **config},
    )
    hits = execute(plan)
    return plan, hits


@pytest.fixture
def shop(tenant):
    return [
        remember(tenant, "Refunds are issued within 14 days of the return arriving.", key="refund policy"),
        remember(tenant, "We ship to Canada and Mexico with tracked couriers.", key="shipping"),
        remember(tenant, "A refund for a damaged parcel needs a photo.", key="damage"),
    ]


@pytest.mark.parametrize("word", ["refund", "x1", "co", "parcel2go"])
def test_a_words_trigrams_are_pg_trgms(db, word):  # ASCII: show_trgm prints others' trigrams as hashes
    with connection.cursor() as cursor:
        cursor.execute("SELECT show_trgm(%s)", [word])
        (expected,) = cursor.fetchone()
    assert word_trigrams(word) == frozenset(expected)


def test_a_word_like_no_word_of_the_rows_skips_the_trigram_tier(tenant, shop):
    plan, hits = lexical_plan(tenant, "vivaldi concertos")
    assert plan.lexical.trigram_words == [] and "trigram" not in plan.tiers and hits == []
    unplanned, _ = lexical_plan(tenant, "vivaldi concertos", TRIGRAM_VOCABULARY=False)
    assert unplanned.lexical.trigram_words == ["concertos", "vivaldi"]  # before: both words, every row


def test_a_typo_looks_only_at_the_rows_holding_a_similar_word(tenant, shop):
    plan, hits = lexical_plan(tenant, "refnd")
    assert plan.lexical.trigram_words == ["refnd"]
    assert plan.lexical.trigram_ids == sorted([shop[0].id, shop[2].id])
    assert {hit.id for hit in hits} == {shop[0].id, shop[2].id}


def parsed(hits):
    """The hits sorted, payloads as dicts (PostgreSQL's rows carry jsonb as text, the in-memory backend's
    cached rows parsed)."""
    return sorted(
        h._replace(payload=json.loads(h.payload) if isinstance(h.payload, str) else h.payload) for h in hits
    )


def test_the_same_hits_and_scores_as_over_every_row(tenant, shop):
    for query in ("refnd polcy", "shiping to canda", "damagd parcels"):
        _, hits = lexical_plan(tenant, query)
        _, every_row = lexical_plan(tenant, query, TRIGRAM_VOCABULARY=False)
        assert parsed(hits) == parsed(every_row)


def test_a_new_row_is_in_the_vocabulary_of_the_next_query(tenant, shop):
    from brain.api import recall

    assert recall(tenant_id=tenant.pk, query="vivaldy", mode="lexical") == []
    concert = remember(tenant, "Vivaldi's Four Seasons plays at the spring concert.", key="concert")
    assert ids(recall(tenant_id=tenant.pk, query="vivaldy", mode="lexical")) == [concert.id]
