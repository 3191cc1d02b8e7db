"""Every score of the retrieval engine, defined once: the tiers' scores, their ranks, and the fused score.

Backends generate candidates (brain.search.backends: PostgreSQL through its indexes, the in-memory backend
from the scope's cached statistics, vectors and vocabulary) with what scoring needs of each (a row's length
and the scored lexemes it holds; its vector; its best trigram similarity per query word), and every backend
scores them here. So a scoring constant (BRAIN_RECALL's BM25_K1, BM25_B, RRF_K, the features' weights) is
read in one place, and both backends give the same scores on the same candidates.

- `Bm25`: full text, BM25 over lexeme presence (a memory is short; repeats matter little): each held
  lexeme adds its IDF (in the filtered rows), damped by the memory's length.
- `cosine_similarities`: the vector tier, cosine similarity to the query vector.
- `word_similarity` and `mean_similarity`: the trigram tier. A row's score is, per typo word of the query,
  its best pg_trgm `word_similarity` to the row, averaged over the words. The per-word similarity is
  pg_trgm's: PostgreSQL's own function where PostgreSQL searches every row of a scope, and this port of it
  (bit for bit, tested against pg_trgm) where the scope's vocabulary serves the tier without a statement.
- `tier_ranks`: a tier's rows ranked as SQL's rank() ranks them (ties share the first rank of them).
- `rrf` and `final_score`: the fused score, weighted reciprocal rank fusion plus the confidence and recency
  features (brain.search.fuse builds results and explanations from them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

# --- Full text ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bm25:
    """BM25 over lexeme presence, for one query over one scope: `idf` per scored lexeme, the scope's mean
    length (`avg_len`, in lexemes), and BRAIN_RECALL's `k1` and `b`."""

    idf: Mapping[str, float]
    avg_len: float
    k1: float
    b: float

    def total(self, held: Iterable[str]) -> float:
        """The IDFs of the lexemes a row holds, summed in the order given (callers give the scored lexemes'
        sorted order, so every backend adds the same floats in the same order)."""
        total = 0.0
        for lexeme in held:
            total += self.idf[lexeme]
        return total

    def score(self, total: float, length: int) -> float:
        """A row's score from its lexemes' summed IDF (`total`) and its length in lexemes."""
        k1, b = self.k1, self.b
        return total * (k1 + 1) / (1 + k1 * (1 - b + b * length / self.avg_len))

    @property
    def shorter_is_better(self) -> bool:
        """Whether, among rows holding the same lexemes, a shorter row scores higher (k1 > 0 and b > 0);
        otherwise they tie. A candidate generator may keep, per set of held lexemes, only the best `pool`
        rows by (length, id), or by id when they tie, and lose nothing of the best `pool` overall."""
        return self.k1 > 0 and self.b > 0


# --- Vectors -----------------------------------------------------------------------------------------------


def vector_norms(matrix: np.ndarray) -> np.ndarray:
    """The rows' norms (float64), for `cosine_similarities`."""
    return np.linalg.norm(matrix.astype(np.float64), axis=1)


def cosine_similarities(matrix: np.ndarray, norms: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's cosine similarity to `query` (float32 vectors, as pgvector stores them): the dot product
    over the norms' product, clamped to [-1, 1]; a zero vector scores -1 (as pgvector's NaN distance
    sorts last)."""
    similarity = (matrix @ query).astype(np.float64) / (
        norms * float(np.linalg.norm(query.astype(np.float64)))
    )
    return np.clip(np.nan_to_num(similarity, nan=-1.0), -1.0, 1.0)


# --- Trigrams (pg_trgm's word similarity) ------------------------------------------------------------------


def ordered_trigrams(word: str) -> list[str]:
    """pg_trgm's trigrams of one lower-case word in order (repeats kept): padded with two spaces before and
    one after."""
    padded = f"  {word} "
    return [padded[i : i + 3] for i in range(len(padded) - 2)]


def word_trigrams(word: str) -> frozenset[str]:
    """pg_trgm's set of trigrams of one lower-case word."""
    return frozenset(ordered_trigrams(word))


def word_similarity(query: frozenset[str], word: str) -> np.float32:
    """pg_trgm's `word_similarity(q, word)` for a query word's trigram set `query` and one word: the best
    similarity (shared over united unique trigrams) between `query` and a contiguous run of the word's
    trigrams, found as pg_trgm finds it (`iterate_word_similarity` in trgm_op.c, its non-strict form: each
    run ends on a shared trigram and its start is moved right while that helps), in float4."""
    trigrams = ordered_trigrams(word)
    found = [trigram in query for trigram in trigrams]
    size = len(query)
    last: dict[str, int] = {}  # a trigram's last position in the run (-1: not in it)
    lower = count = unique = 0
    started = False
    best = np.float32(0)
    for i, trigram in enumerate(trigrams):
        if started or found[i]:
            if last.get(trigram, -1) < 0:
                unique += 1
                count += found[i]
            last[trigram] = i
        if not found[i]:
            continue
        if not started:
            started, lower, unique = True, i, 1
        current = np.float32(count) / np.float32(size + unique - count)
        run_count, run_unique, first = count, unique, lower
        for start in range(lower, i + 1):
            tried = np.float32(run_count) / np.float32(size + run_unique - run_count)
            if tried > current:
                current, unique, lower, count = tried, run_unique, start, run_count
            if last[trigrams[start]] == start:
                run_unique -= 1
                run_count -= found[start]
        best = max(best, current)
        for start in range(first, lower):
            if last[trigrams[start]] == start:
                last[trigrams[start]] = -1
    return best


def mean_similarity(bests: Sequence[float]) -> float:
    """The trigram tier's score of a row: its best similarity per query word (float4, as pg_trgm returns
    it), summed in float4 as PostgreSQL adds reals, then the mean in float8."""
    total = np.float32(bests[0])
    for similarity in bests[1:]:
        total = np.float32(total + np.float32(similarity))
    return float(total) / len(bests)


# --- Ranks and fusion ---------------------------------------------------------------------------------------


def tier_ranks(scored: Iterable[tuple[float, int]], pool: int) -> dict[int, tuple[int, float]]:
    """A tier's best `pool` rows of (score, id) as {id: (rank, score)}, best first (ties by id), ranked as
    SQL's rank() ranks them: ties share the rank of the first of them."""
    ranks: dict[int, tuple[int, float]] = {}
    previous_score, previous_rank = None, 0
    ordered = sorted(scored, key=lambda item: (-item[0], item[1]))[:pool]
    for position, (score, memory_id) in enumerate(ordered, start=1):
        rank = previous_rank if score == previous_score else position
        ranks[memory_id] = (rank, score)
        previous_score, previous_rank = score, rank
    return ranks


def rrf(weight: float, k: float, rank: int) -> float:
    """A tier's contribution to the fused score: weighted reciprocal rank fusion."""
    return weight / (k + rank)


def final_score(fused: float, confidence, created_at, *, now, config: dict) -> tuple[float, float, float]:
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
