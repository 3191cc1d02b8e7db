"""The in-memory backend: plans over rows this process already holds, cached under their memory state.

- Full text alone, BM25, over a scope under BM25_SAMPLE rows: scored from the scope's cached statistics
  (`ScopeStatistics.rows`, read once per memory state by the planner). The score is PostgreSQL's BM25 of
  the PostgreSQL backend, the same float operations in the same order; the contract tests hold the two
  to the same ranks and scores.
- Containment (the Client Brain keyword tier) over the window: the tenant's first rows in the
  containment order, indexed by their distinct words.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass, field

from brain.caches import StateCache
from brain.models import Memory

from ..plan import RecallPlan
from ..scoped import CONTAINMENT_ORDER, MAX_REMEMBERED_TERMS, ContainmentPlan, order_key
from ..types import Hit
from .base import SearchBackend
from .postgres import hits_by_id

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


WINDOWS = StateCache(
    "containment-windows",
    size=16,
    keyed_on="(tenant, plan name, window size) and the memory state of the tenant scope",
)


class MemoryBackend(SearchBackend):
    name = "memory"

    def supports(self, plan) -> bool:
        """Full text alone with BM25 over a scope whose rows the statistics hold; every containment plan
        (over its window)."""
        if isinstance(plan, ContainmentPlan):
            return True
        return (
            plan.tiers == ["fts"]
            and plan.lexical is not None
            and plan.lexical.statistics.rows is not None
            and plan.config["LEXICAL_SCORING"] == "bm25"
        )

    def search(self, cursor, plan: RecallPlan) -> list[Hit]:
        """The full-text tier alone, scored over the scope's cached rows; then, with `plan.details`, one
        primary-key read of the rows it returns. When every lexeme is common, all matches are scored
        (AND_MATCH_LIMIT bounds PostgreSQL's work; here there is little)."""
        ranks = self.fts_ranks(plan)
        if not ranks:
            return []
        if not plan.details:
            return [
                Hit(memory_id, confidence, created_at, rank, score)
                for memory_id, (rank, score, confidence, created_at) in ranks.items()
            ]
        return hits_by_id(
            cursor,
            where=plan.filters.where,
            params=plan.filters.params,
            ids=list(ranks),
            with_embedding=plan.with_embedding,
            ranks=ranks,
        )

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
        hits = []
        for position in sorted(positions):
            row = rows[position]
            total = 0.0
            for lexeme in scored:
                if lexeme in row.lexemes:
                    total += idf[lexeme]
            hits.append((total * (k1 + 1) / (1 + k1 * (1 - b + b * row.length / avg_len)), row.id, row))
        hits.sort(key=lambda hit: (-hit[0], hit[1]))
        ranks: dict[int, tuple] = {}
        previous_score, previous_rank = None, 0
        for position, (score, memory_id, row) in enumerate(hits[: plan.pool], start=1):
            # rank(): ties share the rank of the first of them.
            rank = previous_rank if score == previous_score else position
            ranks[memory_id] = (rank, score, row.confidence, row.created_at)
            previous_score, previous_rank = score, rank
        return ranks

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


MEMORY_BACKEND = MemoryBackend()
