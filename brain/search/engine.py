"""The engine's entry points: `recall` and `recall_scores` (plan → execute → fuse → post-process), and the
scoped plans `contained` (the Client Brain keyword tier), `window_rows` and `neighbours` (the judge)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from typing import Any

import numpy as np
from django.db import connection, transaction

from brain.memory_state import memory_state

from .backends import MEMORY_BACKEND, POSTGRES_BACKEND, SearchBackend, get_search_backend
from .filters import filters_for
from .fuse import fuse_results, fuse_scores, own_payload, round_explanation
from .plan import RecallPlan, plan_lexical, scope_statistics
from .post import expand_graph, get_reranker, mmr, rerank
from .scoped import ContainmentPlan, NeighbourPlan, NeighbourRow
from .types import (
    MAX_LIMIT,
    MODES,
    TIERS_BY_MODE,
    VECTOR_STRATEGIES,
    RecalledMemory,
    RecallInputError,
    RecallScores,
    SearchResult,
    recall_settings,
)


def _checked_limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise RecallInputError(f"limit must be an integer from 1 to {MAX_LIMIT}.")
    return limit


def plan_recall(
    *,
    tenant_id: int,
    query: str,
    limit: int,
    mode: str,
    details: bool,
    with_embedding: bool,
    config: dict[str, Any],
    scope_kind: str | None = None,
    scope_ids: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    statuses: Sequence[str] | None = ("active",),
    strengths: Sequence[str] | None = None,
    categories: Sequence[str] | None = None,
    confidence_range: Sequence[float] | None = None,
    query_embedding: Sequence[float] | None = None,
    embedding_model: str | None = None,
) -> RecallPlan | None:
    """The checked, planned query without its lexical part (see `_plan_lexical`); None: no tier to run."""
    if not isinstance(query, str) or not query.strip():
        raise RecallInputError("query is blank: pass the words to search for.")
    if mode not in MODES:
        raise RecallInputError(f"mode {mode!r} is not one of {', '.join(MODES)}.")
    _checked_limit(limit)
    strategy = config["VECTOR_STRATEGY"]
    if strategy not in VECTOR_STRATEGIES:
        raise RecallInputError(f"BRAIN_RECALL VECTOR_STRATEGY must be one of {VECTOR_STRATEGIES}")
    tiers = [t for t in TIERS_BY_MODE[mode] if config["WEIGHTS"].get(t, 0) > 0]
    if not tiers:
        return None
    vector = model = None
    if "vector" in tiers:
        if query_embedding is None:
            from brain.embedders import embed_search_query

            # The query encoder (int8 for the ONNX MiniLM), compared with the rows of the stored model.
            vector, model = embed_search_query(query.strip())
        elif not embedding_model:
            raise RecallInputError(
                "query_embedding needs embedding_model (the name its vectors were made by)."
            )
        else:
            vector, model = query_embedding, embedding_model
    return RecallPlan(
        query=query.strip(),
        mode=mode,
        tiers=tuple(tiers),
        pool=max(config["CANDIDATES"], limit * config["CANDIDATES_PER_RESULT"]),
        filters=filters_for(
            tenant_id=tenant_id,
            scope_kind=scope_kind,
            confidence_range=confidence_range,
            scope_ids=scope_ids,
            types=types,
            statuses=statuses,
            strengths=strengths,
            categories=categories,
        ),
        config=config,
        strategy=strategy,
        with_embedding=with_embedding,
        details=details,
        embedding_model=model,
        vector=None if vector is None else np.asarray(vector, dtype=np.float32),
    )


def plan_scope(cursor, plan: RecallPlan) -> RecallPlan:
    """`plan` with the memory state and the scope's statistics (the lexical plan's, or, for a vector-only
    plan, whether the scope is small enough for the in-memory backend; cached under the state)."""
    filters, lexical = plan.filters, "fts" in plan.tiers or "trigram" in plan.tiers
    if not lexical and not plan.config["IN_MEMORY"]:
        return plan
    # Taken before any memory is read (brain.memory_state): what is cached under it is at least this new
    # (the lexical statistics; the in-memory backend's rows and vectors).
    state = memory_state(filters.tenant_id, scope_kind=filters.scope_kind, scope_ids=filters.scope_ids)
    plan = replace(plan, state=state)
    if lexical:
        return plan.with_lexical(
            plan_lexical(
                cursor,
                query=plan.query,
                filters=filters,
                config=plan.config,
                state=state,
                trigram="trigram" in plan.tiers,
            )
        )
    # A vector-only plan: whether the scope is small (cached per state).
    statistics, _ = scope_statistics(
        cursor, lexemes=[], filters=filters, sample=int(plan.config["BM25_SAMPLE"]), state=state
    )
    return replace(plan, statistics=statistics)


def execute(plan: RecallPlan, backend: SearchBackend | None = None) -> SearchResult:
    """The plan completed by `plan_scope`, then executed by `backend` (default: the one the rule picks,
    `get_search_backend`): its result, carrying the plan as executed."""
    with connection.cursor() as cursor:
        plan = plan_scope(cursor, plan)
        if not plan.tiers:
            return SearchResult([], None, plan)
        backend = backend or get_search_backend(plan)
        if not backend.in_transaction:  # no BEGIN and COMMIT: two round trips of a search served in memory
            result = backend.search(cursor, plan)
        else:
            # A transaction for the backend's SET LOCALs; inside a caller's transaction no savepoint is
            # needed (they last until that transaction ends, harmlessly) and none is taken.
            with transaction.atomic(savepoint=False):
                result = backend.search(cursor, plan)
    return replace(result, plan=plan)


def recall_scores(*, tenant_id: int, query: str, limit: int = 10, **filters: Any) -> RecallScores:
    """{memory id: score} for what `recall(tenant_id=, query=, limit=, rerank=False, **filters)` returns, best first:
    the same filters, modes and scores, for a caller that needs only the scores (the runtime's relevance
    check). Full text over a small scope then reads no memory row at all. No MMR, reranker or graph tier.
    `vector_floor`: in a mode with the vector tier, only the memories at least this similar to the query
    are scored (`fuse_scores`).
    """
    vector_floor = filters.pop("vector_floor", None)
    for name in ("mmr_lambda", "rerank", "expand_graph"):
        if filters.pop(name, None):
            raise RecallInputError(f"recall_scores does not take {name}: use recall().")
    plan = plan_recall(
        tenant_id=tenant_id,
        query=query,
        limit=limit,
        mode=filters.pop("mode", "hybrid"),
        details=False,
        with_embedding=False,
        config=recall_settings(),
        **filters,
    )
    if plan is None:
        return {}
    return fuse_scores(execute(plan), limit, vector_floor)


def recall(
    *,
    tenant_id: int,
    query: str,
    limit: int = 10,
    mode: str = "hybrid",
    mmr_lambda: float | None = None,
    rerank: bool | None = None,
    expand_graph: bool = False,
    reference_date: date | None = None,
    **filters: Any,
) -> list[RecalledMemory]:
    """The tenant's memories most relevant to `query`, best first, at most `limit`.

    Filters (each `None` = any): `scope_kind` and `scope_ids` (scope owners), `types`, `statuses`
    (default active only), `strengths`, `categories`, `confidence_range` ([low, high], finite; default:
    null or within 0–1). `mode`: "lexical" (fts + trigram), "fulltext" (fts alone), "vector", or "hybrid"
    (all three). `mmr_lambda` in [0, 1] turns on MMR (1 = pure relevance); None uses
    `BRAIN_RECALL["MMR_LAMBDA"]`. `rerank`: None = the configured `BRAIN_RERANKER` if any (by default the
    feature reranker, brain.search.rerankers; it runs before MMR), False = none,
    True = the configured one (error when none is). `expand_graph` adds the BrainGraph's one-hop
    neighbours of the best `limit` results (related_to / reinforces / contradicts edges) as a "graph"
    tier, under the same filters; a neighbour already found gains the graph tier's contribution.
    `query_embedding` + `embedding_model` skip the query embedder (benchmarks). `reference_date`: "now" for
    a reranker that resolves relative time in the query ("last year", "in May"; default today).
    Equal tier scores share a rank, so confidence and recency decide between equal matches.
    Read-only: planned (the lexical statistics cached per process under the memory state,
    `brain.memory_state`), executed by the backend the rule in `brain.search` picks, fused, post-processed.
    """
    config = recall_settings()
    if mmr_lambda is None:
        mmr_lambda = config["MMR_LAMBDA"]
    if mmr_lambda is not None and not (isinstance(mmr_lambda, int | float) and 0 <= mmr_lambda <= 1):
        raise RecallInputError("mmr_lambda must be a number from 0 (most diverse) to 1 (most relevant).")
    reranker = None if rerank is False else get_reranker()
    if rerank is True and reranker is None:
        raise RecallInputError("rerank was asked for but no reranker is configured (BRAIN_RERANKER).")
    plan = plan_recall(
        tenant_id=tenant_id,
        query=query,
        limit=limit,
        mode=mode,
        details=True,
        with_embedding=mmr_lambda is not None,
        config=config,
        **filters,
    )
    if plan is None:
        return []
    result = execute(plan)
    return _post_process(
        fuse_results(result),
        result.plan,
        limit=limit,
        expand=expand_graph,
        mmr_lambda=mmr_lambda,
        reranker=reranker,
        reference_date=reference_date,
    )


def _post_process(
    results, plan, *, limit: int, expand: bool, mmr_lambda, reranker, reference_date=None
) -> list[RecalledMemory]:
    if not results:
        return []
    if expand and plan.config["WEIGHTS"].get("graph", 0) > 0:
        results = expand_graph(results, plan=plan, limit=limit)
    # The reranker first (it sees every candidate; its scores are the memories' scores from then on), then
    # MMR diversifies its order: MMR after a reranker would be undone by it.
    if reranker is not None:
        results = rerank(results, query=plan.query, reranker=reranker, reference_date=reference_date)
    if mmr_lambda is not None:
        results = mmr(results, limit=limit, lam=float(mmr_lambda))
    results = results[:limit]
    for position, memory in enumerate(results, start=1):
        memory.payload = own_payload(memory.payload)
        round_explanation(memory.explanation)
        memory.explanation["rank"] = position
    return results


# --- Scoped plans --------------------------------------------------------------------------------------------


def _backend_for(plan: ContainmentPlan | NeighbourPlan) -> SearchBackend:
    """The in-memory backend when it supports the plan, else PostgreSQL."""
    return MEMORY_BACKEND if MEMORY_BACKEND.supports(plan) else POSTGRES_BACKEND


def window_rows(plan: ContainmentPlan) -> tuple:
    """The window's rows: the tenant's first `window_size` live rows in the containment order, prepared
    (the Client Brain's fallback tier is their beginning). In memory, cached under `plan.state`."""
    return _backend_for(plan).window(plan).rows


def contained(plan: ContainmentPlan) -> list:
    """Up to `plan.limit` live rows whose key or value contains any term, in the containment order.

    The window's matches (in memory) come first; only when they are fewer than `limit` and rows follow
    the window are those searched (PostgreSQL: each term's first matches there, remembered in the window
    per term), merged in the same order.
    """
    backend = _backend_for(plan)
    window = backend.window(plan)
    found = backend.contains(plan)
    if len(found) >= plan.limit or window.edge is None:
        return found
    after = POSTGRES_BACKEND.contains(replace(plan, after=window.edge, memo=window.beyond))
    return found + after[: plan.limit - len(found)]


def containment_query(plan: ContainmentPlan):
    """The statement PostgreSQL runs for the plan's terms, as a queryset of the tenant's live rows holding
    any of them (unordered, unlimited): for EXPLAIN and for tests of the statement, not for reading rows
    (`contained` reads them)."""
    return POSTGRES_BACKEND.containment_query(plan)


def neighbours(plan: NeighbourPlan) -> list[NeighbourRow]:
    """The plan's rows, each once, in the order they were found (trigram, vector, key, ids). PostgreSQL
    (the in-memory backend declines: the backstop must read the stored rows)."""
    return _backend_for(plan).neighbours(plan)
