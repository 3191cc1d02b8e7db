"""The trigram tier decided and scored by the scope's vocabulary (brain.search.vocabulary): a typo word is
looked up only when some word of the rows resembles it, only the rows holding such a word are found, and
their scores are pg_trgm's, computed word by word without a statement."""

import json
import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from brain.search.engine import execute, plan_recall
from brain.search.scoring import word_similarity, word_trigrams
from brain.search.types import recall_settings
from tests.brain.search.test_recall import ids, remember


def lexical_plan(tenant, query, mode="lexical", **config):
    plan = plan_recall(
        tenant_id=tenant.pk,
        query=query,
        limit=10,
        mode=mode,
        details=True,
        with_embedding=False,
        config={**recall_settings(), **config},
    )
    result = execute(plan)
    return result.plan, result.hits


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


def typo(rng, word):
    """`word` with one letter dropped, added or changed."""
    letters, at = list(word), rng.randrange(len(word))
    change = rng.randrange(3)
    if change == 0 and len(letters) > 1:
        del letters[at]
    elif change == 1:
        letters.insert(at, rng.choice("abcdefghijklmnopqrstuvwxyz"))
    else:
        letters[at] = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return "".join(letters)


WORDS = (
    "refund parcel courier invoice damaged warranty screen battery tracking late delivery address account "
    "password subscription cancel order payment shipping return exchange voucher discount receipt label "
    "aaa abab abababab who whose those whole seuss four for our grandma birthday concert vivaldi"
).split()


def test_word_similarity_is_pg_trgms_to_the_last_bit(db):
    rng = random.Random(11)
    pairs = [("word", "words"), ("aaa", "aaaaaa"), ("abab", "abababab"), ("whose", "who"), ("four", "for")]
    for _ in range(3000):
        word = rng.choice(WORDS)
        query = typo(rng, word) if rng.random() < 0.8 else rng.choice(WORDS)
        pairs.append((query, typo(rng, word) if rng.random() < 0.3 else word))
    with connection.cursor() as cursor:  # float8: the float4 result exactly, not its shortest text
        cursor.execute(
            "SELECT word_similarity(q, w)::float8 FROM unnest(%s::text[], %s::text[]) AS t(q, w)",
            [[q for q, _ in pairs], [w for _, w in pairs]],
        )
        expected = [row[0] for row in cursor.fetchall()]
    got = [float(word_similarity(word_trigrams(q), w)) for q, w in pairs]
    assert got == expected
    assert sum(0 < value < 1 for value in expected) > 1000  # partial matches, not only 0 and 1


def test_a_scope_the_vocabulary_scores_sends_no_trigram_statement(tenant, shop):
    from brain.api import recall

    with CaptureQueriesContext(connection) as statements:
        found = recall(tenant_id=tenant.pk, query="refnd polcy", mode="lexical")
    assert {memory.id for memory in found} == {shop[0].id, shop[2].id}
    assert all(memory.explanation["tiers"]["trigram"]["score"] > 0 for memory in found)
    assert not [s["sql"] for s in statements if "word_similarity" in s["sql"] or "<%" in s["sql"]]


def pg_trgm_tier(tenant, words, threshold=0.5):
    """pg_trgm's trigram tier for `words` over every active row of the tenant, word by word: per query word
    its best `word_similarity` to one word of the row's text or key, the mean over the query words, the
    rows where one word's best reaches `threshold`, as (score, id), best first."""
    best = ", ".join(f"max(word_similarity(%s, w)) AS b{i}" for i in range(len(words)))
    names = [f"b{i}" for i in range(len(words))]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT score, id FROM (
              SELECT m.id, ({" + ".join(names)}) / {len(words)} AS score, greatest({", ".join(names)}) AS top
              FROM brain_memory m, LATERAL (SELECT {best}
                FROM regexp_split_to_table(lower(m.text || ' ' || m.key), '[^[:alnum:]]+') w) b
              WHERE m.tenant_id = %s AND m.status = 'active') s
            WHERE top >= %s ORDER BY score DESC, id""",
            [*words, tenant.pk, threshold],
        )
        return cursor.fetchall()


def test_typo_queries_score_as_pg_trgm_word_by_word(tenant):
    """The vocabulary's rows and scores are pg_trgm's over every row, word by word, for the words it keeps
    (a word no word of the rows resembles is dropped; kept, it would lower every row's mean)."""
    rng = random.Random(7)
    for i in range(80):
        remember(
            tenant, " ".join(rng.choices(WORDS, k=rng.randint(3, 12))) + f" row{i}", key=rng.choice(WORDS)
        )
    compared = 0
    for _ in range(60):
        query = " ".join(typo(rng, word) for word in rng.sample(WORDS, rng.randint(1, 3)))
        plan, _ = lexical_plan(tenant, query)
        if plan.lexical.trigram_scored is None or not plan.lexical.trigram_words:
            continue
        assert plan.lexical.trigram_scored == pg_trgm_tier(tenant, plan.lexical.trigram_words), query
        compared += len(plan.lexical.trigram_words) > 1
    assert compared > 10


def test_a_match_across_two_words_is_what_the_vocabulary_loses(tenant):
    late = remember(tenant, "The parcel came late late at night.", key="courier")
    plan, hits = lexical_plan(tenant, "lbate")  # "late" resembles it, but 0.375 < 0.5: not found
    assert plan.lexical.trigram_words == ["lbate"] and hits == []
    _, every_row = lexical_plan(tenant, "lbate", TRIGRAM_VOCABULARY=False)  # a run across "late late"
    assert [(hit.id, hit.trigram_score) for hit in every_row] == [(late.id, 0.5)]


def test_a_plan_without_a_trigram_tier_neither_reads_nor_scores_the_vocabulary(tenant, shop):
    """Full text alone (the agents' context endpoint's recall) has no trigram tier: its typo words are
    neither looked up nor scored (they once cost that endpoint's recall half its time)."""
    from brain.search.vocabulary import VOCABULARIES

    misses, hits = VOCABULARIES.misses, VOCABULARIES.hits
    plan, found = lexical_plan(tenant, "refnd shipping", mode="fulltext")
    assert plan.lexical.trigram_words == [] and plan.lexical.trigram_scored is None
    assert [hit.id for hit in found] == [shop[1].id]
    assert (VOCABULARIES.misses, VOCABULARIES.hits) == (misses, hits)
