"""LoCoMo latency: recall timed with and without the query embedding, p50 / p95 / p99 per method.

What a server process does, reproduced in the benchmark's own process: the collector of `config.collector`
(what is loaded so far frozen, a serving process's thresholds, a request's garbage collected after its
response, outside its timing: those collections are reported apart), and each question's embedding timed by
itself, the model called for that one text (never a batch average, never the query cache).

- At the benchmark's limit (50), every conversation: `latency_ms` (hybrid) and `latency_ms_by_method`, each
  `with_embedding` and `without_embedding`; `query_embedding_ms`.
- At limit 10 on the first conversation, asked again (the issue's target): `latency_at_limit_10`, the same
  keys, plus `collections_between_calls_ms` and, with `--compare-mem0`, mem0's search over the same
  conversation in the same process (`mem0`, brain.benchmarks.mem0_compare).

"With embedding", for the methods that embed the query (every one but lexical; lexical's two figures are
the same): at limit 50, the question's embedding timed alone plus its recall timed with the vector given;
at limit 10, the search call itself as a server makes it, from the question's text to the results, the
question's vector first dropped from every cache (outside the timing), so the call embeds it (with the
query encoder).
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from functools import partial

from brain.benchmarks.common import percentile
from brain.embedders import clear_query_cache
from brain.search import recall
from config import collector

# method -> (recall mode, MMR λ from the options or None, whether the query is embedded)
METHODS = {
    "lexical": ("lexical", False, False),
    "vector": ("vector", False, True),
    "hybrid": ("hybrid", False, True),
    "hybrid_mmr": ("hybrid", True, True),
}
TIMED_LIMIT = 10


def add_latency_arguments(parser) -> None:
    parser.add_argument(
        "--trigram-vocabulary",
        choices=("on", "off"),
        default=None,
        help="Override BRAIN_RECALL TRIGRAM_VOCABULARY (the trigram tier decided by the scope's vocabulary).",
    )
    parser.add_argument(
        "--compare-mem0",
        action="store_true",
        help="Also time mem0's search over the first conversation at limit 10, in this process "
        "(needs mem0ai importable; skipped with a message otherwise).",
    )
    parser.add_argument(
        "--mem0-path",
        default=os.environ.get("BRAIN_BENCH_MEM0_PATH", ""),
        help="A site-packages folder holding mem0ai, appended to sys.path for --compare-mem0 "
        "(default BRAIN_BENCH_MEM0_PATH), e.g. a separate venv's.",
    )


def latency_overrides(options: dict) -> dict:
    """The BRAIN_RECALL overrides this module's arguments ask for."""
    if options.get("trigram_vocabulary") is None:
        return {}
    return {"TRIGRAM_VOCABULARY": options["trigram_vocabulary"] == "on"}


def distribution(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 50), 2),
        "p95": round(percentile(values, 95), 2),
        "p99": round(percentile(values, 99), 2),
        "max": round(max(values), 2) if values else 0.0,
    }


def timed_embedding(embedder, text: str, sink: list[float]) -> list[float]:
    """The vector of `text` as a search query (the embedder's query encoder), the call's milliseconds
    appended to `sink`."""
    encoder = embedder.query_encoder()
    began = time.perf_counter()
    vector = encoder.embed([text])[0]
    sink.append((time.perf_counter() - began) * 1000)
    return vector


def latency_figures(
    latencies: dict[str, list[float]],
    embedding_ms: list[float],
    *,
    limit: int,
    whole: dict[str, list[float]] | None = None,
) -> dict:
    """`latency_ms` (hybrid), `latency_ms_by_method` and `query_embedding_ms` from per-question timings
    (`latencies[method][i]` and `embedding_ms[i]` belong to the same question). `whole[method]`: the calls
    that embedded their query themselves, timed whole (else with the embedding is the sum)."""
    by_method = {}
    for method, values in latencies.items():
        embeds = METHODS.get(method, (None, None, True))[2]
        with_embedding = [v + e for v, e in zip(values, embedding_ms, strict=True)] if embeds else values
        if whole and method in whole:
            with_embedding = whole[method]
        by_method[method] = {
            "without_embedding": distribution(values),
            "with_embedding": distribution(with_embedding),
        }
    return {
        "latency_ms": {"limit": limit, **by_method.get("hybrid", {})},
        "latency_ms_by_method": by_method,
        "query_embedding_ms": distribution(embedding_ms),
        "query_embedding_ms_per_question": round(sum(embedding_ms) / max(len(embedding_ms), 1), 2),
    }


def _timed_recall(tenant_id: int, query: str, vector, *, method: str, embedder, mmr_lambda) -> float:
    """One recall's milliseconds: with `vector` given, or (None) embedding the query inside the call."""
    mode, with_mmr, _ = METHODS[method]
    given = {"query_embedding": vector, "embedding_model": embedder.name} if vector is not None else {}
    began = time.perf_counter()
    recall(
        tenant_id=tenant_id,
        query=query,
        limit=TIMED_LIMIT,
        mode=mode,
        mmr_lambda=mmr_lambda if with_mmr else None,
        **given,
    )
    return (time.perf_counter() - began) * 1000


def timed_pass_at_limit(sample_id, tenant, questions, *, embedder, options: dict, stdout) -> dict:
    """Every question of one conversation asked again at limit 10, each method, as a server would serve them."""
    latencies: dict[str, list[float]] = defaultdict(list)
    whole: dict[str, list[float]] = defaultdict(list)
    embedding_ms: list[float] = []
    collections_ms: list[float] = []

    def collect() -> None:
        began = time.perf_counter()
        collector.collect_after_response()  # after the response is sent: not the call's time
        collections_ms.append((time.perf_counter() - began) * 1000)

    with collector.serving():
        for qa, _gold in questions:
            question = qa["question"]
            vector = timed_embedding(embedder, question, embedding_ms)
            for method, (_mode, _mmr, embeds) in METHODS.items():
                timed = partial(
                    _timed_recall,
                    tenant.pk,
                    question,
                    method=method,
                    embedder=embedder,
                    mmr_lambda=options["mmr_lambda"],
                )
                latencies[method].append(timed(vector))
                collect()
                if embeds:
                    clear_query_cache([question])  # a cold query: the call embeds it
                    whole[method].append(timed(None))
                    collect()
    figures = {
        "conversation": sample_id,
        "questions": len(questions),
        **latency_figures(latencies, embedding_ms, limit=TIMED_LIMIT, whole=whole),
        "collections_between_calls_ms": distribution(collections_ms),
    }
    if options.get("compare_mem0"):
        from brain.benchmarks.mem0_compare import mem0_search_latency

        figures["mem0"] = mem0_search_latency(
            tenant, questions, limit=TIMED_LIMIT, path=options.get("mem0_path") or "", stdout=stdout
        )
        mem0_p95 = figures["mem0"].get("latency_ms", {}).get("p95")
        if mem0_p95:
            figures["mem0_p95_over_brain_hybrid_p95"] = round(
                mem0_p95 / figures["latency_ms"]["with_embedding"]["p95"], 2
            )
    return figures


def latency_line(figures: dict, label: str) -> str:
    hybrid = figures["latency_ms"]
    line = (
        f"recall latency {label} (ms), hybrid with the query embedding p50 / p95 / p99 "
        f"{_triple(hybrid['with_embedding'])}, without {_triple(hybrid['without_embedding'])}; "
        f"query embedding {_triple(figures['query_embedding_ms'])}; "
        + ", ".join(
            f"{method} {_triple(block['with_embedding'])}"
            for method, block in figures["latency_ms_by_method"].items()
            if method != "hybrid"
        )
    )
    if "collections_between_calls_ms" in figures:
        line += f"; collections between calls {_triple(figures['collections_between_calls_ms'])}"
    if "mem0" in figures:
        mem0 = figures["mem0"]
        line += (
            f"\nmem0 {mem0.get('version', '')} search (embedding included) p50 / p95 / p99 "
            f"{_triple(mem0['latency_ms'])}; mem0 p95 / Brain hybrid p95 "
            f"{figures.get('mem0_p95_over_brain_hybrid_p95')}"
            if "latency_ms" in mem0
            else f"\nmem0 skipped: {mem0.get('skipped')}"
        )
    return line


def _triple(block: dict) -> str:
    return f"{block['p50']} / {block['p95']} / {block['p99']}"
