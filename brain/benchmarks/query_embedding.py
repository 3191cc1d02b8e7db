"""Query embedding latency of the local MiniLM embedders, side by side: torch, ONNX float32, ONNX int8.

Each LoCoMo question is embedded by each embedder in turn (the order rotating per question), one text per
call, as a search query is: p50 / p95 / p99 per embedder from the same run and process, and each one's
cosine to torch's vector (float32 must stay >= 0.999 to share torch's stored rows); and the objects each
runtime leaves for the cycle collector, with a full collection's time (a model loaded after a server's
`gc.freeze()` is walked by every full collection). Threads:
BRAIN_EMBEDDER_THREADS (`--threads` overrides). No database.
"""

from __future__ import annotations

import gc
import json
import time
from pathlib import Path

import numpy as np
from django.conf import settings

from brain.benchmarks.locomo_latency import distribution
from brain.embedders import SentenceTransformerEmbedder, embedder_threads
from brain.onnx_minilm import OnnxMiniLMEmbedder


def add_arguments(parser) -> None:
    parser.add_argument(
        "--data",
        default=str(Path(settings.BASE_DIR).parent / "shared" / "benchmarks" / "locomo10.json"),
        help="Path to locomo10.json (its questions are the queries).",
    )
    parser.add_argument("--questions", type=int, default=300, help="How many questions to embed.")
    parser.add_argument(
        "--threads", type=int, default=0, help="Intra-op threads (default BRAIN_EMBEDDER_THREADS)."
    )


def run(options: dict, stdout) -> dict:
    samples = json.loads(Path(options["data"]).read_text())
    questions = [qa["question"] for s in samples for qa in s["qa"] if qa.get("question")][
        : options["questions"]
    ]
    threads = options["threads"] or embedder_threads({})
    embedders = {
        "torch": SentenceTransformerEmbedder(THREADS=threads),
        "onnx_float32": OnnxMiniLMEmbedder(THREADS=threads),
        "onnx_int8": OnnxMiniLMEmbedder(QUANTIZE="int8", THREADS=threads),
    }
    # What each runtime leaves for the cycle collector to walk (ONNX first: torch is imported last).
    collector_load = {"before": _tracked()}
    for name in ("onnx_float32", "onnx_int8", "torch"):
        embedders[name].warm_up()
        collector_load[name] = _tracked()
    names = list(embedders)
    timings: dict[str, list[float]] = {name: [] for name in names}
    cosines: dict[str, list[float]] = {name: [] for name in names}
    for position, question in enumerate(questions):
        vectors = {}
        for name in names[position % len(names) :] + names[: position % len(names)]:
            began = time.perf_counter()
            vectors[name] = np.asarray(embedders[name].embed([question])[0])
            timings[name].append((time.perf_counter() - began) * 1000)
        for name in names:
            cosines[name].append(float(vectors[name] @ vectors["torch"]))
    figures = {
        "questions": len(questions),
        "threads": threads,
        "query_embedding_ms": {name: distribution(values) for name, values in timings.items()},
        "cosine_to_torch_min": {name: round(min(values), 5) for name, values in cosines.items()},
        "model_names": {name: embedder.name for name, embedder in embedders.items()},
        "tracked_objects_and_full_collection_ms": collector_load,
    }
    stdout.write(f"{len(questions)} LoCoMo questions, one per call, {threads} intra-op thread(s)")
    for name in names:
        block = figures["query_embedding_ms"][name]
        stdout.write(
            f"  {name:<13} p50 {block['p50']:>7} p95 {block['p95']:>7} p99 {block['p99']:>7} ms; "
            f"min cosine to torch {figures['cosine_to_torch_min'][name]} ({embedders[name].name})"
        )
    stdout.write(
        "  tracked objects / full collection ms: "
        + ", ".join(f"{name} {count:,} / {ms}" for name, (count, ms) in collector_load.items())
    )
    return figures


def _tracked() -> tuple[int, float]:
    """(objects the cycle collector tracks, milliseconds of a full collection now)."""
    began = time.perf_counter()
    gc.collect()
    return len(gc.get_objects()), round((time.perf_counter() - began) * 1000, 1)
