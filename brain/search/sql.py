"""The engine's values compiled to PostgreSQL: a plan's filters as a condition on `brain_memory m`, lexemes
and vectors as literals, and the rows of ids as hits. The PostgreSQL backend builds its statements from
these; the planner's statistics and the in-memory backend's caches load their rows with the same compile,
so every storage reads the same rows for the same filters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from brain.caches import memoize

from .filters import Filters
from .types import MEMORY_COLUMNS, Hit

_COLUMNS = ", ".join(f"m.{column}" for column in MEMORY_COLUMNS)


@memoize(
    "search-compiled-filters", maxsize=1024, keyed_on="the filters (a value: tenant, scopes, lists, range)"
)
def _compiled(filters: Filters) -> tuple[str, tuple]:
    # bigint, as the column: btree_gin's int8_ops has no int8 = int4, and the GIN indexes need the tenant.
    clauses = ["m.tenant_id = %(tenant_id)s::bigint"]
    params: dict[str, Any] = {"tenant_id": filters.tenant_id}
    if filters.scope_kind is not None:
        clauses.append("m.scope_kind = %(scope_kind)s")
        params["scope_kind"] = filters.scope_kind
    for name, column in (
        ("scope_ids", "scope_id"),
        ("types", "type"),
        ("statuses", "status"),
        ("strengths", "strength"),
        ("categories", "category"),
    ):
        values = getattr(filters, name)
        if values is not None:
            clauses.append(f"m.{column} = ANY(%({name})s)")
            params[name] = list(values)
    if filters.confidence_range is None:
        # Ungraded (null) rows are admitted; legacy NaN / infinite / out-of-range values never are
        # (in PostgreSQL NaN sorts above every number, so BETWEEN with finite bounds excludes it).
        clauses.append("(m.confidence IS NULL OR m.confidence BETWEEN 0 AND 1)")
    else:
        clauses.append("m.confidence BETWEEN %(confidence_low)s AND %(confidence_high)s")
        params["confidence_low"], params["confidence_high"] = filters.confidence_range
    return " AND ".join(clauses), tuple(params.items())


def where(filters: Filters) -> tuple[str, dict[str, Any]]:
    """The filters as a SQL condition on `brain_memory m` and its parameters (a new dict: callers add to it)."""
    condition, params = _compiled(filters)
    return condition, {name: list(value) if isinstance(value, list) else value for name, value in params}


def hit_select(tiers: Sequence[str] = (), with_embedding: bool = False) -> str:
    """The select list of statements that return hits, in `Hit`'s field order (`tiers`: those whose rank
    and score the statement names `<tier>.rank` and `<tier>.score`)."""
    ranks = ", ".join(
        f"{tier}.rank, {tier}.score" if tier in tiers else "NULL::bigint, NULL::float8"
        for tier in ("fts", "trigram", "vector")
    )
    embedding = "vector_send(m.embedding)" if with_embedding else "NULL"  # binary: parsed faster than text
    return f"m.id, m.confidence, m.created_at, {ranks}, {_COLUMNS}, {embedding}"


def hits_by_id(cursor, *, filters: Filters, ids: list[int], with_embedding: bool, ranks=None) -> list[Hit]:
    """The filtered rows of `ids` as hits with their columns (one primary-key read); `ranks` gives each id
    its tiers' ranks and scores ({Hit field: value})."""
    condition, params = where(filters)
    cursor.execute(
        f"SELECT {hit_select((), with_embedding)} FROM brain_memory m WHERE {condition}"
        " AND m.id = ANY(%(hit_ids)s)",
        {**params, "hit_ids": ids},
    )
    hits = [Hit._make(row) for row in cursor.fetchall()]
    if ranks is None:
        return hits
    return [hit._replace(**ranks[hit.id]) for hit in hits]


def tsquery_literal(lexeme: str) -> str:
    """One lexeme quoted for tsquery input: it is matched as is, never parsed as an operator."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form of `vector`, rounded to float32 as pgvector stores it; nine significant digits
    give each float32 back exactly (formatted in one call: a literal is sent with every vector search)."""
    values = np.asarray(vector, dtype=np.float32).tolist()
    return "[" + ",".join(["%.9g"] * len(values)) % tuple(values) + "]"


def vector_from_send(sent: bytes | memoryview) -> np.ndarray:
    """A vector from pgvector's binary form (`vector_send`): two bytes of dimensions, two unused, then
    big-endian float4s: the stored floats exactly."""
    return np.frombuffer(sent, dtype=">f4", offset=4).astype(np.float32)


def vectors_from_send(sent: Sequence[bytes | memoryview]) -> np.ndarray:
    """The rows of a matrix from vectors of one length (one model's) in pgvector's binary form, parsed in one
    call, each as `vector_from_send` reads it."""
    joined = np.frombuffer(b"".join(sent), dtype=">f4").reshape(len(sent), -1)
    return joined[:, 1:].astype(np.float32)  # the first float4's bytes are the dimensions and the unused two
