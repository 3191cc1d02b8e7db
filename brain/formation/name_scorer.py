"""How much a word in no list looks like a personal name: a character n-gram scorer (naive Bayes, pure
Python, deterministic) trained where it is built on pii_model.Lexicon's own lists — Faker's first names and
surnames of all its locales against the pipeline's English words. Nothing is shipped or downloaded: a
Lexicon with other lists (a benchmark holding names out) gets a scorer trained on those.

It is one signal among the word-list rules of personal_names.py, asked only about a word that is in no
list and stands where a name could (a capitalised pair at a sentence's start, a lower-cased word beside a
first name or after a word that announces one): on its own, with a fifth of each list held out of its
training, it calls 72% of the held-out names and 7.8% of the held-out English words name-like — too weak to
find names by itself. Built on first use in a worker: 0.7 s CPU, some 73,000 n-grams."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

ORDERS = (2, 3, 4)
# Above this mean log-likelihood ratio a word is name-like (0.0 and 0.6 tried on the train and dev splits and
# on names held out of the lists, public_pii_stress.py: no difference on support text, one name of 408 more or
# three fewer).
THRESHOLD = 0.3
_SMOOTHING = 0.5
_LETTERS = re.compile(r"[a-z]{3,}")


def _grams(word: str) -> Iterable[str]:
    padded = f"^{word}$"
    for n in ORDERS:
        for i in range(len(padded) - n + 1):
            yield padded[i : i + n]


class NameScorer:
    """`score(folded_word)`: the mean log-likelihood ratio, names against English words, of its n-grams."""

    def __init__(self, names: Iterable[str], others: Iterable[str]) -> None:
        in_names = Counter(g for word in names for g in _grams(word))
        in_others = Counter(g for word in others for g in _grams(word))
        size = len(in_names.keys() | in_others.keys())
        n_total = sum(in_names.values()) + _SMOOTHING * size
        o_total = sum(in_others.values()) + _SMOOTHING * size
        self._unseen = math.log(_SMOOTHING / n_total) - math.log(_SMOOTHING / o_total)
        self._ratio = {
            g: math.log((in_names[g] + _SMOOTHING) / n_total)
            - math.log((in_others[g] + _SMOOTHING) / o_total)
            for g in in_names.keys() | in_others.keys()
        }

    @classmethod
    def from_lists(cls, first: Iterable[str], last: Iterable[str], english: Iterable[str]) -> NameScorer:
        names = {w for w in (*first, *last) if _LETTERS.fullmatch(w)}
        others = {w for w in english if _LETTERS.fullmatch(w) and w not in names}
        return cls(sorted(names - set(english)), sorted(others))

    def score(self, folded: str) -> float:
        grams = list(_grams(folded))
        return sum(self._ratio.get(g, self._unseen) for g in grams) / len(grams)

    def name_like(self, folded: str) -> bool:
        return self.score(folded) > THRESHOLD
