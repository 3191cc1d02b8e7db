"""Text normalisation shared by the gate, the judge and the duplicate backstop (pure functions)."""

from __future__ import annotations

import re
import unicodedata

from ..caches import memoize

_STOPWORDS = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been being it its this
    that these those there here we our ours us you your yours they their them he she his her i me my mine
    do does did done so than then too very can could should would will shall may might must not no all any
    each every some such own same just also only into onto over under about after before again always
    never when while where which who whom what why how both more most other
    please note fyi reminder remember""".split()  # the last line: fillers that restate, not content
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# A sentence ends at ". ", "! ", "? ", a line break, or the full stops of Chinese and Japanese ("。", "！", "？"),
# which no space follows.
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n+")


@memoize("formation-normalised-texts", maxsize=8192, keyed_on="a text (a pure function of it)")
def normalise(text: str) -> str:
    """Lower-cased, accents folded, punctuation dropped, whitespace collapsed: the duplicate key of a text."""
    folded = unicodedata.normalize("NFKD", text or "")
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).lower()
    return " ".join(_WORD.findall(folded))


def _stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_tokens(text: str) -> list[str]:
    """The text's content words, stop words removed, crudely stemmed (order kept, duplicates kept)."""
    return [_stem(w) for w in normalise(text).split() if w not in _STOPWORDS]


@memoize("formation-token-sets", maxsize=8192, keyed_on="a text (a pure function of it)")
def _token_set(text: str) -> frozenset[str]:
    """The judge compares each candidate with the scope's same few rows again and again."""
    return frozenset(content_tokens(text))


def token_jaccard(a: str, b: str) -> float:
    ta, tb = _token_set(a), _token_set(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def numbers(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\d+(?:[.,]\d+)?", text or ""))


def numbers_conflict(a: str, b: str) -> bool:
    """Both texts state numbers and they differ: "opens at 9" vs "opens at 10" is an update, not a duplicate."""
    na, nb = numbers(a), numbers(b)
    return bool(na) and bool(nb) and na != nb


# A statement's negation, in English and the spaced languages the grant vocabulary reads: "We do not ship to
# Canada." says the opposite of "We ship to Canada." (scripts without spaces are not read: their negations are
# parts of words, 不同 is "different").
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|neither|nor|cannot|no\s+longer|\w+n't|nicht|kein\w*|nie|niemals|nunca|"
    r"jam[aá]is|pas|non|mai|n[ãa]o|niet|geen|nooit|nigdy|не|нет|никогда)\b",
    re.IGNORECASE,
)


def negated(text: str) -> bool:
    """Whether `text` states a negation: an odd number of negation words ("no longer", "doesn't", "nicht")."""
    return len(_NEGATION.findall(text or "")) % 2 == 1


def polarity_conflict(a: str, b: str) -> bool:
    """One text negates what the other states: "We do not ship to Canada." / "We ship to Canada."."""
    return negated(a) != negated(b)


# Scripts written without spaces between words: Han, Hiragana and Katakana, Thai, Lao, Myanmar, Khmer.
_UNSPACED = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]"
)
_ANY_WORD = re.compile(r"[^\W_]+")


def word_count(text: str) -> int:
    """The words of `text`: its runs of letters and digits, and in a script written without spaces (Chinese,
    Japanese, Thai ...) one word for every two of its characters ("三十天内可以退货" counts 4, not 1)."""
    unspaced = len(_UNSPACED.findall(text))
    return len(_ANY_WORD.findall(_UNSPACED.sub(" ", text))) + (unspaced + 1) // 2


def length_units(text: str) -> int:
    """The length of `text` where a character of a script written without spaces counts twice: it carries
    about what two letters do ("使用说明在包装盒里。" is no shorter a statement than "Manual in the box.")."""
    return len(text) + len(_UNSPACED.findall(text))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s.strip()]
