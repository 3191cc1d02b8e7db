"""Post-processing of fused results: the graph tier, MMR diversification and the optional reranker."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.module_loading import import_string

from brain.caches import memoize
from brain.models import MemoryStatus

from .fuse import recalled_memory
from .plan import RecallPlan
from .scoring import rrf
from .sql import hits_by_id
from .types import RecalledMemory


class Reranker:
    """Optional last stage: reorder recalled memories. Chosen by `BRAIN_RERANKER = {"BACKEND": ...}`.

    `rerank` gets the query and the fused, filtered candidates (best first) and returns them reordered
    (it may drop some, never add); it may set `explanation["rerank"]["score"]` and `score` (MMR, which
    runs after the reranker, weighs relevance by `score`). When the caller of
    `recall` passes a `reference_date` ("now", for relative time in the query), it is passed on as the
    keyword `reference_date` (a reranker that reads it declares it).
    """

    name = "base"

    def __init__(self, **options: Any):
        self.options = options

    def rerank(self, *, query: str, memories: list[RecalledMemory]) -> list[RecalledMemory]:
        raise NotImplementedError


@memoize("reranker", maxsize=8, keyed_on="the BRAIN_RERANKER backend and its options (as strings)")
def _load_reranker(backend: str, options: tuple) -> Reranker:
    return import_string(backend)(**dict(options))


def get_reranker() -> Reranker | None:
    config = getattr(settings, "BRAIN_RERANKER", None)
    if not config:
        return None
    config = dict(config)
    backend = config.pop("BACKEND")
    return _load_reranker(backend, tuple(sorted((k, str(v)) for k, v in config.items())))


def rerank(
    results: list[RecalledMemory], *, query: str, reranker: Reranker, reference_date=None
) -> list[RecalledMemory]:
    extra = {"reference_date": reference_date} if reference_date is not None else {}
    results = reranker.rerank(query=query, memories=results, **extra)
    for position, memory in enumerate(results, start=1):
        memory.explanation["final_score"] = memory.score  # the score the result is ranked by
        memory.explanation["rerank"] = {
            "reranker": reranker.name,
            "rank": position,
            **(memory.explanation.get("rerank") or {}),
        }
    return results


def mmr(candidates: list[RecalledMemory], *, limit: int, lam: float) -> list[RecalledMemory]:
    """Maximal marginal relevance: pick, step by step, argmax λ·relevance − (1−λ)·max cosine to picked.

    Relevance is the final score scaled to [0, 1] by the best candidate. A memory without an embedding
    has similarity 0 to everything (it cannot be judged a duplicate).
    """
    if not candidates:
        return []
    best = max(c.score for c in candidates) or 1.0
    vectors = []
    for c in candidates:
        if c.embedding is None:
            vectors.append(None)
            continue
        norm = float(np.linalg.norm(c.embedding)) or 1.0
        vectors.append(c.embedding / norm)
    remaining = list(range(len(candidates)))
    picked: list[int] = []
    max_sim = [0.0] * len(candidates)
    while remaining and len(picked) < limit:
        step_best, step_value = None, -math.inf
        for i in remaining:
            value = lam * (candidates[i].score / best) - (1 - lam) * max_sim[i]
            if value > step_value:
                step_best, step_value = i, value
        remaining.remove(step_best)
        picked.append(step_best)
        chosen = candidates[step_best]
        chosen.explanation["mmr"] = {
            "step": len(picked),
            "lambda": lam,
            "max_similarity_to_earlier": round(max_sim[step_best], 4),
            "mmr_value": round(step_value, 6),
        }
        if vectors[step_best] is not None:
            for i in remaining:
                if vectors[i] is not None:
                    max_sim[i] = max(max_sim[i], float(vectors[i] @ vectors[step_best]))
    return [candidates[i] for i in picked]


def expand_graph(results: list[RecalledMemory], *, plan: RecallPlan, limit: int) -> list[RecalledMemory]:
    """Add the graph tier: one-hop neighbours of the best `limit` results, ranked by how many seeds
    point at them (brain.graph.expand_one_hop), fetched under recall's filters, fused with weight
    WEIGHTS["graph"]."""
    from brain.graph import expand_one_hop

    filters, config = plan.filters, plan.config
    seeds = [r.id for r in results[:limit]]
    statuses = list(filters.statuses or [s for s, _ in MemoryStatus.choices])
    neighbours = expand_one_hop(filters.tenant_id, seeds, statuses=statuses)
    if not neighbours:
        return results
    k, weight = config["RRF_K"], config["WEIGHTS"]["graph"]
    by_id = {r.id: r for r in results}
    missing = [i for i in neighbours if i not in by_id]
    if missing:
        with connection.cursor() as cursor:
            hits = hits_by_id(cursor, filters=filters, ids=missing, with_embedding=plan.with_embedding)
        mode, query = results[0].explanation.get("mode"), results[0].explanation.get("query")
        for hit in hits:
            memory = recalled_memory(
                hit, fused=0.0, tiers={}, now=timezone.now(), config=config, mode=mode, query=query
            )
            by_id[memory.id] = memory
            results.append(memory)
    rank_of = {memory_id: rank for rank, memory_id in enumerate(neighbours, start=1)}
    for memory_id, rank in rank_of.items():
        memory = by_id.get(memory_id)
        if memory is None:  # filtered out (scope, type, confidence...)
            continue
        contribution = rrf(weight, k, rank)
        memory.explanation["tiers"]["graph"] = {"rank": rank, "score": None, "rrf": contribution}
        memory.explanation["fused_score"] = memory.explanation.get("fused_score", 0.0) + contribution
        memory.score += contribution
        memory.explanation["final_score"] = memory.score
    results.sort(key=lambda r: (-r.score, r.id))
    return results
