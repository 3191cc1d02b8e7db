"""The PostgreSQL backend: the candidates of every tier of a recall plan in ONE statement, scored by
brain.search.scoring; the rows after the Client Brain window through the trigram index; the formation
judge's neighbours. Its SQL generates candidates through the indexes and computes no score of ours.

- `fts`: the rows matching the plan's tsquery, through the GIN index of the tenant's own lexeme keys
  (`tenant_lexemes`, brain.search.sql), each with its length and which scored lexemes it holds
  (`scoring.Bm25`). A row's score depends only on those two and falls with its length, so per set of held
  lexemes only the best `pool` rows by length (then id) can be among the tier's best `pool`: only those
  are sent. Scored by `ts_rank_cd` (LEXICAL_SCORING), the score
  is PostgreSQL's own, and the best `pool` are sent.
- `trigram`: per typo word, the rows whose text or key holds a similar word (pg_trgm's `word_similarity` at
  TRIGRAM_THRESHOLD, what `<%` tests), found through the GIN index of the tenant's own trigram keys
  (`tenant_trigrams`: the rows holding enough of the word's trigrams), each with its best `word_similarity`
  per word (`scoring.mean_similarity` averages them); or, for a scope small enough, the rows and scores the
  scope's vocabulary gave (brain.search.vocabulary), still under the filters.
- `vector`: the `pool` rows nearest the query embedding by pgvector's cosine distance, over rows embedded
  by the same model: through the tenant's own HNSW graph (brain.search.graphs) with iterative scans under the
  filters, or by an exact scan (`VECTOR_STRATEGY`; a tenant without a graph of its own is small, and always
  served exactly), each with its vector (`scoring.cosine_similarities`). The walk is asked for
  `hnsw.ef_search` rows passing the filters, the best `pool` of them kept; when it finds fewer, it was starved
  (the filters pass a share of the graph too small for `HNSW_MAX_SCAN_TUPLES`) or the filters pass no more,
  and the tier is run again as the exact scan, whose rows serve it when they differ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from brain.models import Memory

from .. import scoring
from ..graphs import has_graph, walk_size
from ..plan import RecallPlan
from ..scoped import (
    CONTAINMENT_ORDER,
    MAX_REMEMBERED_TERMS,
    ContainmentPlan,
    NeighbourPlan,
    NeighbourRow,
    Window,
    order_key,
)
from ..scoring import mean_similarity, tier_ranks, vector_norms
from ..sql import (
    KEYED_TERM_ROWS,
    hit_select,
    rows_holding_term,
    tenant_lexemes_query,
    trigram_candidates_query,
    tsquery_literal,
    vector_literal,
    vectors_from_send,
    where,
)
from ..types import Hit, SearchResult
from .base import SearchBackend, ranked_hits, scores_only

# Every candidate row, whichever tier found it: (tier, id, confidence, created_at, then what scoring needs:
# length and held lexemes; PostgreSQL's own score; best similarities per word; the vector).
_CANDIDATE = "{tier} AS tier, {id} AS id, {m}.confidence, {m}.created_at, {length} AS length, {mask} AS mask,"
_CANDIDATE += " {score}::float8 AS score, {bests} AS bests, {vector} AS vector"


class Conditions(NamedTuple):
    """The plan's filters as conditions on `brain_memory m` (`sql.where`), one parameter set: `plain` for
    statements that find rows through an index led by the tenant or through its graph, `keyed` for those that
    find them through the tenant's own search keys."""

    plain: str
    keyed: str


def _candidate(tier: str, m: str = "m", **columns: str) -> str:
    values = {"length": "NULL::int", "mask": "NULL::text", "score": "NULL", "bests": "NULL::float4[]"}
    values |= {"vector": "NULL::bytea", "id": f"{m}.id", **columns}
    return _CANDIDATE.format(tier=f"'{tier}'", m=m, **values)


def _fts_candidates(plan: RecallPlan, conditions: Conditions, params: dict) -> str:
    lexical = plan.lexical
    operator = "|" if lexical.match == "or" else "&"
    # Matched through the tenant's own keys (`tenant_lexemes`): the postings read are this tenant's only.
    params["tsq"] = tenant_lexemes_query(plan.filters.tenant_id, lexical.match_lexemes, operator)
    source, matched = "brain_memory m", f"{conditions.keyed} AND m.tenant_lexemes @@ %(tsq)s::tsquery"
    if lexical.and_limit is not None:
        # Every lexeme is common, so every match holds the same lexemes and only its length tells
        # them apart: score at most AND_MATCH_LIMIT of them, not the tens of thousands that match.
        params["and_limit"] = lexical.and_limit
        source, matched = (
            f"(SELECT m.id, m.search_vector, m.confidence, m.created_at FROM {source} WHERE {matched}"
            " LIMIT %(and_limit)s) m",
            "TRUE",
        )
    if plan.config["LEXICAL_SCORING"] != "bm25":
        params["rank_tsq"] = f" {operator} ".join(map(tsquery_literal, lexical.match_lexemes))
        score = "ts_rank_cd(m.search_vector, %(rank_tsq)s::tsquery)"
        return f"""(SELECT {_candidate("fts", score=score)} FROM {source} WHERE {matched}
    ORDER BY score DESC, m.id LIMIT %(pool)s)"""
    # Which of the scored lexemes (in their sorted order) each row holds, as a string of 0s and 1s.
    held = []
    for n, lexeme in enumerate(lexical.scored):
        params[f"lex_{n:02d}"] = tsquery_literal(lexeme)
        held.append(f"(m.search_vector @@ %(lex_{n:02d})s::tsquery)::int")
    mask = f"array_to_string(ARRAY[{', '.join(held)}], '')"
    best = "length(m.search_vector), m.id" if plan.bm25().shorter_is_better else "m.id"
    return f"""(SELECT {_candidate("fts", "c", length="c.length", mask="c.mask")} FROM (
    SELECT m.id, m.confidence, m.created_at, length(m.search_vector) AS length, {mask} AS mask,
      row_number() OVER (PARTITION BY {mask} ORDER BY {best}) AS nth
    FROM {source} WHERE {matched}) c
  WHERE c.nth <= %(pool)s)"""


def _trigram_candidates(plan: RecallPlan, conditions: Conditions, params: dict) -> str:
    # Scored by the scope's vocabulary (brain.search.vocabulary): its rows and scores as they are, still
    # under the filters.
    if plan.lexical.trigram_scored is not None:
        scored = plan.lexical.trigram_scored[: plan.pool]
        params.update(
            trigram_scores=[score for score, _ in scored], trigram_ids=[memory_id for _, memory_id in scored]
        )
        return f"""(SELECT {_candidate("trigram", score="t.score")}
    FROM unnest(%(trigram_ids)s::bigint[], %(trigram_scores)s::float8[]) AS t(id, score)
    JOIN brain_memory m ON m.id = t.id WHERE {conditions.plain})"""
    words = [f"word_{i:02d}" for i in range(len(plan.lexical.trigram_words))]
    params.update(zip(words, plan.lexical.trigram_words, strict=True))
    params["trigram_threshold"] = float(plan.config["TRIGRAM_THRESHOLD"])
    # One condition per query word, so a typo in one word still finds the memory (a whole-query
    # similarity is diluted by the other words). Candidates come word by word, so each lookup is one
    # index scan (a single OR over the words made the planner filter every tenant row through
    # word_similarity); pg_trgm's similarity is then computed only for the candidates.
    # A word's candidates found through the trigram keys test the tenant row by row (`Conditions.keyed`).
    holding = {w: _holding_trigrams(plan, w, params) for w in words}
    found = {w: conditions.keyed + keys if keys else conditions.plain for w, keys in holding.items()}
    candidates = " UNION ".join(
        f"(SELECT m.id FROM brain_memory m WHERE {found[w]}"
        f" AND (word_similarity(%({w})s, m.text) >= %(trigram_threshold)s::float8"
        f" OR word_similarity(%({w})s, m.key) >= %(trigram_threshold)s::float8) LIMIT %(pool)s)"
        for w in words
    )
    bests = ", ".join(
        f"greatest(word_similarity(%({w})s, m.text), word_similarity(%({w})s, m.key))" for w in words
    )
    return f"""(SELECT {_candidate("trigram", bests=f"ARRAY[{bests}]")}
    FROM brain_memory m JOIN ({candidates}) c ON c.id = m.id)"""


def _vector_candidates(plan: RecallPlan, conditions: Conditions, params: dict) -> str:
    params.update(qvec=vector_literal(plan.query_vector()), embedding_model=plan.embedding_model)
    nearest = f"""SELECT m.id, m.confidence, m.created_at, m.embedding <=> %(qvec)s::vector AS distance
      FROM brain_memory m
      WHERE {conditions.plain} AND m.embedding IS NOT NULL AND m.embedding_model = %(embedding_model)s"""
    if plan.strategy == "exact":
        # "+ 0" hides the operator from the planner: the exact strategy never walks an HNSW graph.
        chosen = f"{nearest} ORDER BY (m.embedding <=> %(qvec)s::vector) + 0, m.id LIMIT %(pool)s"
        walked = "NULL::int"
    else:
        # The walk (the tenant's own graph, brain.search.graphs) is asked for `walk` rows that pass the
        # filters, `hnsw.ef_search` of them: as many as an unfiltered walk keeps, whatever share of the graph
        # the filters pass. The best `pool` of them are kept, and how many it found (`walked`) tells
        # `search` whether the walk was starved.
        params["walk"] = _walk(plan)
        chosen = f"""SELECT w.id, w.confidence, w.created_at, count(*) OVER () AS walked FROM (
      {nearest} ORDER BY m.embedding <=> %(qvec)s::vector LIMIT %(walk)s) w
      ORDER BY w.distance, w.id LIMIT %(pool)s"""
        walked = "m.walked::int"
    # The vectors of the nearest rows only, read by primary key once they are chosen (in the ordering query,
    # the planner would send every scanned row's vector through the sort).
    return f"""(SELECT {_candidate("vector", length=walked, vector="vector_send(e.embedding)")}
    FROM ({chosen}) m
    JOIN brain_memory e ON e.id = m.id)"""


def _walk(plan: RecallPlan) -> int:
    """The rows that pass the filters a walk is asked for: `hnsw.ef_search` of them (at least the pool)."""
    return max(int(plan.config["HNSW_EF_SEARCH"]), plan.pool)


def _holding_trigrams(plan: RecallPlan, word: str, params: dict) -> str:
    """The condition that finds, through the tenant's own trigram keys (`tenant_trigrams`), the rows holding
    enough of the word's trigrams to be `<%`-similar to it; what it finds is tested with `word_similarity`
    (written as the function, not as `<%`, so the planner never serves it from `memory_tenant_trgm`, whose
    posting lists every tenant shares). "" when every row may match."""
    trigrams = plan.lexical.word_trigrams[params[word]]
    query = trigram_candidates_query(plan.filters.tenant_id, trigrams, params["trigram_threshold"])
    if query is None:
        return ""
    params[f"{word}_keys"] = query
    return f" AND m.tenant_trigrams @@ %({word}_keys)s::tsquery"


_CANDIDATES = {"fts": _fts_candidates, "trigram": _trigram_candidates, "vector": _vector_candidates}


# The candidate columns scoring reads; with `plan.details` the row's columns follow them (`hit_select`).
_SCORING_COLUMNS = 9


def candidate_statement(plan: RecallPlan) -> tuple[str, dict]:
    """The candidates of the plan's tiers as one statement, and its parameters. With `plan.details` each
    candidate carries the memory's columns too (a primary-key join), so the rows found need no second
    statement."""
    condition, params = where(plan.filters)
    conditions = Conditions(plain=condition, keyed=where(plan.filters, keyed=True)[0])
    params.update(query=plan.query, pool=plan.pool)
    parts = [
        _CANDIDATES[tier](plan, conditions, params)
        for tier in ("fts", "trigram", "vector")
        if tier in plan.tiers
    ]
    union = "\nUNION ALL\n".join(parts)
    if not plan.details:
        return union, params
    columns = hit_select((), plan.with_embedding)
    return f"SELECT c.*, {columns} FROM ({union}) c JOIN brain_memory m ON m.id = c.id", params


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
    if local:
        cursor.execute(
            "SELECT " + ", ".join("set_config(%s, %s, true)" for _ in local),
            [value for setting in local for value in setting],
        )


def _scored(plan: RecallPlan, rows: list[tuple]) -> tuple[dict[str, dict], dict[int, tuple]]:
    """The candidates scored (brain.search.scoring), per tier its best `pool` as {id: (rank, score)}; and
    each candidate's (confidence, created_at)."""
    by_tier: dict[str, list[tuple]] = {tier: [] for tier in plan.tiers}
    known: dict[int, tuple] = {}
    for tier, memory_id, confidence, created_at, *features in rows:
        by_tier[tier].append((memory_id, *features))
        known[memory_id] = (confidence, created_at)
    tiers = {}
    for tier, found in by_tier.items():
        if tier == "fts" and plan.config["LEXICAL_SCORING"] == "bm25":
            tiers[tier] = tier_ranks(_bm25_scores(plan, found), plan.pool)
        elif tier == "trigram" and plan.lexical.trigram_scored is None:
            tiers[tier] = tier_ranks(((mean_similarity(c[4]), c[0]) for c in found), plan.pool)
        elif tier == "vector":
            tiers[tier] = tier_ranks(_cosine_scores(plan, found), plan.pool)
        else:  # PostgreSQL's own ts_rank_cd, or the vocabulary's scores
            tiers[tier] = tier_ranks(((c[3], c[0]) for c in found), plan.pool)
    return tiers, known


def _bm25_scores(plan: RecallPlan, found: list[tuple]) -> list[tuple[float, int]]:
    bm25, scored = plan.bm25(), plan.lexical.scored
    totals: dict[str, float] = {}  # per set of held lexemes (few per query)
    out = []
    for memory_id, length, mask, *_ in found:
        total = totals.get(mask)
        if total is None:
            total = totals[mask] = bm25.total(
                lexeme for lexeme, bit in zip(scored, mask, strict=True) if bit == "1"
            )
        out.append((bm25.score(total, length), memory_id))
    return out


def _cosine_scores(plan: RecallPlan, found: list[tuple]) -> list[tuple[float, int]]:
    if not found:
        return []
    matrix = vectors_from_send([c[5] for c in found])
    similarity = scoring.cosine_similarities(matrix, vector_norms(matrix), plan.query_vector())
    return [(float(score), c[0]) for score, c in zip(similarity, found, strict=True)]


class PostgresBackend(SearchBackend):
    name = "postgres"
    in_transaction = True  # its tiers' settings are SET LOCAL (`set_local`)

    def supports(self, plan) -> bool:
        return True

    def search(self, cursor, plan: RecallPlan) -> SearchResult:
        if "vector" in plan.tiers and plan.strategy == "hnsw":
            tenant_id, config = plan.filters.tenant_id, plan.config
            if not has_graph(tenant_id):
                # A tenant without a graph of its own is small (brain.search.graphs): the exact scan serves it.
                plan = replace(plan, strategy="exact")
            else:
                ef = walk_size(tenant_id, int(config["HNSW_EF_SEARCH"]), int(config["HNSW_EF_SEARCH_ROWS"]))
                plan = replace(plan, config={**config, "HNSW_EF_SEARCH": ef})
        tiers, known, columns, walked = self._candidates(cursor, plan)
        strategy = plan.strategy if "vector" in plan.tiers else None
        if strategy == "hnsw" and walked < _walk(plan):
            # The walk found fewer rows passing the filters than it was asked for: either the filters pass no
            # more, or it was starved, stopped by `HNSW_MAX_SCAN_TUPLES` before it met them (filters that pass
            # a small share of the graph: a narrow scope of a large tenant). Either way the rows passing are
            # few beside the graph, so the exact scan is cheap; where it finds other rows than the walk, its
            # rows serve the tier, and every result's explanation says "exact".
            exact, exact_known, exact_columns, _ = self._candidates(
                cursor, replace(plan, tiers=("vector",), strategy="exact")
            )
            if set(exact["vector"]) != set(tiers["vector"]):
                tiers["vector"], strategy = exact["vector"], "exact"
                known |= exact_known
                columns |= exact_columns
        fields = ranked_hits(tiers, known)
        if not fields:
            return SearchResult([], strategy)
        if not plan.details:
            return SearchResult(scores_only(fields, known), strategy)
        hits = [Hit._make(columns[memory_id])._replace(**found) for memory_id, found in fields.items()]
        return SearchResult(hits, strategy)

    def _candidates(
        self, cursor, plan: RecallPlan
    ) -> tuple[dict[str, dict], dict[int, tuple], dict[int, tuple], int]:
        """Each tier's scored candidates, their (confidence, created_at), with `plan.details` their
        columns in `Hit`'s order, and how many rows passing the filters the vector tier's walk found."""
        sql, params = candidate_statement(plan)
        set_local(cursor, plan)
        cursor.execute(sql, params)
        rows = cursor.fetchall()
        columns = {row[1]: row[_SCORING_COLUMNS:] for row in rows} if plan.details else {}
        # The vector tier's rows carry the walk's count in their `length` column (every row the same).
        walked = next((row[4] for row in rows if row[0] == "vector" and row[4] is not None), 0)
        return (*_scored(plan, [row[:_SCORING_COLUMNS] for row in rows]), columns, walked)

    def window(self, plan: ContainmentPlan) -> Window:
        """The window read from the stored rows, every call (the in-memory backend caches it)."""
        fetched = list(
            plan.live(Memory.objects.for_tenant(plan.tenant_id))
            .order_by(*CONTAINMENT_ORDER)
            .values_list(*plan.fields)[: plan.window_size]
        )
        return Window(
            rows=tuple(plan.prepare(values[:-1]) for values in fetched),
            edge=order_key(fetched[-1]) if len(fetched) == plan.window_size else None,
        )

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

    def containment_query(self, plan: ContainmentPlan):
        """The live rows of the tenant holding any of the plan's terms, as the queryset PostgreSQL runs
        (unordered, unlimited: for EXPLAIN and tests of the statement)."""
        return containing(tenant_id=plan.tenant_id, terms=list(plan.terms), live=plan.live)

    def _term_matches(self, plan: ContainmentPlan, term: str) -> tuple[tuple[tuple, Any], ...]:
        """The term's first `plan.limit` live rows in order. A word few rows hold (at most KEYED_TERM_ROWS) is
        found through the tenant's trigram keys, then those rows read by id; a common one by walking
        the order. Under the tenant wall `ILIKE` cannot use an index, so a word no row holds would otherwise
        read all of a large tenant's rows (150 ms at 100,000: README)."""
        rows = containing(tenant_id=plan.tenant_id, terms=[term], live=plan.live)
        with connection.cursor() as cursor:
            holding = rows_holding_term(cursor, tenant_id=plan.tenant_id, term=term, limit=KEYED_TERM_ROWS)
        if holding is not None:
            # Ordered and cut at the window's edge here: with the edge in the statement the planner walks the
            # order's index from the edge, past most of the tenant's rows, instead of reading these few.
            found = [] if not holding else rows.filter(id__in=holding).values_list(*plan.fields)
            fetched = sorted(
                (values for values in found if plan.after is None or order_key(values) < plan.after),
                key=order_key,
                reverse=True,
            )[: plan.limit]
        else:
            if plan.after is not None:
                rows = rows.filter(
                    RawSQL(
                        '("brain_memory"."confidence", "brain_memory"."created_at", "brain_memory"."id")'
                        " < (%s, %s, %s)",
                        list(plan.after),
                        output_field=BooleanField(),
                    )
                )
            fetched = rows.order_by(*CONTAINMENT_ORDER).values_list(*plan.fields)[: plan.limit]
        return tuple((order_key(values), plan.prepare(values[:-1])) for values in fetched)

    def neighbours(self, plan: NeighbourPlan) -> list[NeighbourRow]:
        """The plan's rows, each once, in the order they were found (trigram, vector, key, ids).

        One statement: each part keeps its own order and limit, its rows numbered in that order."""
        if not (plan.nearest or plan.key or plan.ids):
            return []
        sql, params = neighbour_statement(plan)
        found: dict[int, NeighbourRow] = {}
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            for values in cursor.fetchall():
                found.setdefault(values[0], NeighbourRow._make(values))
        return list(found.values())


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

    parts = [part(0, "m.text %% %(text)s", f"similarity(m.text, %(text)s) DESC{tie}")] if plan.nearest else []
    if plan.vector is not None and plan.nearest:
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
    one by one along its btree (slow on a large tenant; the README measures it)."""
    patterns = like_patterns(terms)
    condition = RawSQL(
        '("brain_memory"."tenant_id" = %s::bigint'
        ' AND ("brain_memory"."key" ILIKE ANY(%s) OR "brain_memory"."text" ILIKE ANY(%s)))',
        [int(tenant_id), patterns, patterns],
        output_field=BooleanField(),
    )
    return live(Memory.objects.all_tenants().filter(condition))


POSTGRES_BACKEND = PostgresBackend()
