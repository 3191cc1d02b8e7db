"""The in-memory backend: plans over rows this process already holds, cached under their memory state.

- Full text (BM25), vector and trigram tiers over a scope under BM25_SAMPLE rows (an agent's memories, a
  small tenant: the runtime context path):
  - full text scored from the scope's cached statistics (`ScopeStatistics.rows`, read once per memory
    state by the planner): PostgreSQL's BM25 of the PostgreSQL backend, the same float operations in the
    same order; the contract tests hold the two to the same ranks and scores;
  - the vector tier as the exact scan over the scope's vectors of the plan's model: pgvector's cosine
    distance, ordered by distance then id as the SQL orders it (scores agree with pgvector's to float32
    rounding, about 1e-7);
  - the trigram tier as the scope's vocabulary scored it in planning (brain.search.vocabulary: pg_trgm's
    word similarity, word by word);
  the rows found come with their columns from the same cache (`SCOPE_ROWS`: the scope's rows and vectors,
  read once per memory state, which any write to the scope changes); with MMR (which reads the rows'
  vectors), from one primary-key read.
- Containment (the Client Brain keyword tier) over the window: the tenant's first rows in the
  containment order, indexed by their distinct words.
"""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np

from brain.caches import StateCache
from brain.models import Memory

from ..fuse import vector_from_send
from ..plan import RecallPlan
from ..scoped import CONTAINMENT_ORDER, MAX_REMEMBERED_TERMS, ContainmentPlan, order_key
from ..types import Hit
from .base import SearchBackend
from .postgres import hit_select, hits_by_id

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
    keyed_on="the filters (SQL and parameters), the embedding model, and the memory state of the searched scopes",
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
        trigram tier when its vocabulary scored it; every containment plan (over its window)."""
        if isinstance(plan, ContainmentPlan):
            return True
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

    def search(self, cursor, plan: RecallPlan) -> list[Hit]:
        """Each tier's ranks (module docstring), then the rows found with their columns (`plan.details`).
        When every lexeme is common, all full-text matches are scored (AND_MATCH_LIMIT bounds PostgreSQL's
        work; here there is little)."""
        ranks: dict[int, dict] = {}
        known: dict[int, tuple] = {}  # id -> (confidence, created_at)
        tiers = []
        if "fts" in plan.tiers:
            tiers.append(("fts", self.fts_ranks(plan)))
        if "trigram" in plan.tiers:
            tiers.append(("trigram", self.trigram_ranks(cursor, plan)))
        if "vector" in plan.tiers:
            tiers.append(("vector", self.vector_ranks(cursor, plan)))
            plan.strategy = "exact"  # the explanation says how the vector tier was served
        for tier, tier_ranks in tiers:
            for memory_id, (rank, score, confidence, created_at) in tier_ranks.items():
                ranks.setdefault(memory_id, {}).update({f"{tier}_rank": rank, f"{tier}_score": score})
                known[memory_id] = (confidence, created_at)
        if not ranks:
            return []
        if not plan.details:
            return [Hit(memory_id, *known[memory_id], **fields) for memory_id, fields in ranks.items()]
        if plan.with_embedding:  # MMR reads the rows' vectors: one primary-key read
            return hits_by_id(
                cursor,
                where=plan.filters.where,
                params=plan.filters.params,
                ids=list(ranks),
                with_embedding=True,
                ranks=ranks,
            )
        rows = self.scope_rows(cursor, plan).hits
        # A row the statistics hold but the rows do not was deleted or filtered out between the two reads.
        return [
            rows[memory_id]._replace(**fields) for memory_id, fields in ranks.items() if memory_id in rows
        ]

    def fts_ranks(self, plan: RecallPlan) -> dict[int, tuple]:
        """{memory id: (rank, score, confidence, created_at)} of the best `plan.pool` matches, best first."""
        lexical, config = plan.lexical, plan.config
        idf, scored = lexical.idf, lexical.scored
        k1, b, avg_len = config["BM25_K1"], config["BM25_B"], lexical.avg_len
        rows, postings = lexical.statistics.rows, lexical.statistics.postings
        matched = [set(postings.get(lexeme, ())) for lexeme in frozenset(lexical.match_lexemes)]
        every = lexical.match == "and"
        if not matched:  # no lexeme to match: AND holds for every row, OR for none (as subset / disjoint do)
            positions = set(range(len(rows))) if every else set()
        elif every:
            positions = set.intersection(*matched)
        else:
            positions = set.union(*matched)
        # Each matched row's IDFs summed lexeme by lexeme in `scored` order (PostgreSQL's order), walking
        # the lexemes' postings rather than every row's lexemes.
        totals = dict.fromkeys(positions, 0.0)
        for lexeme in scored:
            weight = idf[lexeme]
            for position in postings.get(lexeme, ()):
                if position in totals:
                    totals[position] += weight
        hits = []
        for position, total in totals.items():
            row = rows[position]
            score = total * (k1 + 1) / (1 + k1 * (1 - b + b * row.length / avg_len))
            hits.append((score, row.id, row.confidence, row.created_at))
        hits.sort(key=lambda hit: (-hit[0], hit[1]))
        return _ranked(hits[: plan.pool])

    def scope_rows(self, cursor, plan: RecallPlan) -> ScopeRows:
        """The scope's rows with their columns and the vectors of the plan's model, cached under its memory
        state (a write to the scope, of any column, changes the state)."""
        model = plan.embedding_model if "vector" in plan.tiers else None
        return SCOPE_ROWS.get((*plan.filters.key, model), plan.state, lambda: _load_rows(cursor, plan, model))

    def trigram_ranks(self, cursor, plan: RecallPlan) -> dict[int, tuple]:
        """{memory id: (rank, score, confidence, created_at)}: the trigram tier as the scope's vocabulary
        scored it (brain.search.vocabulary), its first `plan.pool` rows. A row newer than the cached rows
        (written since the state was read) waits for the next call."""
        rows = self.scope_rows(cursor, plan).hits
        found = [
            (score, memory_id, rows[memory_id].confidence, rows[memory_id].created_at)
            for score, memory_id in plan.lexical.trigram_scored
            if memory_id in rows
        ]
        return _ranked(found[: plan.pool])

    def vector_ranks(self, cursor, plan: RecallPlan) -> dict[int, tuple]:
        """{memory id: (rank, score, confidence, created_at)} of the `plan.pool` rows nearest the query
        vector among the scope's rows of the plan's model: the exact scan's order (distance, then id)."""
        rows = self.scope_rows(cursor, plan)
        if not len(rows.ids):
            return {}
        query = plan.query_vector()
        # pgvector's cosine distance: the dot product over the norms' product, clamped to [-1, 1].
        similarity = (rows.matrix @ query).astype(np.float64) / (
            rows.norms * float(np.linalg.norm(query.astype(np.float64)))
        )
        distance = 1.0 - np.clip(np.nan_to_num(similarity, nan=-1.0), -1.0, 1.0)
        order = np.lexsort((rows.ids, distance))[: plan.pool]  # ORDER BY distance, id
        found = []
        for i in order:
            hit = rows.hits[int(rows.ids[i])]
            found.append((1.0 - float(distance[i]), hit.id, hit.confidence, hit.created_at))
        return _ranked(found)

    def window(self, plan: ContainmentPlan) -> Window:
        """The tenant's first `plan.window_size` live rows in containment order, cached under `plan.state`."""
        return WINDOWS.get(
            (int(plan.tenant_id), plan.name, plan.window_size), plan.state, lambda: self._load_window(plan)
        )

    def _load_window(self, plan: ContainmentPlan) -> Window:
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
        """The window's first `plan.limit` rows holding any term, in order."""
        window = self.window(plan)
        positions = sorted({i for term in plan.terms for i in window.positions(term, plan.limit)})
        return [window.rows[i] for i in positions[: plan.limit]]


def _ranked(hits: list[tuple]) -> dict[int, tuple]:
    """(score, id, confidence, created_at) best first -> {id: (rank, score, confidence, created_at)}, ranked
    as SQL's rank() ranks them: ties share the rank of the first of them."""
    ranks: dict[int, tuple] = {}
    previous_score, previous_rank = None, 0
    for position, (score, memory_id, confidence, created_at) in enumerate(hits, start=1):
        rank = previous_rank if score == previous_score else position
        ranks[memory_id] = (rank, score, confidence, created_at)
        previous_score, previous_rank = score, rank
    return ranks


PAYLOAD = Hit._fields.index("payload")


def _parsed(payload):
    return json.loads(payload) if isinstance(payload, str) else payload


def _load_rows(cursor, plan: RecallPlan, model: str | None) -> ScopeRows:
    vector = (
        "CASE WHEN m.embedding_model = %(embedding_model)s THEN vector_send(m.embedding) END"
        if model
        else "NULL"
    )
    cursor.execute(
        f"SELECT {hit_select((), False)}, {vector} FROM brain_memory m WHERE {plan.filters.where} ORDER BY m.id",
        {**plan.filters.params, "embedding_model": model},
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
        norms=np.linalg.norm(matrix.astype(np.float64), axis=1),
    )


MEMORY_BACKEND = MemoryBackend()
