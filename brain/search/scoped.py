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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
    keeps only rows of those types."""

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
