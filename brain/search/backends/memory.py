"""The in-memory backend: plans over rows this process already holds, cached under their memory state. It
generates candidates from its caches; brain.search.scoring scores them, as it scores PostgreSQL's.

- Full text (BM25), vector and trigram tiers over a scope under BM25_SAMPLE rows (an agent's memories, a
  small tenant: the runtime context path):
  - full text: the rows matching the plan's lexemes, found through the postings of the scope's cached
    statistics (`ScopeStatistics`, read once per memory state by the planner), each with its length and
    the scored lexemes it holds (`scoring.Bm25`);
  - the vector tier: the exact scan over the scope's vectors of the plan's model
    (`scoring.cosine_similarities`, ordered by similarity then id);
  - the trigram tier as the scope's vocabulary found and scored it in planning (brain.search.vocabulary);
  the rows found come with their columns from the same cache (`SCOPE_ROWS`: the scope's rows and vectors,
  read once per memory state, which any write to the scope changes); with MMR (which reads the rows'
  vectors), from one primary-key read.
- Containment (the Client Brain keyword tier) over the window: the tenant's first rows in the
  containment order (cached), indexed by their distinct words.
- Not the formation judge's neighbours: its backstop must read the stored rows, never a cache.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from brain.caches import StateCache

from .. import scoring
from ..plan import RecallPlan
from ..scoped import ContainmentPlan, NeighbourPlan, NeighbourRow, Window
from ..scoring import tier_ranks, vector_norms
from ..sql import hit_select, hits_by_id, vector_from_send, where
from ..types import Hit, SearchResult
from .base import SearchBackend, ranked_hits, scores_only


@dataclass(frozen=True)
class ScopeRows:
    """A scope's filtered rows as hits without ranks (their columns, no embedding), by id; and those
    embedded by one model: their ids (ascending), vectors (float32, as pgvector stores them) and norms."""

    hits: dict[int, Hit]
    ids: np.ndarray
    matrix: np.ndarray
    norms: np.ndarray


SCOPE_ROWS = StateCache(
    "search-scope-rows",
    size=32,  # at most BM25_SAMPLE (1,000) rows, about 2 kB each with its vector: 2 MB an entry, 64 MB in all
    keyed_on="the filters (their values), the embedding model, and the memory state of the searched scopes",
)

WINDOWS = StateCache(
    "containment-windows",
    size=16,
    keyed_on="(tenant, plan name, window size) and the memory state of the tenant scope",
)


class MemoryBackend(SearchBackend):
    name = "memory"

    def supports(self, plan) -> bool:
        """Full text (BM25), vector and trigram tiers over a scope whose rows the statistics hold, the
        trigram tier when its vocabulary scored it; every containment plan (over its window); no neighbour
        plan (the backstop reads the stored rows)."""
        if isinstance(plan, ContainmentPlan):
            return True
        if isinstance(plan, NeighbourPlan):
            return False
        tiers = set(plan.tiers)
        return (
            bool(tiers)
            and tiers <= {"fts", "vector", "trigram"}
            and plan.statistics is not None
            and plan.statistics.rows is not None
            and ("trigram" not in tiers or plan.lexical.trigram_scored is not None)
            and ("fts" not in tiers or plan.config["LEXICAL_SCORING"] == "bm25")
            and ("vector" not in tiers or plan.state is not None)
        )

    def search(self, cursor, plan: RecallPlan) -> SearchResult:
        """Each tier's ranks (module docstring), then the rows found with their columns (`plan.details`).
        When every lexeme is common, all full-text matches are scored (AND_MATCH_LIMIT bounds PostgreSQL's
        work; here there is little). The vector tier is always the exact scan."""
        tiers: dict[str, dict] = {}
        known: dict[int, tuple] = {}  # id -> (confidence, created_at)
        if "fts" in plan.tiers:
            tiers["fts"] = self.fts_ranks(plan, known)
        if "trigram" in plan.tiers:
            tiers["trigram"] = self.trigram_ranks(cursor, plan, known)
        if "vector" in plan.tiers:
            tiers["vector"] = self.vector_ranks(cursor, plan, known)
        strategy = "exact" if "vector" in plan.tiers else None
        fields = ranked_hits(tiers, known)
        if not fields:
            return SearchResult([], strategy)
        if not plan.details:
            return SearchResult(scores_only(fields, known), strategy)
        if plan.with_embedding:  # MMR reads the rows' vectors: one primary-key read
            hits = hits_by_id(
                cursor, filters=plan.filters, ids=list(fields), with_embedding=True, ranks=fields
            )
            return SearchResult(hits, strategy)
        rows = self.scope_rows(cursor, plan).hits
        # A row the statistics hold but the rows do not was deleted or filtered out between the two reads.
        hits = [rows[memory_id]._replace(**found) for memory_id, found in fields.items() if memory_id in rows]
        return SearchResult(hits, strategy)

    def fts_ranks(self, plan: RecallPlan, known: dict) -> dict[int, tuple[int, float]]:
        """{memory id: (rank, score)} of the best `plan.pool` matches; `known` gains their (confidence,
        created_at)."""
        lexical = plan.lexical
        rows, postings = lexical.statistics.rows, lexical.statistics.postings
        matched = [set(postings.get(lexeme, ())) for lexeme in frozenset(lexical.match_lexemes)]
        if not matched:  # no lexeme to match: AND holds for every row, OR for none (as subset / disjoint do)
            positions = set(range(len(rows))) if lexical.match == "and" else set()
        elif lexical.match == "and":
            positions = set.intersection(*matched)
        else:
            positions = set.union(*matched)
        # Each matched row's scored lexemes in their sorted order, walking the lexemes' postings rather than
        # every row's lexemes.
        held: dict[int, list[str]] = {position: [] for position in positions}
        for lexeme in lexical.scored:
            for position in postings.get(lexeme, ()):
                if position in held:
                    held[position].append(lexeme)
        bm25, scored = plan.bm25(), []
        for position, lexemes in held.items():
            row = rows[position]
            scored.append((bm25.score(bm25.total(lexemes), row.length), row.id))
            known[row.id] = (row.confidence, row.created_at)
        return tier_ranks(scored, plan.pool)

    def scope_rows(self, cursor, plan: RecallPlan) -> ScopeRows:
        """The scope's rows with their columns and the vectors of the plan's model, cached under its memory
        state (a write to the scope, of any column, changes the state)."""
        model = plan.embedding_model if "vector" in plan.tiers else None
        return SCOPE_ROWS.get((plan.filters, model), plan.state, lambda: _load_rows(cursor, plan, model))

    def trigram_ranks(self, cursor, plan: RecallPlan, known: dict) -> dict[int, tuple[int, float]]:
        """{memory id: (rank, score)}: the trigram tier as the scope's vocabulary scored it
        (brain.search.vocabulary), its first `plan.pool` rows. A row newer than the cached rows (written
        since the state was read) waits for the next call."""
        rows = self.scope_rows(cursor, plan).hits
        found = [(score, memory_id) for score, memory_id in plan.lexical.trigram_scored if memory_id in rows]
        ranks = tier_ranks(found[: plan.pool], plan.pool)
        known.update(
            (memory_id, (rows[memory_id].confidence, rows[memory_id].created_at)) for memory_id in ranks
        )
        return ranks

    def vector_ranks(self, cursor, plan: RecallPlan, known: dict) -> dict[int, tuple[int, float]]:
        """{memory id: (rank, score)} of the `plan.pool` rows nearest the query vector among the scope's
        rows of the plan's model: the exact scan."""
        rows = self.scope_rows(cursor, plan)
        if not len(rows.ids):
            return {}
        similarity = scoring.cosine_similarities(rows.matrix, rows.norms, plan.query_vector())
        nearest = np.lexsort((rows.ids, -similarity))[: plan.pool]  # by similarity, then id
        ranks = tier_ranks(((float(similarity[i]), int(rows.ids[i])) for i in nearest), plan.pool)
        known.update(
            (memory_id, (rows.hits[memory_id].confidence, rows.hits[memory_id].created_at))
            for memory_id in ranks
        )
        return ranks

    def window(self, plan: ContainmentPlan) -> Window:
        """The tenant's first `plan.window_size` live rows in containment order, read as PostgreSQL reads
        them, cached under `plan.state`."""
        from .postgres import POSTGRES_BACKEND

        return WINDOWS.get(
            (int(plan.tenant_id), plan.name, plan.window_size),
            plan.state,
            lambda: POSTGRES_BACKEND.window(plan),
        )

    def contains(self, plan: ContainmentPlan) -> list:
        """The window's first `plan.limit` rows holding any term, in order (`plan.after` is PostgreSQL's:
        the rows after the window)."""
        window = self.window(plan)
        positions = sorted({i for term in plan.terms for i in window.positions(term, plan.limit)})
        return [window.rows[i] for i in positions[: plan.limit]]

    def neighbours(self, plan: NeighbourPlan) -> list[NeighbourRow]:
        raise NotImplementedError("the formation backstop reads the stored rows, never a cache: PostgreSQL")


PAYLOAD = Hit._fields.index("payload")


def _parsed(payload):
    return json.loads(payload) if isinstance(payload, str) else payload


def _load_rows(cursor, plan: RecallPlan, model: str | None) -> ScopeRows:
    vector = (
        "CASE WHEN m.embedding_model = %(embedding_model)s THEN vector_send(m.embedding) END"
        if model
        else "NULL"
    )
    condition, params = where(plan.filters)
    cursor.execute(
        f"SELECT {hit_select((), False)}, {vector} FROM brain_memory m WHERE {condition} ORDER BY m.id",
        {**params, "embedding_model": model},
    )
    fetched = cursor.fetchall()
    # The payload parsed once (fuse hands each result its own copy).
    hits = {row[0]: Hit._make(row[:-1])._replace(payload=_parsed(row[PAYLOAD])) for row in fetched}
    embedded = [row for row in fetched if row[-1] is not None]
    if not embedded:
        return ScopeRows(hits, np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32), np.zeros(0))
    matrix = np.stack([vector_from_send(row[-1]) for row in embedded])
    return ScopeRows(
        hits=hits,
        ids=np.array([row[0] for row in embedded], dtype=np.int64),
        matrix=matrix,
        norms=vector_norms(matrix),
    )


MEMORY_BACKEND = MemoryBackend()
