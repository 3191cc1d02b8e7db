"""`FeatureReranker`: a reranker without a model, behind the `BRAIN_RERANKER` hook (issue 18).

It reorders the fused candidates (all of them, before MMR and the cut to `limit`) by their fused score
scaled to [0, 1] by the best candidate, plus weighted features, each in [0, 1], that read only the candidates' text
and payload (no statement, no model):

- `NEIGHBOURS` (adjacent-turn context): the best scaled score of the memory's neighbours among the
  candidates. Memories of one conversation or source are consecutive turns when they carry
  `payload["position"]` (an integer, their order) in the same scope and `payload["thread"]` (optional:
  a session). A question often names the words of the turn before the one that answers it.
- `SPEAKER` (field weighting, author): 1 when the query names the memory's `payload["speaker"]` (or
  `payload["author"]`).
- `COVERAGE` (field weighting, body and caption): the share of the query's words (IDF among the
  candidates) the memory holds; a word found only in `payload["caption"]` counts `CAPTION` of a word.
- `PHRASE` (proximity): the share of the query's adjacent word pairs found adjacent in the memory.
- `FEEDBACK` (pseudo-relevance feedback): the query expanded with the `FEEDBACK_TERMS` words most
  frequent in the best `FEEDBACK_DOCS` candidates (weighted by their score and IDF); the share of that
  expansion's weight the memory holds.
- `TIME` (relative time): 1 when the query names a time ("in May", "on 8 May, 2023", "last year",
  "in 2023") and the memory's date (`payload["occurred_at"]`, ISO; else its creation date) falls in it,
  or up to `TIME_SLACK_DAYS` after it (an event is told of after it happens). Relative expressions are
  resolved against the `reference_date` the caller passes to `recall` (default: today).

Words are lower-cased `[a-z0-9]+` runs without English stop words, crudely stemmed (plural, -ing, -ed,
final e). A memory's words are kept per process (`RERANK_TERMS`, keyed on its text and payload fields).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import chain
from typing import Any

from brain.caches import BoundedDict, memoize

from .post import Reranker
from .types import RecalledMemory

LEVERS = ("NEIGHBOURS", "SPEAKER", "COVERAGE", "PHRASE", "FEEDBACK", "TIME")
DEFAULTS: dict[str, float] = {
    "NEIGHBOURS": 0.0,
    "SPEAKER": 0.0,
    "COVERAGE": 0.0,
    "PHRASE": 0.0,
    "FEEDBACK": 0.0,
    "TIME": 0.0,
    "CAPTION": 0.5,
    "FEEDBACK_DOCS": 5,
    "FEEDBACK_TERMS": 10,
    "TIME_SLACK_DAYS": 14,
}

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be been but by can could did do does for from had has have he her hers him his how "
    "i if in into is it its me my no not of on or our she so that the their them then there they this to "
    "was we were what when where which who whom why will with would you your about after before did does "
    "doing done get got just like some than very also any".split()
)


@memoize("rerank-word-stems", maxsize=100_000, keyed_on="a word (its stem never changes)")
def stem(word: str) -> str:
    """A crude English stem: enough to match paint / painted / painting / paints, race / races. Kept per
    word: a recall over a large tenant reads a hundred new candidates' words, most of them seen before."""
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP]


@dataclass(frozen=True)
class MemoryTerms:
    """What the features read of one memory."""

    body: frozenset[str]  # words of the text, caption words left out when the caption is a field
    caption: frozenset[str]
    every: frozenset[str]  # body | caption
    pairs: frozenset[tuple[str, str]]  # adjacent words of the text
    speaker: str
    thread: tuple | None  # (scope kind, scope id, thread) when the memory has a position
    position: int | None
    day: date | None


RERANK_TERMS = BoundedDict(
    "rerank-memory-terms",
    bound=50_000,
    keyed_on="a memory's id, text, creation time and the payload fields the features read (the key holds them)",
)


def _payload_date(payload: dict, created_at) -> date | None:
    value = payload.get("occurred_at")
    if isinstance(value, str):
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            pass
    return created_at.date() if created_at is not None else None


def memory_terms(memory: RecalledMemory) -> MemoryTerms:
    payload = memory.payload if isinstance(memory.payload, dict) else {}
    caption = str(payload.get("caption") or "")
    speaker = str(payload.get("speaker") or payload.get("author") or "").strip().lower()
    position = payload.get("position")
    key = (
        memory.id,
        memory.text,
        caption,
        speaker,
        position,
        payload.get("thread"),
        payload.get("occurred_at"),
        memory.created_at,
    )
    found = RERANK_TERMS.get(key)
    if found is not None:
        return found
    text_words = words(memory.text)
    caption_words = frozenset(words(caption))
    body = frozenset(text_words) - caption_words if caption else frozenset(text_words)
    has_position = isinstance(position, int) and not isinstance(position, bool)
    found = MemoryTerms(
        body=body,
        caption=caption_words,
        every=body | caption_words,
        pairs=frozenset(zip(text_words, text_words[1:], strict=False)),
        speaker=speaker,
        thread=(memory.scope_kind, memory.scope_id, str(payload.get("thread", ""))) if has_position else None,
        position=position if has_position else None,
        day=_payload_date(payload, memory.created_at),
    )
    RERANK_TERMS[key] = found
    return found


# --- Time in the query -----------------------------------------------------------------------------------

_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(), 1
    )
}
_MONTH = "(" + "|".join(_MONTHS) + ")"
_DAY_FIRST = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+(\d{{4}})\b")
_MONTH_FIRST = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+(\d{{4}})\b")
_IN_MONTH = re.compile(rf"\bin\s+{_MONTH}\b")
_IN_YEAR = re.compile(r"\bin\s+((?:19|20)\d\d)\b")
_LAST = re.compile(r"\blast\s+(year|month|week|weekend)\b")


def _month_span(year: int, month: int) -> tuple[date, date]:
    following = date(year + (month == 12), month % 12 + 1, 1)
    return date(year, month, 1), following - timedelta(days=1)


def query_interval(query: str, reference: date) -> tuple[date, date] | None:
    """The time span the query names, resolved against `reference` ("now"); None when it names none."""
    q = query.lower()
    try:
        if m := _DAY_FIRST.search(q):
            day = date(int(m[3]), _MONTHS[m[2]], int(m[1]))
            return day, day
        if m := _MONTH_FIRST.search(q):
            day = date(int(m[3]), _MONTHS[m[1]], int(m[2]))
            return day, day
    except ValueError:  # "31 February"
        return None
    if m := _MONTH_YEAR.search(q):
        return _month_span(int(m[2]), _MONTHS[m[1]])
    if m := _IN_MONTH.search(q):
        month = _MONTHS[m[1]]
        return _month_span(reference.year - (month > reference.month), month)
    if m := _IN_YEAR.search(q):
        return date(int(m[1]), 1, 1), date(int(m[1]), 12, 31)
    if m := _LAST.search(q):
        unit = m[1]
        if unit == "year":
            return date(reference.year - 1, 1, 1), date(reference.year - 1, 12, 31)
        if unit == "month":
            last = reference.replace(day=1) - timedelta(days=1)
            return _month_span(last.year, last.month)
        return reference - timedelta(days=14), reference
    return None


# --- The reranker ---------------------------------------------------------------------------------------


class FeatureReranker(Reranker):
    """Fused score scaled to [0, 1] plus weighted features (module docstring); ties keep the fused order."""

    name = "features"

    def __init__(self, **options: Any):
        super().__init__(**options)
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise ValueError(
                f"FeatureReranker options not known: {sorted(unknown)}; known: {sorted(DEFAULTS)}"
            )
        self.weights = {name: float(options.get(name, value)) for name, value in DEFAULTS.items()}

    def rerank(
        self, *, query: str, memories: list[RecalledMemory], reference_date: date | None = None
    ) -> list[RecalledMemory]:
        if not memories:
            return memories
        best = max(m.score for m in memories) or 1.0
        base = [m.score / best for m in memories]
        terms = [memory_terms(m) for m in memories]
        features = self.features(query, base, terms, reference_date or date.today())
        names = list(features)
        scores = list(base)
        for name in names:
            weight = self.weights[name]
            scores = [s + weight * v for s, v in zip(scores, features[name], strict=True)]
        final = []
        for i, memory in enumerate(memories):
            memory.explanation["rerank"] = {
                "score": scores[i],  # rounded with the rest of the explanation, for the results returned
                "features": {name: features[name][i] for name in names if features[name][i]},
            }
            final.append((-scores[i], i))
        final.sort()
        for negative, i in final:  # in the fused score's units, so MMR and callers read one scale
            memories[i].score = -negative * best
        return [memories[i] for _, i in final]

    def features(self, query: str, base: list[float], terms: list[MemoryTerms], reference: date) -> dict:
        """{lever: [value per memory]} for the levers with a weight."""
        w, n = self.weights, len(terms)
        query_words = words(query)
        out: dict[str, list[float]] = {}
        idf = _Idf(terms)
        if w["NEIGHBOURS"]:
            out["NEIGHBOURS"] = _neighbours(base, terms)
        if w["SPEAKER"]:
            named = set(_WORD.findall(query.lower()))
            out["SPEAKER"] = [float(bool(t.speaker) and t.speaker.split()[0] in named) for t in terms]
        if w["COVERAGE"] and query_words:
            out["COVERAGE"] = _coverage(set(query_words), terms, idf, w["CAPTION"])
        if w["PHRASE"]:
            pairs = set(zip(query_words, query_words[1:], strict=False))
            out["PHRASE"] = [len(pairs & t.pairs) / len(pairs) if pairs else 0.0 for t in terms]
        if w["FEEDBACK"]:
            out["FEEDBACK"] = _feedback(set(query_words), base, terms, idf, self.weights)
        if w["TIME"]:
            span = query_interval(query, reference)
            if span is not None:
                start, end = span[0], span[1] + timedelta(days=int(w["TIME_SLACK_DAYS"]))
                out["TIME"] = [float(t.day is not None and start <= t.day <= end) for t in terms]
        return {name: column for name, column in out.items() if len(column) == n}


class _Idf:
    """Each word's IDF among the candidates, log(1 + n / df), computed when first asked for: the features
    ask for the query's words and the feedback documents' words, a tenth of the candidates' words."""

    __slots__ = ("df", "n", "known")

    def __init__(self, terms: list[MemoryTerms]):
        self.df = Counter(chain.from_iterable(t.every for t in terms))  # a set per memory: counted in C
        self.n = len(terms)
        self.known: dict[str, float] = {}

    def get(self, word: str, default: float = 0.0) -> float:
        value = self.known.get(word)
        if value is None:
            found = self.df.get(word)
            if not found:
                return default
            value = self.known[word] = math.log(1 + self.n / found)
        return value


def _neighbours(base: list[float], terms: list[MemoryTerms]) -> list[float]:
    at = {(t.thread, t.position): i for i, t in enumerate(terms) if t.thread is not None}
    values = []
    for t in terms:
        if t.thread is None:
            values.append(0.0)
            continue
        near = [at.get((t.thread, t.position + step)) for step in (-1, 1)]
        values.append(max((base[j] for j in near if j is not None), default=0.0))
    return values


def _coverage(query: set[str], terms: list[MemoryTerms], idf: _Idf, caption: float) -> list[float]:
    weight = {word: idf.get(word, 0.0) for word in query}
    total = sum(weight.values())
    if not total:
        return [0.0] * len(terms)
    values = []
    for t in terms:
        found = sum(v for word, v in weight.items() if word in t.body)
        found += caption * sum(v for word, v in weight.items() if word in t.caption and word not in t.body)
        values.append(found / total)
    return values


def _feedback(
    query: set[str], base: list[float], terms: list[MemoryTerms], idf: _Idf, w: dict
) -> list[float]:
    top = sorted(range(len(terms)), key=lambda i: -base[i])[: int(w["FEEDBACK_DOCS"])]
    weight: Counter = Counter()
    for i in top:
        for word in terms[i].body - query:
            weight[word] += base[i] * idf.get(word, 0.0)
    expansion = dict(weight.most_common(int(w["FEEDBACK_TERMS"])))
    total = sum(expansion.values())
    if not total:
        return [0.0] * len(terms)
    return [sum(v for word, v in expansion.items() if word in t.body) / total for t in terms]
