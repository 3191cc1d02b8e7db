"""The PostgreSQL backend: every tier of a recall plan in ONE statement, and the rows after the Client
Brain window through the trigram index.

- `fts`: full text on the generated `search_vector`, scored by BM25 over lexeme presence (IDF from the
  plan) or `ts_rank_cd`; served by the GIN index led by `tenant_id`.
- `trigram`: pg_trgm `word_similarity` of the plan's typo words against `text` and `key`; served by the
  trigram GIN index led by `tenant_id`; or, for a scope small enough, the rows and scores the scope's
  vocabulary gave (brain.search.vocabulary).
- `vector`: pgvector cosine distance to the query embedding, over rows embedded by the same model:
  the HNSW index with iterative scans under the filters, or an exact scan (`VECTOR_STRATEGY`). When the
  walk ends with fewer than `pool` rows, the tier is run again as the exact scan, whose rows serve it when
  they differ (the walk stopped before it found all the filtered rows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from brain.models import Memory

from ..plan import RecallPlan, vector_literal
from ..scoped import (
    CONTAINMENT_ORDER,
    MAX_REMEMBERED_TERMS,
    ContainmentPlan,
    NeighbourPlan,
    NeighbourRow,
    order_key,
)
from ..types import MEMORY_COLUMNS, Hit
from .base import SearchBackend

_COLUMNS = ", ".join(f"m.{column}" for column in MEMORY_COLUMNS)
_NO_TIER = "NULL::bigint, NULL::float8"


def hit_select(tiers, with_embedding: bool) -> str:
    """The select list of statements that return hits, in `Hit`'s field order."""
    ranks = ", ".join(
        f"{tier}.rank, {tier}.score" if tier in tiers else _NO_TIER for tier in ("fts", "trigram", "vector")
    )
    embedding = "vector_send(m.embedding)" if with_embedding else "NULL"  # binary: parsed 7x faster than text
    return f"m.id, m.confidence, m.created_at, {ranks}, {_COLUMNS}, {embedding}"


def hits_by_id(
    cursor, *, where: str, params: dict, ids: list[int], with_embedding: bool, ranks=None
) -> list[Hit]:
    """The filtered rows of `ids` as hits with their columns (one primary-key read); `ranks` gives each
    id its tiers' ranks and scores ({Hit field: value}) when the in-memory backend ranked it."""
    cursor.execute(
        f"SELECT {hit_select((), with_embedding)} FROM brain_memory m WHERE {where} AND m.id = ANY(%(hit_ids)s)",
        {**params, "hit_ids": ids},
    )
    hits = [Hit._make(row) for row in cursor.fetchall()]
    if ranks is None:
        return hits
    return [hit._replace(**ranks[hit.id]) for hit in hits]


def tsquery_literal(lexeme: str) -> str:
    """One lexeme quoted for tsquery input: it is matched as is, never parsed as an operator."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _fts_cte(plan: RecallPlan, params: dict) -> str:
    lexical, where = plan.lexical, plan.filters.where
    scored = lexical.scored
    # OR semantics: a memory matching some of the query's lexemes is found. The parameters are tsquery
    # literals (built from the lexemes in Python), so they are constants in the plan.
    params["tsq"] = (" | " if lexical.match == "or" else " & ").join(
        map(tsquery_literal, lexical.match_lexemes)
    )
    if plan.config["LEXICAL_SCORING"] == "bm25":
        params.update(avg_len=lexical.avg_len, bm25_k1=plan.config["BM25_K1"], bm25_b=plan.config["BM25_B"])
        numbers = [f"{i:02d}" for i in range(len(scored))]
        params.update(
            {f"lex_{n}": tsquery_literal(lexeme) for n, lexeme in zip(numbers, scored, strict=True)}
        )
        params.update({f"idf_{n}": lexical.idf[lexeme] for n, lexeme in zip(numbers, scored, strict=True)})
        # BM25 over lexeme presence (a memory is short; repeats matter little): each matched lexeme adds its
        # IDF, damped by the memory's length. The terms are summed in the order of their names (past 100
        # lexemes, "lex_100" comes after "lex_10"); the in-memory backend sums in lexeme order, the same
        # order below that.
        terms = " + ".join(
            f"(m.search_vector @@ %(lex_{n})s::tsquery)::int * %(idf_{n})s::float8" for n in sorted(numbers)
        )
        score = (
            f"({terms}) * (%(bm25_k1)s::float8 + 1) / (1 + %(bm25_k1)s::float8 * (1 - %(bm25_b)s::float8 + "
            "%(bm25_b)s::float8 * length(m.search_vector) / %(avg_len)s::float8))"
        )
    else:
        score = "ts_rank_cd(m.search_vector, %(tsq)s::tsquery)"
    source, matched = "brain_memory m", f"{where} AND m.search_vector @@ %(tsq)s::tsquery"
    if lexical.and_limit is not None:
        # Every lexeme is common, so every match holds the same lexemes and only its length tells
        # them apart: score at most AND_MATCH_LIMIT of them, not the tens of thousands that match.
        params["and_limit"] = lexical.and_limit
        source, matched = (
            f"(SELECT m.id, m.search_vector FROM {source} WHERE {matched} LIMIT %(and_limit)s) m",
            "TRUE",
        )
    return f"""fts AS (
  SELECT id, score, rank() OVER (ORDER BY score DESC) AS rank FROM (
    SELECT m.id, {score} AS score
    FROM {source}
    WHERE {matched}
    ORDER BY score DESC, m.id LIMIT %(pool)s) s)"""


def _trigram_cte(plan: RecallPlan, params: dict) -> str:
    # Scored by the scope's vocabulary (brain.search.vocabulary): its rows and scores as they are, still
    # under the filters.
    if plan.lexical.trigram_scored is not None:
        scored = plan.lexical.trigram_scored[: plan.pool]
        params.update(
            trigram_scores=[score for score, _ in scored], trigram_ids=[memory_id for _, memory_id in scored]
        )
        return f"""trigram AS (
  SELECT t.id, t.score, rank() OVER (ORDER BY t.score DESC) AS rank
  FROM unnest(%(trigram_ids)s::bigint[], %(trigram_scores)s::float8[]) AS t(id, score)
  JOIN brain_memory m ON m.id = t.id WHERE {plan.filters.where})"""
    words = [f"word_{i:02d}" for i in range(len(plan.lexical.trigram_words))]
    params.update(zip(words, plan.lexical.trigram_words, strict=True))
    # One condition per query word, so a typo in one word still finds the memory (a whole-query
    # similarity is diluted by the other words). The score is the words' mean best similarity.
    # Candidates come word by word, so each lookup is one trigram-index scan (a single OR over the
    # words made the planner filter every tenant row through word_similarity, 100x slower); the
    # costly similarity is then computed only for the candidates.
    candidates = " UNION ".join(
        f"(SELECT m.id FROM brain_memory m WHERE {plan.filters.where}"
        f" AND (%({w})s <%% m.text OR %({w})s <%% m.key) LIMIT %(pool)s)"
        for w in words
    )
    score = " + ".join(
        f"greatest(word_similarity(%({w})s, m.text), word_similarity(%({w})s, m.key))" for w in words
    )
    return f"""trigram AS (
  SELECT id, score, rank() OVER (ORDER BY score DESC) AS rank FROM (
    SELECT m.id, ({score}) / {len(words)} AS score
    FROM brain_memory m JOIN ({candidates}) c ON c.id = m.id
    ORDER BY score DESC, m.id LIMIT %(pool)s) s)"""


def _vector_cte(plan: RecallPlan, params: dict) -> str:
    params.update(qvec=vector_literal(plan.query_vector()), embedding_model=plan.embedding_model)
    # "+ 0" hides the operator from the planner: the exact strategy never walks the HNSW graph.
    distance = "(m.embedding <=> %(qvec)s::vector)" + (" + 0" if plan.strategy == "exact" else "")
    return f"""vector AS (
  SELECT id, score, rank() OVER (ORDER BY score DESC) AS rank FROM (
    SELECT m.id, 1 - {distance} AS score
    FROM brain_memory m
    WHERE {plan.filters.where} AND m.embedding IS NOT NULL AND m.embedding_model = %(embedding_model)s
    ORDER BY {distance}, m.id LIMIT %(pool)s) s)"""


_CTES = {"fts": _fts_cte, "trigram": _trigram_cte, "vector": _vector_cte}


def recall_statement(plan: RecallPlan) -> tuple[str, dict]:
    """The plan's tiers as one statement, and its parameters."""
    params = {**plan.filters.params, "query": plan.query, "pool": plan.pool}
    ctes = [_CTES[tier](plan, params) for tier in ("fts", "trigram", "vector") if tier in plan.tiers]
    union = " UNION ".join(f"SELECT id FROM {tier}" for tier in plan.tiers)
    joins = " ".join(f"LEFT JOIN {tier} ON {tier}.id = m.id" for tier in plan.tiers)
    # The ids come from tiers that all filter on the tenant; the final re-check stays as a belt, and its
    # "+ 0" keeps it from steering the plan (on stale statistics a tenant index scan per id was chosen
    # over the primary key).
    sql = (
        "WITH "
        + ",\n".join(ctes)
        + f"""
SELECT {hit_select(plan.tiers, plan.with_embedding)}
FROM ({union}) ids JOIN brain_memory m ON m.id = ids.id {joins}
WHERE m.tenant_id + 0 = %(tenant_id)s::bigint"""
    )
    return sql, params


def set_local(cursor, plan: RecallPlan) -> None:
    """The settings the plan's tiers need, for this transaction, sent in one statement."""
    config = plan.config
    local: list[tuple[str, str]] = []
    if "vector" in plan.tiers and plan.strategy == "hnsw":
        # Iterative scans keep walking the graph until enough rows pass the tenant/scope filters.
        local += [
            ("hnsw.iterative_scan", "relaxed_order"),
            ("hnsw.ef_search", str(max(config["HNSW_EF_SEARCH"], plan.pool))),
            ("hnsw.max_scan_tuples", str(config["HNSW_MAX_SCAN_TUPLES"])),
        ]
    if "trigram" in plan.tiers and plan.lexical.trigram_scored is None:  # else no operator reads them
        local += [
            ("pg_trgm.word_similarity_threshold", str(config["TRIGRAM_THRESHOLD"])),
            ("pg_trgm.similarity_threshold", str(config["TRIGRAM_THRESHOLD"])),
        ]
    if local:
        cursor.execute(
            "SELECT " + ", ".join("set_config(%s, %s, true)" for _ in local),
            [value for setting in local for value in setting],
        )


class PostgresBackend(SearchBackend):
    name = "postgres"
    in_transaction = True  # its tiers' settings are SET LOCAL (`set_local`)

    def supports(self, plan) -> bool:
        return True

    def search(self, cursor, plan: RecallPlan) -> list[Hit]:
        hits = self._execute(cursor, plan)
        if plan.strategy == "hnsw" and "vector" in plan.tiers:
            found = sum(1 for hit in hits if hit.vector_rank is not None)
            if found < plan.pool:
                # Fewer than `pool` rows: either the filters leave no more, or the walk stopped
                # (`HNSW_MAX_SCAN_TUPLES`) before it found them, as for a tenant or scope small beside the
                # table. Either way the rows are few, so the exact scan is cheap; where it finds other rows
                # than the walk, its rows serve the tier, and every result's explanation says "exact".
                exact = self._execute(cursor, replace(plan, tiers=["vector"], strategy="exact"))
                if {hit.id for hit in exact} != {hit.id for hit in hits if hit.vector_rank is not None}:
                    hits = _with_exact_vector_tier(hits, exact)
                    plan.strategy = "exact"
        return hits

    def _execute(self, cursor, plan: RecallPlan) -> list[Hit]:
        sql, params = recall_statement(plan)
        set_local(cursor, plan)
        cursor.execute(sql, params)
        return [Hit._make(row) for row in cursor.fetchall()]

    def contains(self, plan: ContainmentPlan) -> list:
        """The first `plan.limit` rows (after `plan.after` when set) holding any term, in order.

        One statement per term, its pattern a constant: the planner weighs the index scan against walking
        the order by how common that one term is. Each term's first `limit` matches are kept in
        `plan.memo` when the plan has one (the window's, valid for its memory state)."""
        merged: dict[int, tuple] = {}
        for term in plan.terms:
            matches = plan.memo.get(term) if plan.memo is not None else None
            if matches is None:
                matches = self._term_matches(plan, term)
                if plan.memo is not None and len(plan.memo) < MAX_REMEMBERED_TERMS:
                    plan.memo[term] = matches  # a benign race: threads store the same rows
            for key, row in matches:
                merged[row.id] = (key, row)
        # The order is confidence, newest, id, all descending: the order keys sorted in reverse.
        ordered = sorted(merged.values(), key=lambda item: item[0], reverse=True)
        return [row for _, row in ordered[: plan.limit]]

    def _term_matches(self, plan: ContainmentPlan, term: str) -> tuple[tuple[tuple, Any], ...]:
        rows = containing(tenant_id=plan.tenant_id, terms=[term], live=plan.live)
        if plan.after is not None:
            rows = rows.filter(
                RawSQL(
                    '("brain_memory"."confidence", "brain_memory"."created_at", "brain_memory"."id") < (%s, %s, %s)',
                    list(plan.after),
                    output_field=BooleanField(),
                )
            )
        fetched = rows.order_by(*CONTAINMENT_ORDER).values_list(*plan.fields)[: plan.limit]
        return tuple((order_key(values), plan.prepare(values[:-1])) for values in fetched)

    def neighbours(self, plan: NeighbourPlan) -> list[NeighbourRow]:
        """The plan's rows, each once, in the order they were found (trigram, vector, key, ids).

        One statement: each part keeps its own order and limit, its rows numbered in that order."""
        sql, params = neighbour_statement(plan)
        found: dict[int, NeighbourRow] = {}
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            for values in cursor.fetchall():
                found.setdefault(values[0], NeighbourRow._make(values))
        return list(found.values())


def _with_exact_vector_tier(hits: list[Hit], exact: list[Hit]) -> list[Hit]:
    """`hits` with their vector ranks and scores replaced by those of `exact` (the exact scan's hits of the
    vector tier alone); a row only the walk found, and no other tier, is dropped."""
    merged = {hit.id: hit._replace(vector_rank=None, vector_score=None) for hit in hits}
    for hit in exact:
        known = merged.get(hit.id)
        merged[hit.id] = (
            hit
            if known is None
            else known._replace(vector_rank=hit.vector_rank, vector_score=hit.vector_score)
        )
    return [
        hit
        for hit in merged.values()
        if hit.vector_rank is not None or hit.fts_rank is not None or hit.trigram_rank is not None
    ]


def neighbour_statement(plan: NeighbourPlan) -> tuple[str, dict[str, Any]]:
    """The neighbour plan as one statement: trigram matches (`text % candidate` uses the (tenant, key, text)
    trigram GIN index), the nearest vectors of the plan's model, the same key, the given ids."""
    params: dict[str, Any] = {
        "tenant_id": int(plan.tenant_id),
        "scope_kind": plan.scope_kind,
        "scope_id": plan.scope_id,
        "statuses": [str(s) for s in plan.statuses],
        "text": plan.text,
        "limit": plan.limit,
    }
    scope = (
        "m.tenant_id = %(tenant_id)s AND m.scope_kind = %(scope_kind)s AND m.scope_id = %(scope_id)s"
        " AND m.status = ANY(%(statuses)s)"
    )
    if plan.types:
        scope += " AND m.type = ANY(%(types)s)"
        params["types"] = [str(t) for t in plan.types]
    distance = "NULL::float8"
    if plan.vector is not None:
        distance = "(m.embedding <=> %(vector)s::vector)"
        params["vector"] = vector_literal(plan.vector)
    tie = ", m.id" if plan.by_id else ""

    def part(number: int, condition: str, order: str = "", limited: bool = True) -> str:
        ordered = f"ORDER BY {order}" if order else ""
        return (
            f"(SELECT {number} AS part, row_number() OVER ({ordered}) AS position, m.id"
            f" FROM {Memory._meta.db_table} m"
            f" WHERE {scope} AND {condition} {ordered} {'LIMIT %(limit)s' if limited else ''})"
        )

    parts = [part(0, "m.text %% %(text)s", f"similarity(m.text, %(text)s) DESC{tie}")]
    if plan.vector is not None:
        near = "m.embedding IS NOT NULL AND m.embedding_model = %(model)s"
        params["model"] = plan.model
        if plan.max_distance is not None:
            near += f" AND {distance} <= %(max_distance)s"
            params["max_distance"] = plan.max_distance
        parts.append(part(1, near, f"{distance}{tie}"))
    if plan.key:
        parts.append(part(2, "m.key = %(key)s"))
        params["key"] = plan.key
    if plan.ids:
        parts.append(part(3, "m.id = ANY(%(ids)s::bigint[])", limited=False))
        params["ids"] = [int(i) for i in plan.ids]
    # The columns, the similarity and the distance once per row found, in the outer query: the vector's
    # literal (4 kB of text to parse) appears there and in the vector part's order only.
    sql = (
        f"SELECT m.id, m.key, m.text, m.status, similarity(m.text, %(text)s) AS trgm, {distance} AS distance"
        " FROM ("
        + " UNION ALL ".join(parts)
        + f") found JOIN {Memory._meta.db_table} m ON m.id = found.id ORDER BY found.part, found.position"
    )
    return sql, params


def like_patterns(terms: list[str]) -> list[str]:
    """`%term%` per term, with LIKE's wildcards escaped (`_` is a word character)."""
    return ["%" + t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for t in terms]


def containing(*, tenant_id: int, terms: list[str], live: Callable[[Any], Any]):
    """`live(rows of the tenant)` whose key or value contains any of `terms`, case-insensitively (`ILIKE ANY`; the
    tenant compared as bigint, the index's type, and only once). pg_trgm's tenant-led GIN index
    `memory_tenant_trgm` could serve it, but under the tenant wall it does not: `~~*` is not LEAKPROOF (it
    raises an error on a malformed pattern) and is left so (tickets/tenancy/wall.py), so the tenant's rows are checked
    one by one along its btree (about 160 ms on a 100k-row tenant)."""
    patterns = like_patterns(terms)
    condition = RawSQL(
        '("brain_memory"."tenant_id" = %s::bigint'
        ' AND ("brain_memory"."key" ILIKE ANY(%s) OR "brain_memory"."text" ILIKE ANY(%s)))',
        [int(tenant_id), patterns, patterns],
        output_field=BooleanField(),
    )
    return live(Memory.objects.all_tenants().filter(condition))


POSTGRES_BACKEND = PostgresBackend()
