"""What makes two similar sentences two facts: the entities they name (pure functions, cached).

"The customer Alice Morgan prefers a phone call after five pm" and "... Brian Chen ..." share most of
their words and most of their meaning vector, yet a store that merges them has lost a customer. Every
duplicate check (the judge, the hard backstop, memory-append's recent notes) therefore asks
`facts_differ(a, b)` before it merges: two texts whose entities differ are different facts.

An entity here is what a paraphrase keeps and a different fact changes:
- e-mail addresses, web addresses and domains, phone-like and other numbers (digits or number words),
  codes that mix letters and digits (SKU-12, X200);
- capitalised words inside a sentence (names, places, companies, products, weekdays, months);
- a capitalised word that starts a sentence (or follows a label's colon) and is not a common word is
  possibly a name (see `facts_differ`). A named-entity recogniser (spaCy's small pipeline) was tried
  for these: it loads slowly in every process, costs time on every text, and decided no pair of the
  labelled corpus (brain/formation/corpora/entity_pairs.jsonl) differently.

Comparison is on case-folded, accent-folded forms, so "BERLIN" and "Berlin" are one entity. When in
doubt the rule keeps two facts apart: a fact kept twice costs a near duplicate, a fact merged is lost.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..caches import memoize
from .text import _STOPWORDS, polarity_conflict

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)
_URL = re.compile(r"\b(?:https?://)?(?:[\w-]+\.)+(?:[a-z]{2,24})(?:/[^\s]*)?\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
# Letters then digits in one word: SKU-12, X200, iPhone15 (not "5pm" or "30-day", which are numbers).
_CODE = re.compile(r"\b[^\W\d_][\w]*(?:-?[\w]*)*\d[\w-]*\b", re.UNICODE)
_TOKEN = re.compile(r"[^\W\d_][\w'’.-]*[^\W_]|[^\W\d_]", re.UNICODE)
# Where a sentence (or a label such as "Note:") starts, a capital letter says nothing about a name.
_STARTS = re.compile(r"(?:^\s*|[.!?:;]\s+|\n\s*|[\"“(]\s*)$")
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
    thousand million first second third fourth fifth sixth seventh eighth ninth tenth half quarter
    double twice once""".split()
)
# Capitalised at a sentence's start these are never names.
_NEVER_NAMES = _STOPWORDS | frozenset(
    """i please note fyi reminder hi hello dear thanks thank yes ok okay customer customers client clients
    user users agent agents order orders refund refunds always never""".split()
)


def _fold(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in folded if not unicodedata.combining(ch)).casefold()


@dataclass(frozen=True)
class Entities:
    """What a text names: `plain` needs no letter case (addresses, numbers, codes), `named` does (names)."""

    plain: frozenset[str]
    named: frozenset[str]
    # Capitalised perhaps only because a sentence starts there: maybe a name.
    initial: frozenset[str]
    words: frozenset[str]  # every folded word, to find a name in a text written without letter case
    cased: bool  # False for a text in one case only (all lower or all upper): its capitals say nothing

    @property
    def all(self) -> frozenset[str]:
        return self.plain | self.named | self.initial


@memoize("formation-entities", maxsize=8192, keyed_on="a text (pure: a text's entities never change)")
def entities(text: str) -> Entities:
    """The entities `text` names, folded (see the module docstring for what counts)."""
    text = text or ""
    plain: set[str] = set()
    masked = text
    for pattern in (_EMAIL, _URL):
        for match in pattern.finditer(masked):
            plain.add(_fold(match.group(0)).rstrip("/."))
        masked = pattern.sub(" ", masked)
    plain.update(_fold(m.group(0)) for m in _CODE.finditer(masked))
    plain.update(m.group(0).replace(",", "") for m in _NUMBER.finditer(masked))
    letters = [ch for ch in masked if ch.isalpha()]
    cased = any(ch.isupper() for ch in letters) and any(ch.islower() for ch in letters)
    named: set[str] = set()
    initial: set[str] = set()
    words: set[str] = set()
    for match in _TOKEN.finditer(masked):
        word = match.group(0).rstrip(".")
        folded = _fold(word)
        words.add(folded)
        if folded in _NUMBER_WORDS:
            plain.add(folded)
        elif cased and folded not in _NEVER_NAMES and any(ch.isupper() for ch in word):
            at_start = bool(_STARTS.search(masked[: match.start()]))
            if not at_start:
                named.add(folded)
            else:
                initial.add(folded)
    return Entities(frozenset(plain), frozenset(named), frozenset(initial), frozenset(words), cased)


def facts_differ(a: str, b: str) -> bool:
    """True when `a` and `b` name different entities, or one negates what the other states: they may read
    alike, but they are two facts.

    A name in one text must be a name (or a sentence's first word) in the other; two texts that each
    start with a capitalised word the other lacks ("Globex gets ..." / "Northwind gets ...") differ. A
    text written in one letter case ("ESCALATE TO CARLA DIAZ") cannot say which of its words are names;
    it differs from a cased text when it lacks one of that text's names.
    """
    if polarity_conflict(a, b):  # "We do not ship to Canada." is not "We ship to Canada." said again
        return True
    ea, eb = entities(a), entities(b)
    if ea.plain != eb.plain:
        return True
    if ea.cased and eb.cased:
        if ea.named - eb.named - eb.initial or eb.named - ea.named - ea.initial:
            return True
        return bool(ea.initial - eb.words) and bool(eb.initial - ea.words)
    if ea.cased:
        return not (ea.named | ea.initial) <= eb.words
    if eb.cased:
        return not (eb.named | eb.initial) <= ea.words
    return False
