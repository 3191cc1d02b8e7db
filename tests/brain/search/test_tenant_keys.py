"""A tenant's search does the same work whether or not another tenant holds the word (issue 29, item 9).

The lexical tiers find rows through search keys that carry the tenant (migration 0019, brain/search/sql.py):
the posting lists a search reads, and the plans the planner picks for it, are the searching tenant's alone.
Before, a search for a word another tenant held in most rows read that tenant's postings and, from the table's
statistics, took another plan: slower, one bit per word. No timings here: each statement's plan and the
shared buffers it touched (EXPLAIN (ANALYZE, BUFFERS): brain.benchmarks.statement_work), and the rows found.
"""

import itertools
import random
import re

import psycopg
import pytest
from django.db import connection, connections

from brain.benchmarks.bulk_load import memories_bulk_load_for_benchmark
from brain.benchmarks.statement_work import search_work
from brain.search import recall
from brain.search.plan import LEXICAL_STATS
from brain.search.sql import MAX_QUERY_TRIGRAMS, at_least, least_count, trigram_candidates_query
from config.db_backend.base import driver_params
from tickets.tenancy.wall import tenant_bypass, tenant_scope

# The two words share no letter with the searching tenant's rows, so neither has a key of its own there and
# both searches look up the same number of absent keys; only another tenant's rows hold the secret.
SECRET, CONTROL = "jaqizyxa", "zyxajiqa"
OWN_LETTERS = ("bcdfghklmnprstvw", "eou")


def _words(rng: random.Random, count: int) -> list[str]:
    consonants, vowels = OWN_LETTERS
    return ["".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(3)) for _ in range(count)]


def _rows(rng: random.Random, vocabulary: list[str], count: int, word: str | None = None):
    for _ in range(count):
        text = rng.choices(vocabulary, k=8) + ([word] if word else [])
        yield {"scope_kind": "tenant", "type": "fact", "key": " ".join(text[:2]), "text": " ".join(text)}


def _as_owner(statement: str) -> None:
    with psycopg.connect(
        **driver_params(connections["default"].settings_dict, migration=True), autocommit=True
    ) as c:
        c.execute(statement)


@pytest.fixture
def attacker_and_victim(transactional_db, tenant, other_tenant, settings):
    """`tenant` searches: 150 rows of its own, searched by PostgreSQL. `other_tenant` holds SECRET in every one
    of its 3,000 rows (a posting tree of its own in each index), and the table's statistics say so."""
    _load(settings, 29, (tenant, 150, None), (other_tenant, 3000, SECRET))
    return tenant, other_tenant


def _load(settings, seed: int, *loads: tuple) -> None:
    """Rows of the vocabulary for each (tenant, count, word they all hold or None), searched by PostgreSQL past
    the in-memory backend's size (BM25_SAMPLE 100 here); then the table's statistics and its GIN pending lists
    merged, fresh."""
    settings.BRAIN_RECALL = {"BM25_SAMPLE": 100}
    rng = random.Random(seed)
    vocabulary = _words(rng, 300)
    with tenant_bypass("test rows"):
        for tenant, count, word in loads:
            memories_bulk_load_for_benchmark(tenant_id=tenant.pk, rows=_rows(rng, vocabulary, count, word))
    _as_owner("VACUUM ANALYZE brain_memory")


def work(tenant, word: str) -> list[tuple]:
    """Each statement of the tenant's lexical search for `word`, planned afresh: (plan's nodes, shared buffers
    touched, rows thrown away), and whether anything was found."""
    LEXICAL_STATS.clear()  # as after any write to the tenant's memories: the word's counts are read again
    found = []
    with tenant_scope(tenant.pk):
        statements = search_work(
            lambda: found.extend(recall(tenant_id=tenant.pk, query=word, mode="lexical"))
        )
    assert found == []
    assert any("word_similarity(" in s.sql for s in statements)  # the trigram tier ran, in SQL
    return [(s.nodes, s.shared, s.rows_removed) for s in statements]


def test_a_search_does_the_same_work_whether_or_not_another_tenant_holds_the_word(attacker_and_victim):
    attacker, victim = attacker_and_victim
    for word in (SECRET, CONTROL):  # once first: what a first search does once (pruning, hint bits, caches)
        work(attacker, word)
    assert work(attacker, SECRET) == work(attacker, CONTROL)
    with tenant_scope(victim.pk):  # the word is there, for its own tenant
        assert len(recall(tenant_id=victim.pk, query=SECRET, mode="lexical", limit=5)) == 5


def test_the_tenants_keys_are_its_lexemes_and_trigrams(db, tenant):
    from tests.brain.search.test_recall import remember

    memory = remember(tenant, "Refunds for O'Brien's café_order arrive in 14 days.", key="refund policy")
    with tenant_scope(tenant.pk), connection.cursor() as cursor:
        cursor.execute(
            """SELECT tsvector_to_array(tenant_lexemes), tsvector_to_array(search_vector),
                      tsvector_to_array(tenant_trigrams), show_trgm(key || ' ' || text)
               FROM brain_memory WHERE id = %s""",
            [memory.id],
        )
        lexemes, plain_lexemes, trigrams, plain_trigrams = cursor.fetchone()
    assert sorted(lexemes) == sorted(f"{tenant.pk}:{lexeme}" for lexeme in plain_lexemes)
    assert sorted(trigrams) == sorted(f"{tenant.pk}:{trigram}" for trigram in plain_trigrams)


def test_at_least_is_true_exactly_when_enough_operands_hold():
    for size in range(1, 9):
        names = [f"x{i}" for i in range(size)]
        for count in range(1, size + 1):
            formula = at_least(count, names, both=" and ", either=" or ")
            for values in itertools.product((False, True), repeat=size):
                held = dict(zip(names, values, strict=True))
                assert eval(formula, {}, held) is (sum(values) >= count), (formula, values)  # noqa: S307


def test_least_count_is_pg_trgms_test_of_a_candidate():
    assert [least_count(size, 0.5) for size in (1, 2, 3, 6, 7, 12)] == [1, 1, 2, 3, 4, 6]
    assert least_count(10, 0.3) == 3 and least_count(4, 1.0) == 4


def test_a_terms_keys_are_the_trigrams_inside_each_of_its_runs_of_letters_and_digits():
    from brain.search.sql import term_keys_query

    assert term_keys_query(7, "Ier DEPO") == "'7:dep' & '7:epo' & '7:ier'"
    # "_" splits pg_trgm's words as a space does.
    assert term_keys_query(7, "returns_por") == term_keys_query(7, "returns por")
    assert term_keys_query(7, "a b 30 da") is None  # no run of three: the keys cannot say
    assert term_keys_query(7, "dépôt") is None  # not ASCII: lower-casing may differ from the keys'


def test_a_long_word_keeps_a_looser_query_that_still_finds_every_match():
    trigrams = [f"t{i:02d}" for i in range(MAX_QUERY_TRIGRAMS + 4)]  # 20 trigrams: at least 10 at 0.5
    query = trigram_candidates_query(7, trigrams, 0.5)
    assert query.count("'7:") > 0 and "'7:t19'" not in query  # the first 16 kept, at least 6 of them
    assert trigram_candidates_query(7, trigrams, 0.1) is None  # 2 of 20: no test left, every row is tested


# --- A large tenant's keys are read alone (issue 31) ----------------------------------------------------------
# Indexes a statement that finds its rows through the tenant's keys may read: the keys' own, and the primary key
# (the rows' columns). An index by tenant_id would read every row of the tenant to intersect it with the key's few.
KEYED_INDEXES = {"memory_tenant_lexemes", "memory_tenant_trigrams", "brain_memory_pkey"}


@pytest.fixture
def a_tenth_of_the_table(transactional_db, tenant, other_tenant, settings):
    """`tenant` holds 1,000 rows, a tenth of the table, searched by PostgreSQL; six of them hold RARE."""
    _load(settings, 31, (tenant, 994, None), (tenant, 6, RARE), (other_tenant, 9000, None))
    return tenant


RARE = "quixotrel"


def keyed_search(tenant, query: str) -> tuple[list, list[str]]:
    """The rows found for `query`, and the plans of the statements that found rows through the tenant's keys."""
    LEXICAL_STATS.clear()
    found = []
    with tenant_scope(tenant.pk):
        statements = search_work(
            lambda: found.extend(recall(tenant_id=tenant.pk, query=query, mode="lexical", limit=10))
        )
    keyed = [s.nodes for s in statements if "tenant_lexemes @@" in s.sql or "tenant_trigrams @@" in s.sql]
    return found, keyed


def test_a_large_tenants_search_reads_its_keys_and_no_index_of_its_every_row(a_tenth_of_the_table):
    tenant = a_tenth_of_the_table
    found, keyed = keyed_search(tenant, RARE)
    assert len(keyed) == 2  # the word's count, then the full-text tier
    assert len(found) == 6 and all(RARE in r.text for r in found)
    typo_found, typo_keyed = keyed_search(tenant, RARE[:-1] + "a")  # no row holds it: the trigram tier
    assert len(typo_keyed) == 2  # the word's count, then the trigram tier's candidates
    assert {r.id for r in typo_found} == {r.id for r in found}
    for nodes in keyed + typo_keyed:
        indexes = set(re.findall(r"Index Scan using (\w+)", nodes))
        assert indexes and indexes <= KEYED_INDEXES, nodes


def test_a_large_tenants_keyword_tier_reads_its_keys_and_no_index_of_its_every_row(a_tenth_of_the_table):
    """The Client Brain keyword tier past its window (`ILIKE`, which the wall keeps off every index) looks a
    word up through the tenant's trigram keys first: a word six rows hold reads only those six (by id), a
    word no row holds reads no row."""
    from brain.client_brain.recall import keyword_plan
    from brain.search.backends.postgres import POSTGRES_BACKEND

    tenant = a_tenth_of_the_table
    for word, held in ((RARE, 6), (RARE[:-1] + "a", 0)):
        with tenant_scope(tenant.pk):
            plan = keyword_plan(tenant_id=tenant.pk, terms=[word])
            statements = search_work(lambda plan=plan: POSTGRES_BACKEND.contains(plan))
        keyed = [s for s in statements if "tenant_trigrams @@" in s.sql]
        containment = [s for s in statements if "ILIKE" in s.sql]
        assert len(keyed) == 1 and len(containment) == (1 if held else 0), word
        indexes = set(re.findall(r"Index Scan using (\w+)", keyed[0].nodes))
        assert indexes and indexes <= KEYED_INDEXES, keyed[0].nodes
        # The held rows by id (none of this table's rows is a live Client Brain row: none is returned).
        assert all('"brain_memory"."id" IN (' in s.sql for s in containment)


def test_a_keyed_lookup_reads_a_bounded_pending_list_whatever_other_tenants_wrote(
    transactional_db, tenant, other_tenant, settings
):
    """The GIN indexes of the tenants' keys keep new entries in a pending list until it is merged, and every
    lookup reads the whole list: with the default 4 MB, another tenant's recent writes added up to 512 pages to
    each of this tenant's lookups (2 ms a word in the context call's Client Brain stage, measured) and told it how
    much the others wrote. The list is held to 64 kB (migration 0026): a lookup reads about as much after another
    tenant's 600 new rows as before them."""
    from brain.client_brain.recall import keyword_plan
    from brain.search.backends.postgres import POSTGRES_BACKEND

    _load(settings, 37, (tenant, 150, None))  # merged and fresh

    def lookup_buffers() -> int:
        with tenant_scope(tenant.pk):
            plan = keyword_plan(tenant_id=tenant.pk, terms=[RARE])
            statements = search_work(lambda: POSTGRES_BACKEND.contains(plan))
        return sum(s.shared for s in statements if "tenant_trigrams @@" in s.sql)

    before = lookup_buffers()
    rng = random.Random(38)
    with tenant_bypass("test rows"):
        memories_bulk_load_for_benchmark(tenant_id=other_tenant.pk, rows=_rows(rng, _words(rng, 300), 600))
    after = lookup_buffers()
    assert before > 0 and after - before <= 12, (before, after)
