"""LoCoMo ablation of the feature reranker's levers (`brain_bench locomo --ablation`, issue 18).

Each question is recalled once (hybrid, the real `recall`) with a recorder behind the reranker hook: it
keeps the fused candidates the reranker would get (all of them, before the cut to the limit) and returns
them unchanged. Each lever setting is then applied to those same candidates by `FeatureReranker`, which
is exactly what `recall` does with that reranker configured (the reranker is the last stage). Reported
per setting: Recall@5/10/25/50 and NDCG@10, and each lever's delta (alone on the fused ranking, and
left out of all levers together).
"""

from __future__ import annotations

import copy
import time
from datetime import date

from django.conf import settings

from brain.benchmarks.common import percentile
from brain.benchmarks.locomo_metrics import KS, mean_percent, ndcg_at, recall_at
from brain.search import recall
from brain.search.post import Reranker, get_reranker
from brain.search.rerankers import DEFAULTS, LEVERS, FeatureReranker

# Levers off by default, measured at this weight (SPEAKER lost Recall@10 on conversations 0-4 at 0.05-0.2).
PROBES: dict[str, float] = {"SPEAKER": 0.1}


def chosen_weights() -> dict[str, float]:
    """The configured FeatureReranker's options (BRAIN_RERANKER; weights chosen on conversations 0-4)."""
    configured = dict(getattr(settings, "BRAIN_RERANKER", None) or {})
    if configured.pop("BACKEND", None) != "brain.search.rerankers.FeatureReranker":
        configured = {}
    return {name: float(value) for name, value in configured.items()}


class CandidateRecorder(Reranker):
    """Keeps the candidates it is given (the last call's) and returns them unchanged."""

    name = "recorder"
    last: list = []

    def rerank(self, *, query, memories, reference_date=None):
        CandidateRecorder.last = list(memories)
        return memories


def recorded_candidates(*, tenant_id: int, query: str, vector, model: str, limit: int, reference: date):
    """The fused candidates `recall(hybrid)` hands its reranker for this question, and recall's latency."""
    previous = getattr(settings, "BRAIN_RERANKER", None)
    settings.BRAIN_RERANKER = {"BACKEND": f"{__name__}.CandidateRecorder"}
    try:
        get_reranker()
        began = time.perf_counter()
        recall(
            tenant_id=tenant_id,
            query=query,
            limit=limit,
            mode="hybrid",
            rerank=True,
            reference_date=reference,
            query_embedding=vector,
            embedding_model=model,
        )
        elapsed = (time.perf_counter() - began) * 1000
    finally:
        settings.BRAIN_RERANKER = previous
    return CandidateRecorder.last, elapsed


def settings_to_measure(
    chosen: dict[str, float], *, leave_one_out: bool = False
) -> dict[str, dict[str, float] | None]:
    """{label: reranker options or None (no reranker)}: the fused ranking, each lever alone (a lever off
    in `chosen` at its probe weight), all chosen levers; with `leave_one_out`, all but each one and all plus
    each probe."""
    weights = {**DEFAULTS, **chosen}
    on = [lever for lever in LEVERS if chosen.get(lever)]
    probes = {lever: w for lever, w in PROBES.items() if lever not in on}
    out: dict[str, dict[str, float] | None] = {"fused (no reranker)": None}
    for lever in LEVERS:
        if lever in on or lever in probes:
            alone = {x: 0.0 for x in LEVERS}
            alone[lever] = weights[lever] if lever in on else probes[lever]
            out[f"+{lever.lower()}"] = {**weights, **alone}
    out["all levers"] = weights
    if leave_one_out:
        for lever in on:
            out[f"all -{lever.lower()}"] = {**weights, lever: 0.0}
        for lever, weight in probes.items():
            out[f"all +{lever.lower()}"] = {**weights, lever: weight}
    return out


def reranked_ids(
    options: dict | None, query: str, candidates: list, reference: date, limit: int
) -> list[int]:
    if options is None:
        return [m.id for m in candidates[:limit]]
    reranker = FeatureReranker(**options)
    scores = [m.score for m in candidates]
    ranked = reranker.rerank(query=query, memories=copy.copy(candidates), reference_date=reference)
    for memory, score in zip(candidates, scores, strict=True):  # the reranker sets scores: the next setting
        memory.score = score  # must start from the fused ones
    return [m.id for m in ranked[:limit]]


def ablation_figures(
    per_question: list[dict], measured: dict, latencies: dict, stdout, title: str = ""
) -> dict:
    """{label: {"recall_at_k": ..., "ndcg_at_10", "delta": {...} vs the fused ranking}}, printed as a table."""
    rows = {}
    if not per_question:
        return rows
    for label in measured:
        row = {
            f"recall_at_{k}": mean_percent(
                [recall_at(q["ranked"][label], q["gold"], k) for q in per_question]
            )
            for k in KS
        }
        row["ndcg_at_10"] = mean_percent([ndcg_at(q["ranked"][label], q["gold"]) for q in per_question])
        row["rerank_ms_p95"] = round(percentile(latencies[f"rerank {label}"], 95), 3)
        rows[label] = row
    base = rows["fused (no reranker)"]
    keys = [key for key in base if key != "rerank_ms_p95"]
    for row in rows.values():
        row["delta"] = {key: round(row[key] - base[key], 1) for key in keys}
    stdout.write(
        f"\nablation{title} (hybrid, {len(per_question)} questions; delta against the fused ranking)"
    )
    stdout.write(
        f"{'setting':<22}" + "".join(f"{'R@' + str(k):>14}" for k in KS) + f"{'NDCG@10':>14}{'ms p95':>8}"
    )
    for label, row in rows.items():
        cells = [f"{row[f'recall_at_{k}']:.1f} ({row['delta'][f'recall_at_{k}']:+.1f})" for k in KS]
        cells.append(f"{row['ndcg_at_10']:.1f} ({row['delta']['ndcg_at_10']:+.1f})")
        stdout.write(f"{label:<22}" + "".join(f"{c:>14}" for c in cells) + f"{row['rerank_ms_p95']:>8}")
    return rows
