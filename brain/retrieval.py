"""Recall: hybrid retrieval over the one memory table (issue 3; DESIGN.md decisions 4, 6, 7).

`recall(tenant_id=..., query=...)` runs up to three tiers in ONE SQL statement, each under the same
tenant/scope/status/... filters, and fuses them in Python:

- `fts`: PostgreSQL full text on the generated `search_vector`, with OR semantics (the query's
  lexemes joined with `|`), ranked by `ts_rank_cd`; served by the GIN index led by `tenant_id`.
- `trigram`: pg_trgm `word_similarity` of the query against `text` and `similarity` against `key`, for
  partial words and typos; served by the trigram GIN index led by `tenant_id`. Only for short queries
  (a long question's trigrams are noise and slow the index down).
- `vector`: pgvector cosine distance to the query embedding (the configured embedder's cached
  `embed_query`), over rows embedded by that same model. Either the HNSW index with iterative scans
  under the filters, or an exact scan of the tenant's rows (`VECTOR_STRATEGY`, see the scale benchmark).

Fusion is weighted reciprocal rank fusion (`score = Σ w_tier / (k + rank_tier)`), plus small
confidence and recency features; then optional MMR diversification on the embeddings and an
optional reranker. Every result says why it was returned (`explanation`).

Contract: read-only, tenant-scoped (every tier filters on `tenant_id`; a row of another tenant can
never be returned), never returns a row whose confidence is NaN, infinite or outside the range.
Raises `RecallInputError` (a `ValueError`) for input a caller must fix.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from .memory_state import StateCache, memory_state
from .models import SEARCH_CONFIG, MemoryStatus

MODES = ("lexical", "fulltext", "vector", "hybrid")
TIERS_BY_MODE = {
    "lexical": ("fts", "trigram"),
    # Full text alone: no typo matching, but no per-row word_similarity either (the runtime context path).
    "fulltext": ("fts",),
    "vector": ("vector",),
    "hybrid": ("fts", "trigram", "vector"),
}
VECTOR_STRATEGIES = ("hnsw", "exact")
MAX_LIMIT = 100
_WORD = re.compile(r"\w+", re.UNICODE)
# Question words carry no trigram evidence and would match half the memories.
_TRIGRAM_STOP = frozenset(
    "about after again also been before being could does doing from have having here into just more most "
    "only other over same should some such than that their them then there these they this those through "
    "under very what when where which while whom will with would your yours".split()
)

DEFAULTS: dict[str, Any] = {
    # Reciprocal rank fusion: score = sum(weight[tier] / (RRF_K + rank)). k=10 and vector 0.7 measured best on
    # LoCoMo (brain_bench locomo; k=60 and equal weights gave 4-6 points less Recall@10).
    "RRF_K": 10,
    "WEIGHTS": {"fts": 1.0, "trigram": 0.5, "vector": 0.7, "graph": 0.5},
    # Each tier returns max(CANDIDATES, limit * CANDIDATES_PER_RESULT) rows before fusion.
    "CANDIDATES": 50,
    "CANDIDATES_PER_RESULT": 4,
    # Added to the fused score, in units of the best possible single-tier contribution 1 / (RRF_K + 1).
    "CONFIDENCE_WEIGHT": 0.1,
    "RECENCY_WEIGHT": 0.05,
    "RECENCY_HALF_LIFE_DAYS": 90.0,
    # MMR λ used when a caller passes none; None means no MMR by default.
    "MMR_LAMBDA": None,
    # "hnsw": HNSW index with iterative scans under the filters; "exact": exact scan of the filtered rows.
    "VECTOR_STRATEGY": "hnsw",
    "HNSW_EF_SEARCH": 100,
    "HNSW_MAX_SCAN_TUPLES": 40000,
    # Full-text scoring: "bm25" (IDF in the tenant's filtered rows, length-damped) or "ts_rank_cd".
    "LEXICAL_SCORING": "bm25",
    "BM25_K1": 1.2,
    "BM25_B": 0.75,
    # Row counts behind the IDF stop at this many (bounded work on a large tenant). With 5000 / 2000,
    # hybrid p50 on a 100k-row tenant was 114-158 ms; with 1000 / 500, 36-54 ms (brain_bench scale A/B).
    "BM25_SAMPLE": 1000,
    # A lexeme in at least this many rows scores but does not pull rows into the full-text tier.
    "COMMON_ROWS": 500,
    # When every query lexeme is common (all are then ANDed), full text scores at most this many matches.
    "AND_MATCH_LIMIT": 2000,
    # The trigram tier looks up at most this many query words, and only words of 4+ letters that full
    # text found in no row (typos, partial words): word_similarity is the costliest call in recall.
    "TRIGRAM_MAX_WORDS": 4,
    "TRIGRAM_THRESHOLD": 0.5,
}


def recall_settings() -> dict[str, Any]:
    configured = getattr(settings, "BRAIN_RECALL", {}) or {}
    merged = {**DEFAULTS, **configured}
    merged["WEIGHTS"] = {**DEFAULTS["WEIGHTS"], **configured.get("WEIGHTS", {})}
    return merged


class RecallInputError(ValueError):
    """A recall argument a caller must fix; the message says what to change."""


@dataclass
class RecalledMemory:
    """One memory returned by `recall`, with `explanation` saying why it was returned.

    `explanation` = {"tiers": {tier: {"rank": int, "score": float}}, "fused_score", "confidence_feature",
    "recency_feature", "final_score", "mmr": {"step", "lambda", "max_similarity"} | None,
    "rerank": {"reranker", "score"} | None, "vector_strategy"}.
    """

    id: int
    type: str
    key: str
    text: str
    payload: dict[str, Any]
    confidence: float | None
    status: str
    strength: str
    category: str
    scope_kind: str
    scope_id: str
    provider: str
    campaign_ids: list[str]
    tags: list[str]
    created_at: datetime
    score: float
    explanation: dict[str, Any] = field(default_factory=dict)
    # Kept for MMR and rerankers; not part of the public dict.
    embedding: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def tag(self) -> str:
        return f"[mem:{self.id}]"

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("embedding")
        return data


class Reranker:
    """Optional last stage: reorder recalled memories. Chosen by `BRAIN_RERANKER = {"BACKEND": ...}`.

    `rerank` gets the query and the fused, filtered candidates (best first) and returns them reordered
    (it may drop some, never add); it may set `explanation["rerank"]["score"]`.
    """

    name = "base"

    def __init__(self, **options: Any):
        self.options = options

    def rerank(self, *, query: str, memories: list[RecalledMemory]) -> list[RecalledMemory]:
        raise NotImplementedError


@lru_cache(maxsize=8)
def _load_reranker(backend: str, options: tuple) -> Reranker:
    return import_string(backend)(**dict(options))


def get_reranker() -> Reranker | None:
    config = getattr(settings, "BRAIN_RERANKER", None)
    if not config:
        return None
    config = dict(config)
    backend = config.pop("BACKEND")
    return _load_reranker(backend, tuple(sorted((k, str(v)) for k, v in config.items())))


# --- Input checks ------------------------------------------------------------------------------------------


def _finite_range(confidence_range: Sequence[float] | None) -> tuple[float, float] | None:
    if confidence_range is None:
        return None
    try:
        low, high = (float(v) for v in confidence_range)
    except (TypeError, ValueError):
        raise RecallInputError("confidence_range must be two numbers [low, high], e.g. [0.5, 1].") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RecallInputError("confidence_range bounds must be finite numbers (no NaN or infinity).")
    if low > high:
        raise RecallInputError(f"confidence_range low ({low}) is above high ({high}); swap them.")
    return low, high


def _string_list(name: str, values: Sequence[str] | None) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    values = [str(v) for v in values]
    if not values:
        raise RecallInputError(f"{name} is empty: omit it to mean 'any', or list at least one value.")
    return values


# --- SQL ---------------------------------------------------------------------------------------------------


def _tsquery_literal(lexeme: str) -> str:
    """One lexeme quoted for tsquery input: it is matched as is, never parsed as an operator."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


# Per process: a word's lexemes under SEARCH_CONFIG never change; the statistics below change with the
# memories, so they are cached under the memory state of the searched scopes (brain.memory_state).
_WORD_LEXEMES: dict[str, tuple[str, ...]] = {}
_WORD_LEXEMES_MAX = 50_000
_LEXICAL_STATS = StateCache("recall-lexical-stats", size=512)
_LEXEMES_PER_ENTRY = 20_000


def _word_lexemes(cursor, words: list[str]) -> dict[str, tuple[str, ...]]:
    missing = [w for w in words if w not in _WORD_LEXEMES]
    if missing:
        cursor.execute(
            f"SELECT w, tsvector_to_array(to_tsvector('{SEARCH_CONFIG}', w)) FROM unnest(%s::text[]) w",
            [missing],
        )
        if len(_WORD_LEXEMES) > _WORD_LEXEMES_MAX:
            _WORD_LEXEMES.clear()
        for w, lexemes in cursor.fetchall():
            _WORD_LEXEMES[w] = tuple(lexemes or ())
    return {w: _WORD_LEXEMES[w] for w in words}


def _lexeme_stats(
    cursor, *, lexemes: list[str], where: str, params: dict[str, Any], sample: int, state: str, key: tuple
) -> tuple[dict[str, Any], dict[str, int]]:
    """The statistics of the rows under the filters — `n` (counted up to `sample`), `avg_len`, and `rows`
    — and, per lexeme, the rows that contain it (also up to `sample`); cached under the memory state.

    Fewer rows than `sample` under the filters (an agent's memories, a small tenant): each row's id,
    length, lexemes, confidence and creation time are read in one pass, once per state (`rows`), and the
    frequencies counted from them. More: `rows` is None and each new lexeme is counted through the
    full-text index, stopping at `sample`.
    """
    stats = _LEXICAL_STATS.peek(key, state)
    if stats is None:
        cursor.execute(
            f"""SELECT
  (SELECT count(*) FROM (SELECT 1 FROM brain_memory m WHERE {where} LIMIT %(sample)s) c),
  (SELECT coalesce(avg(length(c.search_vector)), 1) FROM
     (SELECT m.search_vector FROM brain_memory m WHERE {where} LIMIT 500) c)""",
            {**params, "sample": sample},
        )
        n, avg_len = cursor.fetchone()
        stats = {"n": int(n), "avg_len": float(avg_len or 1), "df": {}, "rows": None}
        if n < sample:
            # Each row's lexemes and length: the frequencies, and what full text scores in memory.
            cursor.execute(
                f"SELECT m.id, length(m.search_vector), tsvector_to_array(m.search_vector), m.confidence,"
                f" m.created_at FROM brain_memory m WHERE {where}",
                params,
            )
            stats["rows"] = tuple(
                (i, length, frozenset(ls or ()), confidence, created_at)
                for i, length, ls, confidence, created_at in cursor.fetchall()
            )
            postings: dict[str, list[int]] = {}
            for position, row in enumerate(stats["rows"]):
                for lexeme in row[2]:
                    postings.setdefault(lexeme, []).append(position)
            stats["df"] = {lexeme: len(rows) for lexeme, rows in postings.items()}
            stats["postings"] = postings  # lexeme -> positions in `rows`: full text visits only matches
        _LEXICAL_STATS.put(key, state, stats)
    known = stats["df"]
    if stats["rows"] is not None:
        return stats, {lexeme: known.get(lexeme, 0) for lexeme in lexemes}
    missing = [lexeme for lexeme in lexemes if lexeme not in known]
    counted = {}
    if missing:
        cursor.execute(
            f"""SELECT ARRAY(SELECT (SELECT count(*) FROM (SELECT 1 FROM brain_memory m WHERE {where}
                  AND m.search_vector @@ to_tsquery('simple', quote_literal(u.l)) LIMIT %(sample)s) c)
        FROM unnest(%(lexemes)s::text[]) WITH ORDINALITY u(l, o) ORDER BY u.o)""",
            {**params, "lexemes": missing, "sample": sample},
        )
        counted = dict(zip(missing, cursor.fetchone()[0] or [], strict=True))
        if len(known) + len(counted) <= _LEXEMES_PER_ENTRY:
            known.update(counted)  # a benign race: every writer stores the same counts for this state
    return stats, {lexeme: counted.get(lexeme, known.get(lexeme)) for lexeme in lexemes}


def _plan_lexical(
    cursor, *, query: str, where: str, params: dict[str, Any], config: dict, state: str, stats_key: tuple
) -> dict[str, Any]:
    """Decide what the lexical tiers search for; adds their parameters to `params`; returns the plan.

    Needs each query word's lexemes and, per lexeme, its document frequency among the tenant's filtered
    rows (counts stop at BM25_SAMPLE, so a large tenant costs bounded work); both are cached per process
    (the frequencies under the memory `state` of the searched scopes, so a write is seen at once).
    - IDF per lexeme for the BM25 score, passed as constants.
    - Matching: lexemes in fewer than COMMON_ROWS rows are "selective" and matched with OR; a common
      lexeme still scores but does not pull rows in (on a 100k-row tenant a word in half the rows
      would make every search score 50,000 rows). With no selective lexeme, all lexemes are ANDed.
    - Trigram words: query words whose lexemes occur in no row (typos, partial words): only those
      need fuzzy matching; a word found as it is already matched by full text.
    """
    words = sorted({w for w in _WORD.findall(query.lower()) if len(w) >= 3})
    word_lexemes = _word_lexemes(cursor, words)
    lexemes = sorted({lexeme for ls in word_lexemes.values() for lexeme in ls})
    stats, df = _lexeme_stats(
        cursor,
        lexemes=lexemes,
        where=where,
        params=params,
        sample=int(config["BM25_SAMPLE"]),
        state=state,
        key=stats_key,
    )
    n, avg_len = stats["n"], stats["avg_len"]
    idf = {lexeme: math.log(1 + (n - d + 0.5) / (d + 0.5)) for lexeme, d in df.items() if d > 0}
    selective = [lexeme for lexeme in idf if df[lexeme] < config["COMMON_ROWS"]]
    scored = sorted(idf)
    if selective:
        tsq = " | ".join(_tsquery_literal(lexeme) for lexeme in sorted(selective))
    else:
        tsq = " & ".join(_tsquery_literal(lexeme) for lexeme in scored)
    if not selective and scored:
        params["and_limit"] = int(config["AND_MATCH_LIMIT"])
    params.update(
        tsq=tsq,
        avg_len=float(avg_len or 1),
        bm25_k1=config["BM25_K1"],
        bm25_b=config["BM25_B"],
        **{f"lex_{i:02d}": _tsquery_literal(lexeme) for i, lexeme in enumerate(scored)},
        **{f"idf_{i:02d}": idf[lexeme] for i, lexeme in enumerate(scored)},
    )
    trigram_words = [
        w
        for w, ls in sorted(word_lexemes.items())
        if ls and len(w) >= 4 and w not in _TRIGRAM_STOP and all(df.get(lexeme, 0) == 0 for lexeme in ls)
    ][: config["TRIGRAM_MAX_WORDS"]]
    params.update({f"word_{i:02d}": w for i, w in enumerate(trigram_words)})
    return {
        "lexemes": lexemes,
        "match_lexemes": (sorted(selective) if selective else scored),
        "match": "or" if selective else "and",
        "common_lexemes": sorted(set(idf) - set(selective)),
        "trigram_words": trigram_words,
        # Not part of the explanation: what full text needs to score a small scope in memory.
        "_in_memory": None
        if stats["rows"] is None
        else {"rows": stats["rows"], "postings": stats["postings"], "idf": idf},
    }


def _fts_in_memory(
    cursor,
    *,
    plan: dict[str, Any],
    where: str,
    params: dict[str, Any],
    pool: int,
    with_embedding: bool,
    details: bool = True,
) -> list[tuple]:
    """The full-text tier alone, scored in memory over the scope's cached rows: the same BM25 as the SQL
    of `_build_sql` (the same float operations in the same order, so the same scores and ranks), then
    one primary-key read of the rows it returns, in the shape of the SQL's result rows. Without
    `details`, no read: the rows carry only the id, confidence, creation time and the tier's rank and score.

    Only for BM25 over a scope under BM25_SAMPLE rows (`plan["_in_memory"]`). When every lexeme is
    common, all matches are scored (AND_MATCH_LIMIT bounds the SQL's work; here there is little).
    """
    memory = plan["_in_memory"]
    idf, scored = memory["idf"], sorted(memory["idf"])
    match = frozenset(plan["match_lexemes"])
    every = plan["match"] == "and"
    k1, b, avg_len = params["bm25_k1"], params["bm25_b"], params["avg_len"]
    hits = []
    snapshot = {}
    rows, postings = memory["rows"], memory["postings"]
    matched = [set(postings.get(lexeme, ())) for lexeme in match]
    if not matched:  # no lexeme to match: AND holds for every row, OR for none (as subset / disjoint do)
        positions = set(range(len(rows))) if every else set()
    elif every:
        positions = set.intersection(*matched)
    else:
        positions = set.union(*matched)
    for position in sorted(positions):
        memory_id, length, lexemes, confidence, created_at = rows[position]
        total = 0.0
        for lexeme in scored:
            if lexeme in lexemes:
                total += idf[lexeme]
        hits.append((total * (k1 + 1) / (1 + k1 * (1 - b + b * length / avg_len)), memory_id))
        snapshot[memory_id] = (confidence, created_at)
    hits.sort(key=lambda hit: (-hit[0], hit[1]))
    hits = hits[:pool]
    ranks = {}
    for position, (score, memory_id) in enumerate(hits):
        # rank(): ties share the rank of the first of them.
        ranks[memory_id] = (ranks[hits[position - 1][1]][0] if position and hits[position - 1][0] == score
                            else position + 1, score)  # fmt: skip
    if not hits:
        return []
    if not details:
        blank = (None,) * 4
        return [
            (memory_id, *blank, snapshot[memory_id][0], *(None,) * 8, snapshot[memory_id][1], rank, score,
             *blank, None)
            for memory_id, (rank, score) in ranks.items()
        ]  # fmt: skip
    cursor.execute(
        f"SELECT {_result_columns(with_embedding)} FROM brain_memory m WHERE {where} AND m.id = ANY(%(fts_ids)s)",
        {**params, "fts_ids": list(ranks)},
    )
    return [
        (*row[:15], ranks[row[0]][0], ranks[row[0]][1], None, None, None, None, row[15])
        for row in cursor.fetchall()
    ]


def _filters(params: dict[str, Any], **f: Any) -> str:
    # bigint, as the column: btree_gin's int8_ops has no int8 = int4, and the GIN indexes need the tenant.
    clauses = ["m.tenant_id = %(tenant_id)s::bigint"]
    if f["scope_kind"] is not None:
        clauses.append("m.scope_kind = %(scope_kind)s")
        params["scope_kind"] = f["scope_kind"]
    for name, column in (
        ("scope_ids", "scope_id"),
        ("types", "type"),
        ("statuses", "status"),
        ("strengths", "strength"),
        ("categories", "category"),
    ):
        if f[name] is not None:
            clauses.append(f"m.{column} = ANY(%({name})s)")
            params[name] = f[name]
    confidence_range = f["confidence_range"]
    if confidence_range is None:
        # Ungraded (null) rows are admitted; legacy NaN / infinite / out-of-range values never are
        # (in PostgreSQL NaN sorts above every number, so BETWEEN with finite bounds excludes it).
        clauses.append("(m.confidence IS NULL OR m.confidence BETWEEN 0 AND 1)")
    else:
        clauses.append("m.confidence BETWEEN %(confidence_low)s AND %(confidence_high)s")
        params["confidence_low"], params["confidence_high"] = confidence_range
    return " AND ".join(clauses)


# The columns of a RecalledMemory, in its field order: every statement that returns memories selects them.
_COLUMNS = (
    "m.id, m.type, m.key, m.text, m.payload, m.confidence, m.status, m.strength, m.category, "
    "m.scope_kind, m.scope_id, m.provider, m.campaign_ids, m.tags, m.created_at"
)


def _embedding_column(with_embedding: bool) -> str:
    return "m.embedding::text" if with_embedding else "NULL"


def _result_columns(with_embedding: bool) -> str:
    return f"{_COLUMNS}, {_embedding_column(with_embedding)}"


def _frozen(params: dict[str, Any]) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items()))


def _vector_literal(vector: Sequence[float]) -> str:
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def _build_sql(
    *,
    tiers: Sequence[str],
    where: str,
    strategy: str,
    with_embedding: bool,
    params: dict[str, Any],
    scoring: str = "bm25",
) -> str:
    ctes = []
    selects = []
    if "fts" in tiers:
        # OR semantics: a memory matching some of the query's lexemes is found. The parameters are
        # tsquery literals (built from the lexemes in Python), so they are constants in the plan.
        lexemes = [name for name in sorted(params) if name.startswith("lex_")]
        if scoring == "bm25":
            # BM25 over lexeme presence (a memory is short; repeats matter little): each matched lexeme
            # adds its IDF (computed by _plan_lexical), damped by the memory's length.
            terms = " + ".join(
                f"(m.search_vector @@ %({lex})s::tsquery)::int * %(idf_{lex[4:]})s::float8" for lex in lexemes
            )
            score = (
                f"({terms}) * (%(bm25_k1)s::float8 + 1) / (1 + %(bm25_k1)s::float8 * (1 - %(bm25_b)s::float8 + "
                "%(bm25_b)s::float8 * length(m.search_vector) / %(avg_len)s::float8))"
            )
        else:
            score = "ts_rank_cd(m.search_vector, %(tsq)s::tsquery)"
        source, matched = "brain_memory m", f"{where} AND m.search_vector @@ %(tsq)s::tsquery"
        if "and_limit" in params:
            # Every lexeme is common, so every match holds the same lexemes and only its length tells
            # them apart: score at most AND_MATCH_LIMIT of them, not the tens of thousands that match.
            source, matched = (
                f"(SELECT m.id, m.search_vector FROM {source} WHERE {matched} LIMIT %(and_limit)s) m",
                "TRUE",
            )
        ctes.append(
            f"""fts AS (
  SELECT id, score, rank() OVER (ORDER BY score DESC) AS rank FROM (
    SELECT m.id, {score} AS score
    FROM {source}
    WHERE {matched}
    ORDER BY score DESC, m.id LIMIT %(pool)s) s)"""
        )
    if "trigram" in tiers:
        # One condition per query word, so a typo in one word still finds the memory (a whole-query
        # similarity is diluted by the other words). The score is the words' mean best similarity.
        words = [name for name in sorted(params) if name.startswith("word_")]
        # Candidates come word by word, so each lookup is one trigram-index scan (a single OR over the
        # words made the planner filter every tenant row through word_similarity, 100x slower); the
        # costly similarity is then computed only for the candidates.
        candidates = " UNION ".join(
            f"(SELECT m.id FROM brain_memory m WHERE {where} AND (%({w})s <%% m.text OR %({w})s <%% m.key)"
            " LIMIT %(pool)s)"
            for w in words
        )
        score = " + ".join(
            f"greatest(word_similarity(%({w})s, m.text), word_similarity(%({w})s, m.key))" for w in words
        )
        ctes.append(
            f"""trigram AS (
  SELECT id, score, rank() OVER (ORDER BY score DESC) AS rank FROM (
    SELECT m.id, ({score}) / {len(words)} AS score
    FROM brain_memory m JOIN ({candidates}) c ON c.id = m.id
    ORDER BY score DESC, m.id LIMIT %(pool)s) s)"""
        )
    if "vector" in tiers:
        # "+ 0" hides the operator from the planner: the exact strategy never walks the HNSW graph.
        distance = "(m.embedding <=> %(qvec)s::vector)" + (" + 0" if strategy == "exact" else "")
        ctes.append(
            f"""vector AS (
  SELECT id, score, rank() OVER (ORDER BY score DESC) AS rank FROM (
    SELECT m.id, 1 - {distance} AS score
    FROM brain_memory m
    WHERE {where} AND m.embedding IS NOT NULL AND m.embedding_model = %(embedding_model)s
    ORDER BY {distance}, m.id LIMIT %(pool)s) s)"""
        )
    union = " UNION ".join(f"SELECT id FROM {tier}" for tier in tiers)
    for tier in ("fts", "trigram", "vector"):
        if tier in tiers:
            selects.append(f"{tier}.rank, {tier}.score")
            continue
        selects.append("NULL::bigint, NULL::float8")
    joins = " ".join(f"LEFT JOIN {tier} ON {tier}.id = m.id" for tier in tiers)
    # The ids come from tiers that all filter on the tenant; the final re-check stays as a belt, and its
    # "+ 0" keeps it from steering the plan (on stale statistics a tenant index scan per id was chosen
    # over the primary key).
    return (
        "WITH "
        + ",\n".join(ctes)
        + f"""
SELECT {_COLUMNS}, {", ".join(selects)}, {_embedding_column(with_embedding)}
FROM ({union}) ids JOIN brain_memory m ON m.id = ids.id {joins}
WHERE m.tenant_id + 0 = %(tenant_id)s::bigint"""
    )


# --- Ranking -----------------------------------------------------------------------------------------------


def _json(value: Any) -> Any:
    """A jsonb column read through a raw cursor arrives as text (Django's psycopg setup): parse it."""
    return json.loads(value) if isinstance(value, str) else value


def _parse_vector(text: str | None) -> np.ndarray | None:
    if not text:
        return None
    return np.fromstring(text.strip("[]"), sep=",", dtype=np.float32)


def _mmr(candidates: list[RecalledMemory], *, limit: int, lam: float) -> list[RecalledMemory]:
    """Maximal marginal relevance: pick, step by step, argmax λ·relevance − (1−λ)·max cosine to picked.

    Relevance is the final score scaled to [0, 1] by the best candidate. A memory without an embedding
    has similarity 0 to everything (it cannot be judged a duplicate).
    """
    if not candidates:
        return []
    best = max(c.score for c in candidates) or 1.0
    vectors = []
    for c in candidates:
        if c.embedding is None:
            vectors.append(None)
            continue
        norm = float(np.linalg.norm(c.embedding)) or 1.0
        vectors.append(c.embedding / norm)
    remaining = list(range(len(candidates)))
    picked: list[int] = []
    max_sim = [0.0] * len(candidates)
    while remaining and len(picked) < limit:
        step_best, step_value = None, -math.inf
        for i in remaining:
            value = lam * (candidates[i].score / best) - (1 - lam) * max_sim[i]
            if value > step_value:
                step_best, step_value = i, value
        remaining.remove(step_best)
        picked.append(step_best)
        chosen = candidates[step_best]
        chosen.explanation["mmr"] = {
            "step": len(picked),
            "lambda": lam,
            "max_similarity_to_earlier": round(max_sim[step_best], 4),
            "mmr_value": round(step_value, 6),
        }
        if vectors[step_best] is not None:
            for i in remaining:
                if vectors[i] is not None:
                    max_sim[i] = max(max_sim[i], float(vectors[i] @ vectors[step_best]))
    return [candidates[i] for i in picked]


def _final_score(fused: float, confidence, created_at, *, now, config: dict) -> tuple[float, float, float]:
    """The ranking score: fused tiers plus the confidence and recency features, in units of the best
    possible single-tier contribution. Returns (final, confidence feature, recency feature)."""
    unit = 1.0 / (config["RRF_K"] + 1)
    confidence_feature = float(confidence) if confidence is not None else 0.5
    age_days = max((now - created_at).total_seconds() / 86400.0, 0.0)
    half_life = float(config["RECENCY_HALF_LIFE_DAYS"])
    recency_feature = 0.5 ** (age_days / half_life) if half_life > 0 else 0.0
    final = (
        fused
        + config["CONFIDENCE_WEIGHT"] * unit * confidence_feature
        + config["RECENCY_WEIGHT"] * unit * recency_feature
    )
    return final, confidence_feature, recency_feature


def _expand_graph(
    results: list[RecalledMemory],
    *,
    tenant_id: int,
    where: str,
    params: dict[str, Any],
    limit: int,
    config: dict,
    statuses: list[str] | None,
    with_embedding: bool,
) -> list[RecalledMemory]:
    """Add the graph tier: one-hop neighbours of the best `limit` results, ranked by how many seeds
    point at them (brain.graph.expand_one_hop), fetched under recall's filters, fused with weight
    WEIGHTS["graph"]."""
    from .graph import expand_one_hop

    seeds = [r.id for r in results[:limit]]
    neighbours = expand_one_hop(tenant_id, seeds, statuses=statuses or [s for s, _ in MemoryStatus.choices])
    if not neighbours:
        return results
    k, weight = config["RRF_K"], config["WEIGHTS"]["graph"]
    rank_of = {memory_id: rank for rank, memory_id in enumerate(neighbours, start=1)}
    by_id = {r.id: r for r in results}
    missing = [i for i in neighbours if i not in by_id]
    if missing:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {_result_columns(with_embedding)} FROM brain_memory m WHERE {where} AND m.id = ANY(%(graph_ids)s)",
                {**params, "graph_ids": missing},
            )
            for row in cursor.fetchall():
                base, confidence_feature, recency_feature = _final_score(
                    0.0, row[5], row[14], now=timezone.now(), config=config
                )
                memory = RecalledMemory(
                    *row[:15],
                    score=base,
                    explanation={
                        "mode": results[0].explanation.get("mode"),
                        "tiers": {},
                        "fused_score": 0.0,
                        "confidence_feature": round(confidence_feature, 4),
                        "recency_feature": round(recency_feature, 4),
                        "final_score": round(base, 6),
                        "mmr": None,
                        "rerank": None,
                        "vector_strategy": None,
                        "query": results[0].explanation.get("query"),
                    },
                    embedding=_parse_vector(row[15]),
                )
                memory.campaign_ids, memory.tags = list(memory.campaign_ids or []), list(memory.tags or [])
                memory.payload = _json(memory.payload)
                by_id[memory.id] = memory
                results.append(memory)
    for memory_id, rank in rank_of.items():
        memory = by_id.get(memory_id)
        if memory is None:  # filtered out (scope, type, confidence...)
            continue
        contribution = weight / (k + rank)
        memory.explanation["tiers"]["graph"] = {"rank": rank, "score": None, "rrf": round(contribution, 6)}
        memory.explanation["fused_score"] = round(
            memory.explanation.get("fused_score", 0.0) + contribution, 6
        )
        memory.score += contribution
        memory.explanation["final_score"] = round(memory.score, 6)
    results.sort(key=lambda r: (-r.score, r.id))
    return results


def recall_scores(*, tenant_id: int, query: str, limit: int = 10, **filters: Any) -> dict[int, float]:
    """{memory id: score} for what `recall(tenant_id=, query=, limit=, **filters)` returns, best first:
    the same filters, modes and scores, for a caller that needs only the scores (the runtime's relevance
    check). Full text over a small scope then reads no memory row at all. No MMR, reranker or graph tier.
    """
    for name in ("mmr_lambda", "rerank", "expand_graph"):
        if filters.pop(name, None):
            raise RecallInputError(f"recall_scores does not take {name}: use recall().")
    return recall(
        tenant_id=tenant_id,
        query=query,
        limit=limit,
        mmr_lambda=None,
        rerank=False,
        _scores_only=True,
        **filters,
    )


def recall(
    *,
    tenant_id: int,
    query: str,
    scope_kind: str | None = None,
    scope_ids: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    statuses: Sequence[str] | None = ("active",),
    strengths: Sequence[str] | None = None,
    categories: Sequence[str] | None = None,
    confidence_range: Sequence[float] | None = None,
    limit: int = 10,
    mode: str = "hybrid",
    mmr_lambda: float | None = None,
    rerank: bool | None = None,
    expand_graph: bool = False,
    query_embedding: Sequence[float] | None = None,
    embedding_model: str | None = None,
    _scores_only: bool = False,
) -> list[RecalledMemory]:
    """The tenant's memories most relevant to `query`, best first, at most `limit`.

    Filters (each `None` = any): `scope_kind` and `scope_ids` (scope owners), `types`, `statuses`
    (default active only), `strengths`, `categories`, `confidence_range` ([low, high], finite; default:
    null or within 0–1). `mode`: "lexical" (fts + trigram), "fulltext" (fts alone), "vector", or "hybrid" (all three).
    `mmr_lambda` in [0, 1] turns on MMR (1 = pure relevance); None uses `BRAIN_RECALL["MMR_LAMBDA"]`.
    `rerank`: None = the configured `BRAIN_RERANKER` if any, False = none, True = the configured one
    (error when none is). `expand_graph` adds the BrainGraph's one-hop neighbours of the best
    `limit` results (related_to / reinforces / contradicts edges) as a "graph" tier, under the same
    filters; a neighbour already found gains the graph tier's contribution. `query_embedding` + `embedding_model` skip the query embedder (benchmarks).
    Equal tier scores share a rank, so confidence and recency decide between equal matches.
    Read-only: the tiers run as one SQL statement, after the lexical statistics (cached per process under
    the memory state, `brain.memory_state`); full text alone over a scope under BM25_SAMPLE rows is scored
    in memory from those statistics (`_fts_in_memory`).
    """
    config = recall_settings()
    if not isinstance(query, str) or not query.strip():
        raise RecallInputError("query is blank: pass the words to search for.")
    query = query.strip()
    if mode not in MODES:
        raise RecallInputError(f"mode {mode!r} is not one of {', '.join(MODES)}.")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise RecallInputError(f"limit must be an integer from 1 to {MAX_LIMIT}.")
    if mmr_lambda is None:
        mmr_lambda = config["MMR_LAMBDA"]
    if mmr_lambda is not None and not (isinstance(mmr_lambda, int | float) and 0 <= mmr_lambda <= 1):
        raise RecallInputError("mmr_lambda must be a number from 0 (most diverse) to 1 (most relevant).")
    reranker = None if rerank is False else get_reranker()
    if rerank is True and reranker is None:
        raise RecallInputError("rerank was asked for but no reranker is configured (BRAIN_RERANKER).")
    strategy = config["VECTOR_STRATEGY"]
    if strategy not in VECTOR_STRATEGIES:
        raise RecallInputError(f"BRAIN_RECALL VECTOR_STRATEGY must be one of {VECTOR_STRATEGIES}")

    weights = config["WEIGHTS"]
    tiers = [t for t in TIERS_BY_MODE[mode] if weights.get(t, 0) > 0]
    if not tiers:
        return {} if _scores_only else []
    pool = max(config["CANDIDATES"], limit * config["CANDIDATES_PER_RESULT"])
    params: dict[str, Any] = {"tenant_id": int(tenant_id), "query": query, "pool": pool}
    where = _filters(
        params,
        scope_kind=scope_kind,
        scope_ids=(scope_ids := _string_list("scope_ids", scope_ids)),
        types=_string_list("types", types),
        statuses=_string_list("statuses", statuses),
        strengths=_string_list("strengths", strengths),
        categories=_string_list("categories", categories),
        confidence_range=_finite_range(confidence_range),
    )
    filter_params = dict(params)  # the tenant and the filters: what the lexical statistics depend on
    filter_params.pop("query"), filter_params.pop("pool")
    if "vector" in tiers:
        if query_embedding is None:
            from .embedders import embed_query, get_embedder

            query_embedding = embed_query(query)
            embedding_model = get_embedder().name
        elif not embedding_model:
            raise RecallInputError(
                "query_embedding needs embedding_model (the name its vectors were made by)."
            )
        params["qvec"] = _vector_literal(query_embedding)
        params["embedding_model"] = embedding_model
    with_embedding = mmr_lambda is not None

    # A transaction for the SET LOCALs below; inside a caller's transaction no savepoint is needed (they
    # last until that transaction ends, harmlessly) and none is taken.
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        query_plan: dict[str, Any] = {}
        if "fts" in tiers or "trigram" in tiers:
            query_plan = _plan_lexical(
                cursor,
                query=query,
                where=where,
                params=params,
                config=config,
                # Taken before any memory is read (brain.memory_state): the statistics are at least this new.
                state=memory_state(tenant_id, scope_kind=scope_kind, scope_ids=scope_ids),
                stats_key=("lexical", where, _frozen(filter_params), int(config["BM25_SAMPLE"])),
            )
            if "fts" in tiers and not query_plan["match_lexemes"]:
                tiers.remove("fts")  # only stop words: nothing for full text to match
            if "trigram" in tiers and not query_plan["trigram_words"]:
                tiers.remove("trigram")  # every word was found as a word: nothing to correct
        in_memory = query_plan.pop("_in_memory", None)
        if not tiers:
            return {} if _scores_only else []
        if tiers == ["fts"] and in_memory is not None and config["LEXICAL_SCORING"] == "bm25":
            rows = _fts_in_memory(
                cursor,
                plan={**query_plan, "_in_memory": in_memory},
                where=where,
                params=params,
                pool=pool,
                with_embedding=with_embedding,
                details=not _scores_only,
            )
        else:
            sql = _build_sql(
                tiers=tiers,
                where=where,
                strategy=strategy,
                with_embedding=with_embedding,
                params=params,
                scoring=config["LEXICAL_SCORING"],
            )
            if "vector" in tiers and strategy == "hnsw":
                # Iterative scans keep walking the graph until enough rows pass the tenant/scope filters.
                cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                cursor.execute(
                    "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.max_scan_tuples', %s, true)",
                    [str(max(config["HNSW_EF_SEARCH"], pool)), str(config["HNSW_MAX_SCAN_TUPLES"])],
                )
            if "trigram" in tiers:
                cursor.execute(
                    "SELECT set_config('pg_trgm.word_similarity_threshold', %s, true),"
                    " set_config('pg_trgm.similarity_threshold', %s, true)",
                    [str(config["TRIGRAM_THRESHOLD"]), str(config["TRIGRAM_THRESHOLD"])],
                )
            cursor.execute(sql, params)
            rows = cursor.fetchall()

    k = config["RRF_K"]
    now = timezone.now()
    results: list[RecalledMemory] = []
    scores: list[tuple[float, int]] = []
    for row in rows:
        (mid, type_, key, text, payload, confidence, status, strength, category, scope_kind_, scope_id,
         provider, campaign_ids, tags, created_at, fts_rank, fts_score, trg_rank, trg_score, vec_rank,
         vec_score, embedding_text) = row  # fmt: skip
        found = None if _scores_only else {}  # the per-tier explanation, for full results only
        fused = 0.0
        for tier, rank, score in (
            ("fts", fts_rank, fts_score),
            ("trigram", trg_rank, trg_score),
            ("vector", vec_rank, vec_score),
        ):
            if rank is None:
                continue
            contribution = weights[tier] / (k + rank)
            fused += contribution
            if found is not None:
                found[tier] = {
                    "rank": int(rank),
                    "score": round(float(score), 6),
                    "rrf": round(contribution, 6),
                }
        final, confidence_feature, recency_feature = _final_score(
            fused, confidence, created_at, now=now, config=config
        )
        if _scores_only:
            scores.append((final, mid))
            continue
        results.append(
            RecalledMemory(
                id=mid,
                type=type_,
                key=key,
                text=text,
                payload=_json(payload),
                confidence=confidence,
                status=status,
                strength=strength,
                category=category,
                scope_kind=scope_kind_,
                scope_id=scope_id,
                provider=provider,
                campaign_ids=list(campaign_ids or []),
                tags=list(tags or []),
                created_at=created_at,
                score=final,
                explanation={
                    "mode": mode,
                    "tiers": found,
                    "fused_score": round(fused, 6),
                    "confidence_feature": round(confidence_feature, 4),
                    "recency_feature": round(recency_feature, 4),
                    "final_score": round(final, 6),
                    "mmr": None,
                    "rerank": None,
                    "vector_strategy": strategy if "vector" in found else None,
                    "query": query_plan,
                },
                embedding=_parse_vector(embedding_text),
            )
        )
    if _scores_only:
        return {mid: final for final, mid in sorted(scores, key=lambda item: (-item[0], item[1]))[:limit]}
    results.sort(key=lambda r: (-r.score, r.id))
    if expand_graph and results and weights.get("graph", 0) > 0:
        results = _expand_graph(
            results, tenant_id=int(tenant_id), where=where, params=params, limit=limit, config=config,
            statuses=_string_list("statuses", statuses), with_embedding=with_embedding,
        )  # fmt: skip
    if mmr_lambda is not None:
        results = _mmr(results, limit=limit if reranker is None else len(results), lam=float(mmr_lambda))
    if reranker is not None:
        results = reranker.rerank(query=query, memories=results)
        for position, memory in enumerate(results, start=1):
            memory.explanation["rerank"] = {
                "reranker": reranker.name,
                "rank": position,
                **(memory.explanation.get("rerank") or {}),
            }
    results = results[:limit]
    for position, memory in enumerate(results, start=1):
        memory.explanation["rank"] = position
    return results
