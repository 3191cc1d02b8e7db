"""Plans over one scope's rows that are not ranked retrieval: containment (the Client Brain keyword tier)
and neighbours (the formation judge's neighbour and backstop queries).

Containment, in the spec's Client Brain semantics: the first `limit` live rows, in tier order
(confidence, newest, id, all descending), whose key or value contains any term case-insensitively. The
in-memory backend serves it over the window (the tenant's first rows in that order, cached under the
tenant scope's memory state); PostgreSQL serves the rows after the window, term by term (remembered in
the window per term), through the trigram index. The window's matches come first in the order, so the
two together are exactly what one query over all rows returns.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

# The containment order: confidence, newest, id, all descending.
CONTAINMENT_ORDER = ("-confidence", "-created_at", "-id")
# Terms whose matches a window remembers (bounds what one tenant's varied tickets can make a process hold).
MAX_REMEMBERED_TERMS = 5_000


@dataclass(frozen=True)
class ContainmentPlan:
    """Rows of one tenant holding any of `terms`. `live` narrows a queryset of memories to the rows that
    may be returned (it must not filter on the tenant: the plan does, once); `fields` are read per row
    and must start with id, type, key, text, payload, confidence and end with created_at; `prepare` turns
    a row's values (without created_at) into what is returned, a value with `id`, `key` and `text`
    attributes (kept in the window: build it once)."""

    tenant_id: int
    terms: list[str]
    limit: int
    window_size: int
    live: Callable[[Any], Any]
    fields: tuple[str, ...]
    prepare: Callable[[tuple], Any]
    state: str  # the memory state the window is cached under, read before any row
    name: str = "containment"
    after: tuple | None = None  # an order key: only rows after it (the window's edge, for PostgreSQL)
    # Per term, its first `limit` matches after `after` with their order keys, as PostgreSQL found them:
    # the window's memo, valid for the window's memory state.
    memo: dict | None = None


def order_key(values: tuple) -> tuple:
    """(confidence, created_at, id) of a row read with a plan's `fields`."""
    return (values[5], values[-1], values[0])


# A term is a `\w+` run (brain.client_brain.words): any occurrence of one in a text lies inside one of these.
_WORD_RUN = re.compile(r"\w+")


@dataclass
class Window:
    """A tenant's first live rows in containment order, and per term what matched.

    `beyond[term]` holds the term's first `limit` matches among the rows after the window, with their
    order keys: a containment plan's first `limit` rows are always among the union of those lists.
    """

    rows: tuple  # prepared by the plan
    edge: tuple | None  # the order key of the last row, when rows may follow it
    # (term, limit) -> the first `limit` positions in `rows` of the rows holding the term
    matches: dict[tuple[str, int], tuple[int, ...]] = field(default_factory=dict)
    beyond: dict[str, tuple[tuple, ...]] = field(default_factory=dict)  # term -> ((order key, row), ...)

    # What containment searches, the rows' key and value lowercased, indexed by word: every distinct
    # `\w+` run of them (`vocabulary`, joined by NUL, where `word_starts` says each one begins) and the rows
    # holding it (`postings`, in the same order). A term is all word characters, so a row's text contains
    # it exactly when one of the row's words does: a term is looked for in the distinct words, a tenth of
    # the text, at C speed.
    vocabulary: str = field(init=False, repr=False)
    word_starts: array = field(init=False, repr=False)
    postings: tuple[tuple[int, ...], ...] = field(init=False, repr=False)

    def __post_init__(self):
        rows_of: dict[str, list[int]] = {}
        for position, row in enumerate(self.rows):
            for word in set(_WORD_RUN.findall(f"{row.key} {row.text}".lower())):
                rows_of.setdefault(word, []).append(position)
        self.vocabulary = "\0".join(rows_of)
        starts, offset = array("q"), 0
        for word in rows_of:
            starts.append(offset)
            offset += len(word) + 1
        self.word_starts = starts
        self.postings = tuple(map(tuple, rows_of.values()))

    def positions(self, term: str, limit: int) -> tuple[int, ...]:
        """The first `limit` positions of rows whose text contains `term`, in order (remembered): the
        first `limit` rows matching any of several terms are always among their first `limit` each."""
        found = self.matches.get((term, limit))
        if found is None:
            hits: set[int] = set()
            vocabulary, starts = self.vocabulary, self.word_starts
            at = vocabulary.find(term)
            while at != -1:
                word = bisect_right(starts, at) - 1
                hits.update(self.postings[word])
                at = vocabulary.find(term, starts[word + 1]) if word + 1 < len(starts) else -1
            found = tuple(sorted(hits)[:limit])
            if len(self.matches) < MAX_REMEMBERED_TERMS:  # a benign race: threads store the same positions
                self.matches[(term, limit)] = found
        return found


# --- Neighbours (the formation judge) -----------------------------------------------------------------------


class NeighbourRow(NamedTuple):
    id: int
    key: str
    text: str
    status: str
    trgm: float | None  # pg_trgm similarity of the row's text to the plan's text
    distance: float | None  # cosine distance to the plan's vector (None without one)


@dataclass(frozen=True)
class NeighbourPlan:
    """The rows of one tenant + scope (in `statuses`) nearest to `text`: the best `limit` by trigram
    similarity among those over pg_trgm's threshold, the best `limit` by cosine distance to `vector`
    (rows embedded by `model`; within `max_distance` when set), up to `limit` with the same `key`, and
    the rows of `ids`. `by_id` breaks ties by id (else the order of equal rows is PostgreSQL's). `types`
    keeps only rows of those types. `nearest=False` leaves out the trigram and vector parts: only the rows of
    `key` and `ids`, each still scored against `text` and `vector`."""

    tenant_id: int
    scope_kind: str
    scope_id: str
    statuses: Sequence[str]
    text: str
    limit: int
    vector: Any = None
    model: str = ""
    max_distance: float | None = None
    key: str = ""
    ids: Sequence[int] = ()
    by_id: bool = False
    types: Sequence[str] = ()  # only rows of these types; empty: every type
    nearest: bool = True
