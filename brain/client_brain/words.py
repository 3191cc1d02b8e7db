"""Words for Client Brain matching: normalized Unicode words or numbers of at least three characters.

Normalization is NFKC then casefold, so "Ｒｅｆｕｎｄ", "REFUND" and "refund" are one word, and words are
`\\w+` runs (letters or digits in any script). Very common words are ignored: they would make almost
every memory "overlap" with every ticket.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Collection

MIN_WORD_LENGTH = 3
# Bounds the keyword tier's query: a long customer message cannot turn it into a huge alternation.
MAX_QUERY_WORDS = 24

_WORD = re.compile(r"\w+")

STOPWORDS = frozenset(
    """
    the and for you your yours are was were with this that these those have has had not but can cannot
    our ours from they them their theirs there here what when where which who whom whose why how will would
    could should shall may might must just about all any been being did does doing done into its it's
    more most much also than then too very out over own same she her hers his him himself herself itself
    yes get got please thanks thank hello dear regards some such only other off once each few both
    between after before again further because while until myself yourself ourselves themselves
    one two via per let lets now new use used using want wants need needs know like make made
    i'm i've i'll don't can't won't isn't aren't didn't doesn't
    """.split()
)


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").casefold()


def words(*texts: str) -> list[str]:
    """Distinct normalized words of at least three characters, stopwords removed, in first-seen order."""
    seen: dict[str, None] = {}
    for text in texts:
        for word in _WORD.findall(normalize(text)):
            if len(word) >= MIN_WORD_LENGTH and word not in STOPWORDS:
                seen.setdefault(word, None)
    return list(seen)


def shared_words(wanted: frozenset[str] | set[str], *texts: str) -> tuple[str, ...]:
    """The words of `wanted` (already normalized, filtered query words) that occur in `texts`, sorted.

    The length and stopword rules need not run on the memory side: `wanted` only holds words that pass them.
    """
    return shared_in(wanted, word_set(*texts)) if wanted else ()


def word_set(*texts: str) -> frozenset[str]:
    """Every normalized word of `texts` (no length or stopword rule): what `shared_in` compares against,
    for callers that keep it between calls."""
    return frozenset(_WORD.findall(normalize(" ".join(texts))))


def kept_words(*texts: str) -> tuple[str, ...]:
    """`word_set` for a caller that keeps thousands of texts' words: a tuple of interned strings (a word
    shared by many texts is held once, and a tuple is a fraction of a set's size)."""
    return tuple(map(sys.intern, word_set(*texts)))


def shared_in(wanted: frozenset[str] | set[str], text_words: Collection[str]) -> tuple[str, ...]:
    """`shared_words` against a text's `word_set` or `kept_words`."""
    if not wanted or wanted.isdisjoint(text_words):  # most rows share nothing: no set, no sort for them
        return ()
    return tuple(sorted(wanted.intersection(text_words)))


def keyword_terms(*texts: str) -> list[str]:
    """The words the keyword tier searches for, at most MAX_QUERY_WORDS (plus lowercase spellings).

    The database compares lowercase while the words are casefolded, which may expand ("Straße" ->
    "strasse"): the lowercase spelling is searched too. Terms are `\\w+` runs, so they hold no regular
    expression metacharacters.
    """
    terms: dict[str, None] = {}
    for word in words(*texts)[:MAX_QUERY_WORDS]:
        terms.setdefault(word, None)
    for text in texts:
        for word in _WORD.findall(unicodedata.normalize("NFKC", text or "").lower()):
            if word.casefold() in terms:
                terms.setdefault(word, None)
    return list(terms)
