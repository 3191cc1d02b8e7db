"""The engine's values: settings, the errors callers fix, what a backend returns, what recall returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np
from django.conf import settings

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

DEFAULTS: dict[str, Any] = {
    # Reciprocal rank fusion: score = sum(weight[tier] / (RRF_K + rank)). k=10 and vector 0.7 measured best on
    # LoCoMo (brain_bench locomo; k=60 and equal weights gave less Recall@10: the README's LoCoMo section).
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
    # Candidates the HNSW walk keeps (pgvector allows up to 1000). A query far from every stored row, or
    # between two clusters of rows, needs many more than a near-copy of a row to find its true neighbours:
    # `brain_bench scale` measures recall against the exact scan per kind of query and the cost of each
    # value (`--ef-search-sweep`); see the README's Scale section.
    "HNSW_EF_SEARCH": 800,
    # ... for a tenant graph of this many rows; a graph of n rows keeps HNSW_EF_SEARCH * sqrt(n / this)
    # (brain.search.graphs.walk_size: 253 at 10k rows, 1,000 from 156k rows on).
    "HNSW_EF_SEARCH_ROWS": 100_000,
    "HNSW_MAX_SCAN_TUPLES": 40000,
    # A tenant with at least this many embedded rows gets an HNSW graph of its own (brain.search.graphs,
    # built by `manage.py memory_graphs` and the hourly beat task); below it, the exact scan of its rows.
    "TENANT_GRAPH_MIN_ROWS": 2000,
    # Full-text scoring: "bm25" (IDF in the tenant's filtered rows, length-damped) or "ts_rank_cd".
    "LEXICAL_SCORING": "bm25",
    "BM25_K1": 1.2,
    "BM25_B": 0.75,
    # Row counts behind the IDF stop at this many (bounded work on a large tenant): 5000 / 2000 made hybrid
    # recall on a 100k-row tenant markedly slower than 1000 / 500 (brain_bench scale A/B, in the README).
    "BM25_SAMPLE": 1000,
    # A lexeme in at least this many rows scores but does not pull rows into the full-text tier.
    "COMMON_ROWS": 500,
    # When every query lexeme is common (all are then ANDed), full text scores at most this many matches.
    "AND_MATCH_LIMIT": 2000,
    # The trigram tier looks up at most this many query words, and only words of 4+ letters that full
    # text found in no row (typos, partial words): word_similarity is the costliest call in recall.
    "TRIGRAM_MAX_WORDS": 4,
    "TRIGRAM_THRESHOLD": 0.5,
    # In a scope of fewer than BM25_SAMPLE rows, a typo word goes to the trigram tier only when some word of
    # the rows resembles it, and the tier looks only at the rows holding such a word (brain.search.vocabulary;
    # measured in the README's LoCoMo section). False: every candidate word, over every row.
    "TRIGRAM_VOCABULARY": True,
    # The in-memory backend (brain.search.backends.memory) may serve the plans it can; False: PostgreSQL
    # serves every plan (the speed-up switched off; results are the same).
    "IN_MEMORY": True,
}


def recall_settings() -> dict[str, Any]:
    configured = getattr(settings, "BRAIN_RECALL", {}) or {}
    merged = {**DEFAULTS, **configured}
    merged["WEIGHTS"] = {**DEFAULTS["WEIGHTS"], **configured.get("WEIGHTS", {})}
    return merged


class RecallInputError(ValueError):
    """A recall argument a caller must fix; the message says what to change."""


# The memory columns a result carries, in the order every statement that returns memories selects them.
MEMORY_COLUMNS = (
    "type", "key", "text", "payload", "status", "strength", "category", "scope_kind", "scope_id", "provider",
    "campaign_ids", "tags",
)  # fmt: skip


class Hit(NamedTuple):
    """One memory a backend found: what ranking needs (the id, confidence, creation time and, per tier that
    found it, its rank and score), then, when the caller asked for details, the memory's columns
    (MEMORY_COLUMNS) and its embedding in pgvector's binary form (for MMR). A named tuple: hundreds per
    call, built from database rows in the order `HIT_SELECT` names them."""

    id: int
    confidence: float | None
    created_at: datetime
    fts_rank: int | None = None
    fts_score: float | None = None
    trigram_rank: int | None = None
    trigram_score: float | None = None
    vector_rank: int | None = None
    vector_score: float | None = None
    type: str | None = None
    key: str | None = None
    text: str | None = None
    payload: Any = None
    status: str | None = None
    strength: str | None = None
    category: str | None = None
    scope_kind: str | None = None
    scope_id: str | None = None
    provider: str | None = None
    campaign_ids: list[str] | None = None
    tags: list[str] | None = None
    embedding: bytes | None = None  # pgvector's binary form (`vector_send`)


@dataclass(frozen=True)
class SearchResult:
    """What a backend returns for a recall plan: its hits, and how it served the vector tier (for the
    explanation: "hnsw", or "exact" when the exact scan served it). `plan`: the plan executed, as planned
    in full (its lexical part, its tiers), set by the engine."""

    hits: list[Hit]
    vector_strategy: str | None = None
    plan: Any = None


assert Hit._fields[9:21] == MEMORY_COLUMNS


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


RecallScores = dict[int, float]  # {memory id: final score}, best first (recall_scores)
