"""The trigram tier decided and scored by the scope's vocabulary: which typo words it looks up, which rows
it finds, and their scores, without a statement.

A query word that full text found in no row goes to the trigram tier (a typo, a partial word). On LoCoMo
many questions hold such a word, mostly one the conversation simply never uses ("vivaldi",
"participated"); pg_trgm then computed `word_similarity` for the word against every row of the scope, the
costliest step of such a question, to find nothing (or a row matched across two words: "four" in "for
our"). The README's LoCoMo section has the measurements.

With the vocabulary (each distinct word of the filtered rows' text and key, lower-cased, as pg_trgm splits
words, and the rows holding it), the planner asks first whether any word of the rows is similar enough to
the query word: the share of the query word's trigrams it holds reaches TRIGRAM_THRESHOLD, pg_trgm's own
bound for one word against another. A query word with no such word is dropped from the tier (nothing would
match it). For the others the tier is scored here: each similar word's `word_similarity` to the query word,
computed as pg_trgm computes it for one word (brain.search.scoring.word_similarity, tested equal to
pg_trgm's to the last bit), a row's best per query word, the query words' mean (scoring.mean_similarity).
pg_trgm over the row's whole text gives the same score unless its best match runs across two words of the
row; that match, and only that, is what the vocabulary loses. Leaving the tier to PostgreSQL over the rows
holding a similar word still cost a large share of the search (`word_similarity` along each long row).

Only for scopes whose rows the planner's statistics hold (fewer than BM25_SAMPLE rows); a larger scope keeps
the tier in PostgreSQL, over every row. `BRAIN_RECALL["TRIGRAM_VOCABULARY"] = False` switches it off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from brain.caches import StateCache

from .scoring import mean_similarity, word_similarity, word_trigrams
from .sql import where

if TYPE_CHECKING:
    from .filters import Filters

# pg_trgm's words: runs of alphanumeric characters (the underscore separates words).
_TRGM_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Vocabulary:
    """The filtered rows' distinct words: per word the ids of the rows holding it, per trigram the words,
    per row its words."""

    rows_of: dict[str, tuple[int, ...]]
    words_of: dict[str, tuple[str, ...]]
    words_in: dict[int, tuple[str, ...]]
    trigrams_of: dict[str, frozenset[str]]  # per word its trigrams (`word_trigrams`), computed once

    def similar_words(self, word: str, threshold: float) -> list[str]:
        """The vocabulary's words holding at least `threshold` of `word`'s trigrams (pg_trgm's similarity
        of the two can reach the threshold only then)."""
        trigrams = word_trigrams(word)
        shared: dict[str, int] = {}
        for trigram in trigrams:
            for other in self.words_of.get(trigram, ()):
                shared[other] = shared.get(other, 0) + 1
        needed = threshold * len(trigrams)
        return sorted(other for other, count in shared.items() if count >= needed)

    def best_similarities(self, word: str, threshold: float) -> dict[int, np.float32]:
        """{row id: the best `word_similarity` of `word` to a word of the row}, for the rows holding a word
        similar to it (`similar_words`)."""
        trigrams = word_trigrams(word)
        best: dict[int, np.float32] = {}
        for other in self.similar_words(word, threshold):
            similarity = word_similarity(trigrams, other)
            for memory_id in self.rows_of[other]:
                if similarity > best.get(memory_id, -1.0):
                    best[memory_id] = similarity
        return best

    def best_in_row(
        self, trigrams: frozenset[str], memory_id: int, memo: dict[str, np.float32]
    ) -> np.float32:
        """The best `word_similarity` of the query word of `trigrams` to a word of the row, however low
        (0: the row shares none of its trigrams); `memo` holds the word's similarities computed so far."""
        best = np.float32(0)
        for other in self.words_in[memory_id]:
            similarity = memo.get(other)
            if similarity is None:
                similarity = memo[other] = (
                    word_similarity(trigrams, other)
                    if not trigrams.isdisjoint(self.trigrams_of[other])
                    else np.float32(0)
                )
            best = max(best, similarity)
        return best


VOCABULARIES = StateCache(
    "search-trigram-vocabulary",
    size=64,
    keyed_on="the filters (SQL and parameters) and the memory state of the searched scopes",
)


def _read_vocabulary(cursor, filters: Filters) -> Vocabulary:
    condition, params = where(filters)
    cursor.execute(f"SELECT m.id, lower(m.text), lower(m.key) FROM brain_memory m WHERE {condition}", params)
    rows_of: dict[str, list[int]] = {}
    words_in: dict[int, tuple[str, ...]] = {}
    for memory_id, text, key in cursor.fetchall():
        words_in[memory_id] = tuple(set(_TRGM_WORD.findall(f"{text} {key}")))
        for word in words_in[memory_id]:
            rows_of.setdefault(word, []).append(memory_id)
    words_of: dict[str, list[str]] = {}
    trigrams_of = {word: word_trigrams(word) for word in rows_of}
    for word, trigrams in trigrams_of.items():
        for trigram in trigrams:
            words_of.setdefault(trigram, []).append(word)
    return Vocabulary(
        rows_of={word: tuple(ids) for word, ids in rows_of.items()},
        words_of={trigram: tuple(words) for trigram, words in words_of.items()},
        words_in=words_in,
        trigrams_of=trigrams_of,
    )


@dataclass(frozen=True)
class TrigramTier:
    """The trigram tier as the vocabulary decided and scored it."""

    words: list[str]  # the typo words some word of the rows resembles
    ids: list[int]  # the rows holding such a word, ascending
    scored: list[tuple[float, int]]  # the rows found as (score, id), by score then id


def trigram_tier(cursor, *, words: list[str], filters: Filters, state: str, threshold: float) -> TrigramTier:
    """The typo words some word of the rows resembles, the rows holding such a word, and the tier's rows.

    A row is found when one kept word's best similarity to a word of the row reaches `threshold`; its score
    is its best similarity per kept word (however low), averaged over the kept words (float4 sums, as
    pg_trgm's reals add, then the mean in float8, as PostgreSQL divides them). Reads the vocabulary once
    per memory state (cached); the caller has checked the scope is small.
    """
    if not words:
        return TrigramTier([], [], [])
    vocabulary = VOCABULARIES.get(("vocabulary", filters), state, lambda: _read_vocabulary(cursor, filters))
    kept, per_word = [], []
    for word in words:
        best = vocabulary.best_similarities(word, threshold)
        if best:
            kept.append(word)
            per_word.append(best)
    ids = sorted({memory_id for best in per_word for memory_id in best})
    memos: list[dict[str, np.float32]] = [{} for _ in kept]
    trigrams = [word_trigrams(word) for word in kept]
    scored = []
    for memory_id in ids:
        similarities = [
            best[memory_id] if memory_id in best else vocabulary.best_in_row(word, memory_id, memo)
            for best, word, memo in zip(per_word, trigrams, memos, strict=True)
        ]
        if float(max(similarities)) < threshold:
            continue
        scored.append((mean_similarity(similarities), memory_id))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return TrigramTier(kept, ids, scored)
