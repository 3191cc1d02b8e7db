"""The retrieval engine: one engine over the memory table, with a backend per storage (as Wagtail's
search backends; issue 12, DESIGN.md decision 12).

A query is planned (`plan.py`: the caller's arguments checked, the filters as values (`filters.py`), the
lexical plan: each query word's lexemes, their frequencies and IDF in the filtered rows, which words need
typo matching; a frozen, storage-neutral value), executed by a backend (`backends/`: each generates its
tiers' candidates, PostgreSQL through its indexes with the filters compiled by `sql.py`, the in-memory
backend from its caches; every backend scores them with `scoring.py`, where every score is defined once,
and returns `Hit` values in a `SearchResult`), fused (`fuse.py`: weighted reciprocal rank fusion plus
confidence and recency features, as `RecalledMemory` results or, in `recall_scores`, as scores alone) and
post-processed (`post.py`: the graph tier, MMR, the optional reranker). `engine.py` holds the entry
points. Beside ranked retrieval, two scoped plans (`scoped.py`): containment, the Client Brain keyword
tier (case-insensitive containment in the two bounded tiers of the spec), and neighbours, the formation
judge's neighbour and backstop queries.

Tiers: `fts` (full text on `search_vector`, BM25 over lexeme presence, or PostgreSQL's `ts_rank_cd`),
`trigram` (pg_trgm `word_similarity` of the words full text found nowhere: typos, partial words), `vector`
(cosine similarity to the query's embedding; its nearest rows found by pgvector through the tenant's own
HNSW graph with iterative scans (`graphs.py`: one per tenant of `TENANT_GRAPH_MIN_ROWS` embedded rows), or
by an exact scan: `VECTOR_STRATEGY`, and always for a tenant without a graph).

The backend rule (`backends.get_search_backend`), explicit:
- The in-memory backend (`backends/memory.py`) serves a recall plan when (1) the filtered rows number
  fewer than `BM25_SAMPLE`, so the planner's statistics, cached per process under the rows' memory state,
  hold every row (an agent's memories, a small tenant: the runtime context path; a vector-only plan reads
  the same statistics to know), (2) full text, if a tier, is scored by BM25 (`LEXICAL_SCORING`), and (3) a
  trigram tier, if any, was scored by the scope's vocabulary (`TRIGRAM_VOCABULARY`, brain.search.vocabulary:
  pg_trgm's word similarity computed word by word, no statement). Full text is matched from the statistics,
  the vector tier is an exact scan of the scope's vectors, and the rows come with their columns from a cache
  of the scope's rows (`SCOPE_ROWS`, under the same memory state). It serves every containment plan over the
  window, the tenant's first `BRAIN_CLIENT_BRAIN_KEYWORD_WINDOW` rows in containment order (cached the same
  way); the rows after the window go to PostgreSQL.
- PostgreSQL (`backends/postgres.py`) serves every other plan (in a transaction, for its `SET LOCAL`s): a
  scope of `BM25_SAMPLE` rows or more, `ts_rank_cd` scoring, a trigram tier over every row, the rows after
  a containment window, and the judge's neighbour queries (the backstop must read the stored rows, never a
  cache).
- `BRAIN_RECALL["IN_MEMORY"] = False` sends every recall plan to PostgreSQL: the in-memory backend is a
  speed-up only; both backends give the same results (the same scorer on the same candidates), which the
  contract tests (tests/brain/search/test_backends.py) hold every backend to.

PostgreSQL finds the lexical tiers' rows through keys that carry the tenant (`tenant_lexemes`,
`tenant_trigrams`: `sql.py`, migration 0019), so the work of a tenant's search, and the plan chosen for it,
never depend on another tenant's rows (issue 29: a search for a word another tenant used a lot was slower).

Contract: read-only, tenant-scoped (every tier filters on `tenant_id`; a row of another tenant can never
be returned), never returns a row whose confidence is NaN, infinite or outside the range. Raises
`RecallInputError` (a `ValueError`) for input a caller must fix.
"""

from .backends import get_search_backend
from .engine import contained, containment_query, neighbours, recall, recall_scores, window_rows
from .post import Reranker, get_reranker
from .scoped import ContainmentPlan, NeighbourPlan, NeighbourRow
from .types import DEFAULTS, MODES, RecalledMemory, RecallInputError, RecallScores, recall_settings

__all__ = [
    "DEFAULTS",
    "MODES",
    "ContainmentPlan",
    "NeighbourPlan",
    "NeighbourRow",
    "RecallInputError",
    "RecallScores",
    "RecalledMemory",
    "Reranker",
    "contained",
    "containment_query",
    "get_reranker",
    "get_search_backend",
    "neighbours",
    "recall",
    "recall_scores",
    "recall_settings",
    "window_rows",
]
