"""LoCoMo's retrieval metrics, shared by the benchmark (brain.benchmarks.locomo) and its ablation table
(brain.benchmarks.locomo_ablation), so neither imports the other's module for them."""

from __future__ import annotations

import math

KS = (5, 10, 25, 50)


def recall_at(ranked: list[int], gold: set[int], k: int) -> float:
    return len(gold & set(ranked[:k])) / len(gold)


def ndcg_at(ranked: list[int], gold: set[int], k: int = 10) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, doc in enumerate(ranked[:k]) if doc in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal


def mean_percent(values: list[float]) -> float:
    return round(100 * sum(values) / len(values), 1) if values else 0.0
