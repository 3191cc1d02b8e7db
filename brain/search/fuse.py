"""Fusion: the tiers' ranks into one score per memory (brain.search.scoring: weighted reciprocal rank fusion
plus small confidence and recency features), as full results with their explanation or as scores alone."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from django.utils import timezone

from .scoring import final_score, rrf
from .sql import vector_from_send
from .types import Hit, RecalledMemory, RecallScores, SearchResult


def _tiers(hit: Hit) -> tuple[tuple[str, int | None, float | None], ...]:
    return (
        ("fts", hit.fts_rank, hit.fts_score),
        ("trigram", hit.trigram_rank, hit.trigram_score),
        ("vector", hit.vector_rank, hit.vector_score),
    )


def fuse_scores(result: SearchResult, limit: int, vector_floor: float | None = None) -> RecallScores:
    """{memory id: final score} of the best `limit` hits, best first (ties by id).

    `vector_floor` (a cosine similarity), when the plan has the vector tier: meaning gates, words order — a
    hit the vector tier scored under the floor is dropped, whatever words it shares with the query (the vector
    tier ranks every row by similarity, so without a floor every row would be "found"). A hit the vector tier
    did not score (a row without a vector yet, or beyond the tier's candidates) keeps its words' score."""
    config = result.plan.config
    k, weights, now = config["RRF_K"], config["WEIGHTS"], timezone.now()
    fts, trigram, vector = weights["fts"], weights["trigram"], weights["vector"]
    gate = vector_floor is not None and "vector" in result.plan.tiers
    scores = []
    for hit in result.hits:  # _tiers(), unrolled: the runtime's relevance check scores hundreds per call
        if gate and hit.vector_score is not None and hit.vector_score < vector_floor:
            continue
        fused = 0.0
        if hit.fts_rank is not None:
            fused += rrf(fts, k, hit.fts_rank)
        if hit.trigram_rank is not None:
            fused += rrf(trigram, k, hit.trigram_rank)
        if hit.vector_rank is not None:
            fused += rrf(vector, k, hit.vector_rank)
        final, _, _ = final_score(fused, hit.confidence, hit.created_at, now=now, config=config)
        scores.append((final, hit.id))
    return {mid: final for final, mid in sorted(scores, key=lambda item: (-item[0], item[1]))[:limit]}


def fuse_results(result: SearchResult) -> list[RecalledMemory]:
    """Every hit as a `RecalledMemory` with its explanation, best first (ties by id)."""
    plan = result.plan
    config = plan.config
    k, weights, now = config["RRF_K"], config["WEIGHTS"], timezone.now()
    query = plan.explanation()
    results = []
    for hit in result.hits:
        found = {}
        fused = 0.0
        for tier, rank, score in _tiers(hit):
            if rank is None:
                continue
            contribution = rrf(weights[tier], k, rank)
            fused += contribution
            found[tier] = {"rank": int(rank), "score": float(score), "rrf": contribution}
        memory = recalled_memory(
            hit, fused=fused, tiers=found, now=now, config=config, mode=plan.mode, query=query
        )
        memory.explanation["vector_strategy"] = result.vector_strategy if "vector" in found else None
        results.append(memory)
    results.sort(key=lambda r: (-r.score, r.id))
    return results


def recalled_memory(
    hit: Hit, *, fused: float, tiers: dict, now, config: dict, mode: str | None, query: Any
) -> RecalledMemory:
    """A hit with its columns as a result scored `fused` plus its features, with its explanation."""
    final, confidence_feature, recency_feature = final_score(
        fused, hit.confidence, hit.created_at, now=now, config=config
    )
    return RecalledMemory(
        id=hit.id,
        type=hit.type,
        key=hit.key,
        text=hit.text,
        payload=_parsed(hit.payload),
        confidence=hit.confidence,
        status=hit.status,
        strength=hit.strength,
        category=hit.category,
        scope_kind=hit.scope_kind,
        scope_id=hit.scope_id,
        provider=hit.provider,
        campaign_ids=list(hit.campaign_ids or []),
        tags=list(hit.tags or []),
        created_at=hit.created_at,
        score=final,
        explanation={
            "mode": mode,
            "tiers": tiers,
            "fused_score": fused,
            "confidence_feature": confidence_feature,
            "recency_feature": recency_feature,
            "final_score": final,
            "mmr": None,
            "rerank": None,
            "vector_strategy": None,
            "query": query,
        },
        embedding=_parse_vector(hit.embedding),
    )


def round_explanation(explanation: dict) -> dict:
    """The explanation's numbers rounded for the caller (scores to 6 places, features to 4): done once, for
    the results returned, not for every candidate scored."""
    for tier in explanation["tiers"].values():
        for name in ("score", "rrf"):
            if tier.get(name) is not None:
                tier[name] = round(tier[name], 6)
    for name, places in (
        ("fused_score", 6),
        ("confidence_feature", 4),
        ("recency_feature", 4),
        ("final_score", 6),
    ):
        explanation[name] = round(explanation[name], places)
    rerank = explanation.get("rerank")
    if rerank:
        if "score" in rerank:
            rerank["score"] = round(rerank["score"], 6)
        if "features" in rerank:
            rerank["features"] = {name: round(value, 4) for name, value in rerank["features"].items()}
    return explanation


def _parsed(value: Any) -> Any:
    """A jsonb column read through a raw cursor arrives as text (Django's psycopg setup): parse it. A dict
    comes from a cache of rows (brain.search.backends.memory), shared between calls: read-only until
    `own_payload` copies it for a result that is returned (the reranker reads every candidate's)."""
    return json.loads(value) if isinstance(value, str) else value


def own_payload(value: Any) -> Any:
    """A returned result's own copy of a payload shared with a cache (a flat one copied, a nested one parsed
    again from its text), so that a caller's change never reaches the next search."""
    if isinstance(value, dict):
        if all(item is None or isinstance(item, str | int | float) for item in value.values()):
            return dict(value)
        return json.loads(json.dumps(value))
    return value


def _parse_vector(sent: bytes | memoryview | None) -> np.ndarray | None:
    return vector_from_send(sent) if sent else None
