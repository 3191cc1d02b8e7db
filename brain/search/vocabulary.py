"""The trigram tier decided by the scope's vocabulary: which typo words go to pg_trgm, and over which rows.

A query word that full text found in no row goes to the trigram tier (a typo, a partial word). On LoCoMo a
fifth of the questions hold such a word, mostly one the conversation simply never uses ("vivaldi",
"participated"); pg_trgm then computed `word_similarity` for the word against every row of the scope, 40-200
ms a question on a 600-row conversation, to find nothing (or a row matched across two words: "four" in
"for our").

With the vocabulary (each distinct word of the filtered rows' text and key, lower-cased, as pg_trgm splits
words, and the rows holding it), the planner asks first whether any word of the rows is similar enough to
the query word: the share of the query word's trigrams it holds reaches TRIGRAM_THRESHOLD, pg_trgm's own
measure of one word against another. A query word with no such word is dropped from the tier (nothing would
match it); for the others the tier is computed by PostgreSQL as before, with the same scores, but only over
the rows holding a similar word (`trigram_ids`), a few rows instead of every row. What this loses is what
pg_trgm matches across word boundaries only.

Only for scopes whose rows the planner's statistics hold (fewer than BM25_SAMPLE rows); a larger scope keeps
the tier as it was. `BRAIN_RECALL["TRIGRAM_VOCABULARY"] = False` switches it off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brain.caches import StateCache

if TYPE_CHECKING:
    from .plan import Filters

# pg_trgm's words: runs of alphanumeric characters (the underscore separates words).
_TRGM_WORD = re.compile(r"[^\W_]+")


def word_trigrams(word: str) -> frozenset[str]:
    """pg_trgm's trigrams of one lower-case word: padded with two spaces before and one after."""
    padded = f"  {word} "
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


@dataclass(frozen=True)
class Vocabulary:
    """The filtered rows' distinct words: per word the ids of the rows holding it, per trigram the words."""

    rows_of: dict[str, tuple[int, ...]]
    words_of: dict[str, tuple[str, ...]]

    def similar_words(self, word: str, threshold: float) -> list[str]:
        """The vocabulary's words holding at least `threshold` of `word`'s trigrams."""
        trigrams = word_trigrams(word)
        shared: dict[str, int] = {}
        for trigram in trigrams:
            for other in self.words_of.get(trigram, ()):
                shared[other] = shared.get(other, 0) + 1
        needed = threshold * len(trigrams)
        return sorted(other for other, count in shared.items() if count >= needed)


VOCABULARIES = StateCache(
    "search-trigram-vocabulary",
    size=64,
    keyed_on="the filters (SQL and parameters) and the memory state of the searched scopes",
)


def _read_vocabulary(cursor, filters: Filters) -> Vocabulary:
    cursor.execute(
        f"SELECT m.id, lower(m.text), lower(m.key) FROM brain_memory m WHERE {filters.where}", filters.params
    )
    rows_of: dict[str, list[int]] = {}
    for memory_id, text, key in cursor.fetchall():
        for word in set(_TRGM_WORD.findall(f"{text} {key}")):
            rows_of.setdefault(word, []).append(memory_id)
    words_of: dict[str, list[str]] = {}
    for word in rows_of:
        for trigram in word_trigrams(word):
            words_of.setdefault(trigram, []).append(word)
    return Vocabulary(
        rows_of={word: tuple(ids) for word, ids in rows_of.items()},
        words_of={trigram: tuple(words) for trigram, words in words_of.items()},
    )


def trigram_decision(
    cursor, *, words: list[str], filters: Filters, state: str, threshold: float
) -> tuple[list[str], list[int]]:
    """The typo words that some word of the rows resembles, and the ids of the rows holding such a word.

    Reads the vocabulary once per memory state (cached); the caller has checked the scope is small.
    """
    if not words:
        return [], []
    vocabulary = VOCABULARIES.get(
        ("vocabulary", *filters.key), state, lambda: _read_vocabulary(cursor, filters)
    )
    kept, ids = [], set()
    for word in words:
        similar = vocabulary.similar_words(word, threshold)
        if similar:
            kept.append(word)
            for other in similar:
                ids.update(vocabulary.rows_of[other])
    return kept, sorted(ids)
