"""Planning a recall: what the lexical tiers search for (each query word's lexemes, their frequencies and IDF
in the filtered rows, which words need typo matching) and the recall plan itself. A plan is a frozen,
storage-neutral value (its filters are values, brain.search.filters); a backend executes it
(brain.search.backends) and says, in its result, how it served it."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from brain.caches import BoundedDict, StateCache
from brain.models import SEARCH_CONFIG

from .filters import Filters
from .scoring import Bm25
from .sql import tenant_lexemes_query, where
from .vocabulary import TrigramTier, trigram_tier

_WORD = re.compile(r"\w+", re.UNICODE)
# Question words carry no trigram evidence and would match half the memories.
_TRIGRAM_STOP = frozenset(
    "about after again also been before being could does doing from have having here into just more most "
    "only other over same should some such than that their them then there these they this those through "
    "under very what when where which while whom will with would your yours".split()
)

# --- Lexical statistics (cached) ---------------------------------------------------------------------------


class ScopeRow(NamedTuple):
    """One filtered row as the in-memory backend scores it: thousands are kept per scope."""

    id: int
    length: int  # the number of lexemes in its search vector
    lexemes: frozenset[str]
    confidence: float | None
    created_at: Any


@dataclass
class ScopeStatistics:
    """The filtered rows' statistics: `n` (counted up to the sample), `avg_len`, and per lexeme the rows
    holding it (`df`). Under the sample, every row (`rows`) and per lexeme its positions in `rows`
    (`postings`): what the in-memory backend scores."""

    n: int
    avg_len: float
    df: dict[str, int] = field(default_factory=dict)
    rows: tuple[ScopeRow, ...] | None = None
    postings: dict[str, list[int]] | None = None


WORD_LEXEMES = BoundedDict(
    "search-word-lexemes",
    bound=50_000,
    keyed_on=f"a query word (its lexemes under {SEARCH_CONFIG} never change)",
)
LEXICAL_STATS = StateCache(
    "search-lexical-statistics",
    size=512,
    keyed_on="the filters (SQL and parameters) and BM25_SAMPLE, and the memory state of the searched scopes",
)
_LEXEMES_PER_ENTRY = (
    20_000  # counted lexemes one statistics entry keeps (a large scope counts them one by one)
)


WORD_TRIGRAMS = BoundedDict(
    "search-word-trigrams", bound=50_000, keyed_on="a query word (its pg_trgm trigrams never change)"
)


def word_lexemes(cursor, words: list[str]) -> dict[str, tuple[str, ...]]:
    """Each word's lexemes; its pg_trgm trigrams are read with them (`word_trigrams`)."""
    missing = [w for w in words if w not in WORD_LEXEMES or w not in WORD_TRIGRAMS]
    if missing:
        cursor.execute(
            f"SELECT w, tsvector_to_array(to_tsvector('{SEARCH_CONFIG}', w)), show_trgm(w)"
            " FROM unnest(%s::text[]) w",
            [missing],
        )
        for w, lexemes, trigrams in cursor.fetchall():
            WORD_LEXEMES[w] = tuple(lexemes or ())
            WORD_TRIGRAMS[w] = tuple(trigrams or ())
    return {w: WORD_LEXEMES[w] for w in words}


def word_trigrams(cursor, words: list[str]) -> dict[str, tuple[str, ...]]:
    """Each word's trigrams as pg_trgm makes them (`show_trgm`: what the trigram keys hold)."""
    if any(w not in WORD_TRIGRAMS for w in words):
        word_lexemes(cursor, words)
    return {w: WORD_TRIGRAMS[w] for w in words}


def _read_statistics(cursor, filters: Filters, sample: int) -> ScopeStatistics:
    condition, params = where(filters)
    cursor.execute(
        f"""SELECT
  (SELECT count(*) FROM (SELECT 1 FROM brain_memory m WHERE {condition} LIMIT %(sample)s) c),
  (SELECT coalesce(avg(length(c.search_vector)), 1) FROM
     (SELECT m.search_vector FROM brain_memory m WHERE {condition} LIMIT 500) c)""",
        {**params, "sample": sample},
    )
    n, avg_len = cursor.fetchone()
    stats = ScopeStatistics(n=int(n), avg_len=float(avg_len or 1))
    if n < sample:
        # Each row's lexemes and length: the frequencies, and what full text scores in memory.
        cursor.execute(
            f"SELECT m.id, length(m.search_vector), tsvector_to_array(m.search_vector), m.confidence,"
            f" m.created_at FROM brain_memory m WHERE {condition}",
            params,
        )
        stats.rows = tuple(
            ScopeRow(i, length, frozenset(ls or ()), confidence, created_at)
            for i, length, ls, confidence, created_at in cursor.fetchall()
        )
        postings: dict[str, list[int]] = {}
        for position, row in enumerate(stats.rows):
            for lexeme in row.lexemes:
                postings.setdefault(lexeme, []).append(position)
        stats.df = {lexeme: len(rows) for lexeme, rows in postings.items()}
        stats.postings = postings  # lexeme -> positions in `rows`: full text visits only matches
    return stats


def scope_statistics(
    cursor, *, lexemes: list[str], filters: Filters, sample: int, state: str
) -> tuple[ScopeStatistics, dict[str, int]]:
    """The filtered rows' statistics and each lexeme's document frequency; cached under the memory state.

    Fewer rows than `sample` under the filters (an agent's memories, a small tenant): each row's id,
    length, lexemes, confidence and creation time are read in one pass, once per state, and the
    frequencies counted from them. More: `rows` is None and each new lexeme is counted through the
    full-text index, stopping at `sample`.
    """
    key = ("lexical", filters, sample)
    stats = LEXICAL_STATS.peek(key, state)
    if stats is None:
        stats = _read_statistics(cursor, filters, sample)
        LEXICAL_STATS.put(key, state, stats)
    known = stats.df
    if stats.rows is not None:
        return stats, {lexeme: known.get(lexeme, 0) for lexeme in lexemes}
    missing = [lexeme for lexeme in lexemes if lexeme not in known]
    counted = {}
    if missing:
        condition, params = where(filters, keyed=True)
        # Through the tenant's own keys (brain.search.sql): counting reads this tenant's postings only.
        queries = [tenant_lexemes_query(filters.tenant_id, [lexeme]) for lexeme in missing]
        cursor.execute(
            f"""SELECT ARRAY(SELECT (SELECT count(*) FROM (SELECT 1 FROM brain_memory m WHERE {condition}
                  AND m.tenant_lexemes @@ u.q LIMIT %(sample)s) c)
        FROM unnest(%(queries)s::tsquery[]) WITH ORDINALITY u(q, o) ORDER BY u.o)""",
            {**params, "queries": queries, "sample": sample},
        )
        counted = dict(zip(missing, cursor.fetchone()[0] or [], strict=True))
        if len(known) + len(counted) <= _LEXEMES_PER_ENTRY:
            known.update(counted)  # a benign race: every writer stores the same counts for this state
    return stats, {lexeme: counted.get(lexeme, known.get(lexeme)) for lexeme in lexemes}


# --- The lexical plan --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LexicalPlan:
    """What the lexical tiers search for (see `plan_lexical`)."""

    lexemes: list[str]  # every lexeme of the query's words
    idf: dict[str, float]  # per lexeme found in some row
    match_lexemes: list[str]  # what pulls rows into the full-text tier
    match: str  # "or" | "and"
    common_lexemes: list[str]
    trigram_words: list[str]
    avg_len: float
    and_limit: int | None  # every lexeme is common: full text scores at most this many matches
    statistics: ScopeStatistics  # `rows` set: the scope can be scored in memory
    # A scope of BM25_SAMPLE rows or more whose counts of every scored lexeme stopped at the sample: each is in
    # every row counted, its IDF about 0.0005, so full text could only order rows by length (see `plan_lexical`).
    saturated: bool = False
    # Decided by the scope's vocabulary (brain.search.vocabulary), else None (PostgreSQL, every filtered
    # row): the rows holding a word like a trigram word, and the tier's rows as (score, id), best first
    # (every row found: the backend keeps the first `pool`).
    trigram_ids: list[int] | None = None
    trigram_scored: list[tuple[float, int]] | None = None
    # Each trigram word's trigrams as pg_trgm makes them (PostgreSQL finds its candidates by them).
    word_trigrams: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def scored(self) -> list[str]:
        return sorted(self.idf)

    def explanation(self) -> dict[str, Any]:
        return {
            "lexemes": self.lexemes,
            "match_lexemes": self.match_lexemes,
            "match": self.match,
            "common_lexemes": self.common_lexemes,
            "trigram_words": self.trigram_words,
            "trigram_rows": None if self.trigram_ids is None else len(self.trigram_ids),
            "saturated": self.saturated,
        }


def plan_lexical(
    cursor, *, query: str, filters: Filters, config: dict, state: str, trigram: bool = True
) -> LexicalPlan:
    """Decide what the lexical tiers search for.

    Needs each query word's lexemes and, per lexeme, its document frequency among the tenant's filtered
    rows (counts stop at BM25_SAMPLE, so a large tenant costs bounded work); both are cached per process
    (the frequencies under the memory `state` of the searched scopes, so a write is seen at once).
    - IDF per lexeme for the BM25 score.
    - Matching: lexemes in fewer than COMMON_ROWS rows are "selective" and matched with OR; a common
      lexeme still scores but does not pull rows in (on a 100k-row tenant a word in half the rows
      would make every search score 50,000 rows). With no selective lexeme, all lexemes are ANDed.
    - Saturated: in a scope of BM25_SAMPLE rows or more, every scored lexeme counted in all the rows its count
      read (d = n = BM25_SAMPLE: "order" in a shop's 100,000 memories). Full text then holds no evidence of
      relevance, and in fusion (reciprocal ranks: a rank counts, not its score) the shortest of its arbitrary
      first AND_MATCH_LIMIT matches would outvote the vector tier's nearest rows; a plan that has the vector
      tier leaves it out (`RecallPlan.with_lexical`). A plan without it keeps it: a lexical search for such
      words still finds rows.
    - Trigram words: query words whose lexemes occur in no row (typos, partial words): only those
      need fuzzy matching; a word found as it is already matched by full text. In a scope the statistics
      hold, only those some word of the rows resembles, the tier's rows and scores computed from the
      scope's words (`typo_words`). Without `trigram` (the plan has no trigram tier), none.
    """
    words = sorted({w for w in _WORD.findall(query.lower()) if len(w) >= 3})
    lexemes_of = word_lexemes(cursor, words)
    lexemes = sorted({lexeme for ls in lexemes_of.values() for lexeme in ls})
    stats, df = scope_statistics(
        cursor, lexemes=lexemes, filters=filters, sample=int(config["BM25_SAMPLE"]), state=state
    )
    n = stats.n
    idf = {lexeme: math.log(1 + (n - d + 0.5) / (d + 0.5)) for lexeme, d in df.items() if d > 0}
    selective = [lexeme for lexeme in idf if df[lexeme] < config["COMMON_ROWS"]]
    scored = sorted(idf)
    trigram_words = [
        w
        for w, ls in sorted(lexemes_of.items())
        if trigram
        and ls
        and len(w) >= 4
        and w not in _TRIGRAM_STOP
        and all(df.get(lexeme, 0) == 0 for lexeme in ls)
    ][: config["TRIGRAM_MAX_WORDS"]]
    tier = typo_words(cursor, trigram_words, filters=filters, config=config, stats=stats, state=state)
    return LexicalPlan(
        lexemes=lexemes,
        idf=idf,
        match_lexemes=sorted(selective) if selective else scored,
        match="or" if selective else "and",
        common_lexemes=sorted(set(idf) - set(selective)),
        trigram_words=tier.words if tier else trigram_words,
        avg_len=float(stats.avg_len or 1),
        and_limit=int(config["AND_MATCH_LIMIT"]) if not selective and scored else None,
        statistics=stats,
        saturated=stats.rows is None and bool(idf) and all(df[lexeme] >= n for lexeme in idf),
        trigram_ids=tier.ids if tier else None,
        trigram_scored=tier.scored if tier else None,
        word_trigrams=word_trigrams(cursor, tier.words if tier else trigram_words),
    )


def typo_words(
    cursor, words: list[str], *, filters: Filters, config: dict, stats: ScopeStatistics, state: str
) -> TrigramTier | None:
    """The trigram tier decided and scored by the scope's vocabulary (brain.search.vocabulary) when the
    statistics hold every row and TRIGRAM_VOCABULARY is on; otherwise None: every candidate word, looked
    up by PostgreSQL over every row.
    """
    if not words or stats.rows is None or not config["TRIGRAM_VOCABULARY"]:
        return None
    return trigram_tier(
        cursor,
        words=words,
        filters=filters,
        state=state,
        threshold=float(config["TRIGRAM_THRESHOLD"]),
    )


# --- The recall plan ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecallPlan:
    """One recall query, planned: the tiers to run over the filtered rows, each returning `pool` rows. A
    frozen value: planning makes a new plan at each step (`dataclasses.replace`); what a backend did with
    it comes back with its result (brain.search.types.SearchResult)."""

    query: str
    mode: str
    tiers: tuple[str, ...]
    pool: int
    filters: Filters
    config: dict[str, Any]
    strategy: str  # how the vector tier is asked for: "hnsw" or "exact" (VECTOR_STRATEGY)
    with_embedding: bool
    details: bool  # False: scores only, no memory columns
    lexical: LexicalPlan | None = None
    embedding_model: str | None = None  # the model of the rows the query vector is compared with
    state: str | None = None  # the searched scopes' memory state, taken before any row is read
    # The filtered rows' statistics (the lexical plan's, or read for a vector-only plan): `rows` set when the
    # scope is small enough to be searched in memory.
    statistics: ScopeStatistics | None = None
    # The query's vector (float32, as pgvector reads it), compared with rows of `embedding_model`.
    vector: np.ndarray | None = field(default=None, repr=False, compare=False)

    def explanation(self) -> dict[str, Any]:
        return self.lexical.explanation() if self.lexical is not None else {}

    def query_vector(self) -> np.ndarray:
        return self.vector

    def bm25(self) -> Bm25:
        """The full-text tier's scorer for this query over this scope (brain.search.scoring)."""
        config = self.config
        return Bm25(
            idf=self.lexical.idf,
            avg_len=self.lexical.avg_len,
            k1=float(config["BM25_K1"]),
            b=float(config["BM25_B"]),
        )

    def with_lexical(self, lexical: LexicalPlan) -> RecallPlan:
        """This plan with its lexical part, and without a lexical tier left with nothing to do (only stop
        words: nothing for full text to match; every word found as a word: nothing to correct; beside the
        vector tier, saturated lexemes: nothing for full text to tell apart)."""
        saturated = lexical.saturated and "vector" in self.tiers
        empty = {"fts": not lexical.match_lexemes or saturated, "trigram": not lexical.trigram_words}
        return replace(
            self,
            lexical=lexical,
            statistics=lexical.statistics,
            tiers=tuple(tier for tier in self.tiers if not empty.get(tier, False)),
        )
