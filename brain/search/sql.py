"""The engine's values compiled to PostgreSQL: a plan's filters as a condition on `brain_memory m`, lexemes
and vectors as literals, and the rows of ids as hits. The PostgreSQL backend builds its statements from
these; the planner's statistics and the in-memory backend's caches load their rows with the same compile,
so every storage reads the same rows for the same filters."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from brain.caches import memoize

from .filters import Filters
from .types import MEMORY_COLUMNS, Hit

_COLUMNS = ", ".join(f"m.{column}" for column in MEMORY_COLUMNS)


# The tenant as a statement that finds rows through the tenant's own search keys tests it (`where(keyed=True)`).
KEYED_TENANT = "m.tenant_id + 0 = %(tenant_id)s::bigint"


@memoize(
    "search-compiled-filters",
    maxsize=1024,
    keyed_on="the filters (a value: tenant, scopes, lists, range) and whether the statement is keyed",
)
def _compiled(filters: Filters, keyed: bool) -> tuple[str, tuple]:
    # bigint, as the column: btree_gin's int8_ops has no int8 = int4, and the GIN indexes need the tenant.
    # Keyed, "+ 0" hides the column from the planner (see `where`).
    clauses = [KEYED_TENANT if keyed else "m.tenant_id = %(tenant_id)s::bigint"]
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


def where(filters: Filters, *, keyed: bool = False) -> tuple[str, dict[str, Any]]:
    """The filters as a SQL condition on `brain_memory m` and its parameters (a new dict: callers add to it).

    `keyed`: the statement finds its rows through the tenant's own search keys (`tenant_lexemes`,
    `tenant_trigrams`, below), which hold this tenant's rows only, so the tenant is tested on each row found
    and never through an index. Those columns have no statistics, so PostgreSQL prices a key's match at its
    default share of the whole table (0.5% a lexeme) and, for a large tenant, would otherwise read the
    tenant's every row from an index to intersect them with the key's few: 7 of 8 ms to count one lexeme
    of a 100,000-row tenant (README, "The lexical tier's statements"). The tenant-query audit counts such a
    statement as one Citus could not route by tenant (README, "Scale-out")."""
    condition, params = _compiled(filters, keyed)
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


# --- Search keys that carry the tenant (migration 0019) -------------------------------------------------------
# The lexical tiers find rows through `tenant_lexemes` and `tenant_trigrams`, whose keys are the row's lexemes and
# pg_trgm trigrams prefixed with its tenant: a query's keys carry the searching tenant, so the posting lists it
# reads, and the work of reading them, are that tenant's alone. Neither column has statistics: the planner
# prices these conditions by the query's shape, never by other tenants' rows.

# Past this many trigrams of one word, the candidates' query keeps this many (a looser test: still every match).
MAX_QUERY_TRIGRAMS = 16


def tenant_key(tenant_id: int, token: str) -> str:
    """A lexeme or trigram as the tenant's search keys hold it: "12:refund"."""
    return f"{int(tenant_id)}:{token}"


def tenant_lexemes_query(tenant_id: int, lexemes: Sequence[str], operator: str = "|") -> str:
    """A tsquery (input text) over `tenant_lexemes`: the lexemes, each as the tenant's key, joined by `operator`."""
    return f" {operator} ".join(tsquery_literal(tenant_key(tenant_id, lexeme)) for lexeme in lexemes)


def least_count(size: int, threshold: float) -> int:
    """The fewest of a word's `size` trigrams a row must hold for pg_trgm's GIN index to return it for `<%` at
    `threshold` (its test: held / size >= threshold, divided in float4): a row with fewer cannot be a match."""
    return next((k for k in range(size + 1) if float(np.float32(k) / np.float32(size)) >= threshold), size)


def at_least(count: int, operands: Sequence[str], both: str = " & ", either: str = " | ") -> str:
    """A boolean formula true when at least `count` (1..len) of `operands` hold: split in halves, at least i of
    the first and count - i of the second, for each i (a tree of a few hundred operands for 16)."""
    size = len(operands)
    if count == 1 or count == size:
        return "(" + (either if count == 1 else both).join(operands) + ")"
    first, second = operands[: size // 2], operands[size // 2 :]
    cases = []
    for i in range(max(0, count - len(second)), min(count, len(first)) + 1):
        parts = [at_least(i, first, both, either)] if i else []
        parts += [at_least(count - i, second, both, either)] if count - i else []
        cases.append(both.join(parts))
    return "(" + either.join(cases) + ")"


def trigram_candidates_query(tenant_id: int, trigrams: Sequence[str], threshold: float) -> str | None:
    """A tsquery over `tenant_trigrams` that every row of the tenant holding a word `<%`-similar to the word of
    `trigrams` matches (the rows holding enough of its trigrams, as pg_trgm's GIN index finds them), or None
    when every row may match. A superset: the caller tests `word_similarity` on what it finds."""
    keys = sorted({tsquery_literal(tenant_key(tenant_id, trigram)) for trigram in trigrams})
    if not keys:
        return None
    count = least_count(len(keys), threshold) - max(len(keys) - MAX_QUERY_TRIGRAMS, 0)
    keys = keys[:MAX_QUERY_TRIGRAMS]  # a row holding `count` of all holds count - (dropped) of these
    return at_least(count, keys) if count > 0 else None


# A containment term is looked up through the tenant's trigram keys by its runs of ASCII letters and digits of
# three or more (their trigrams are spelled as show_trgm spells them, and every occurrence of a run lies inside
# one of pg_trgm's words); a term with another character that is not ASCII is not (lower-casing may differ).
_KEYED_RUN = re.compile(r"[a-z0-9]{3,}")

# A containment term held by at most this many of the tenant's rows (by its trigram keys) has those rows read by
# id; past it, walking the rows (the containment order, a page's order) finds its first matches sooner.
KEYED_TERM_ROWS = 1000


def term_keys_query(tenant_id: int, term: str) -> str | None:
    """A tsquery over `tenant_trigrams` that every row of the tenant containing `term` (ILIKE '%term%', in its
    key or text) matches: each trigram inside each run of letters and digits of the lower-cased term (a word,
    or a search box's words), the padded ones left out (the run may sit inside a longer word). None when the
    keys cannot say: no run of three, or a character that is not ASCII. A superset: the caller tests the
    containment on what it finds. A row keeps its first 20,000 trigrams (migration 0019; 10,000 characters or
    more, ten times what formation admits), as the trigram tier's."""
    lowered = term.lower()
    if not lowered.isascii():
        return None
    trigrams = sorted({run[i : i + 3] for run in _KEYED_RUN.findall(lowered) for i in range(len(run) - 2)})
    if not trigrams:
        return None
    return " & ".join(tsquery_literal(tenant_key(tenant_id, trigram)) for trigram in trigrams)


# The ids of the tenant's rows whose trigram keys match `keys` (a `term_keys_query`): `rows_holding_term`'s
# statement, and what `brain_bench client-brain` explains.
ROWS_HOLDING_SQL = (
    f"SELECT m.id FROM brain_memory m WHERE {KEYED_TENANT} AND m.tenant_trigrams @@ %(keys)s::tsquery"
)


def rows_holding_term(cursor, *, tenant_id: int, term: str, limit: int) -> list[int] | None:
    """The ids of the tenant's rows whose trigram keys hold every trigram of `term` (`term_keys_query`): at most
    `limit`, else None (a common word, or one the keys cannot look up). Any row of the tenant, live or not:
    the caller's statement filters them. The tenant is tested on each row found (`KEYED_TENANT`)."""
    query = term_keys_query(tenant_id, term)
    if query is None:
        return None
    cursor.execute(
        ROWS_HOLDING_SQL + " LIMIT %(limit)s",
        {"tenant_id": int(tenant_id), "keys": query, "limit": limit + 1},
    )
    ids = [row[0] for row in cursor.fetchall()]
    return ids if len(ids) <= limit else None


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
