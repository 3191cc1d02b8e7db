"""mem0's search timed over the same LoCoMo conversation, in the benchmark's process (`--compare-mem0`).

mem0 (the `mem0ai` package, an optional extra, never a dependency) runs offline here: its HuggingFace
embedder on the same local all-MiniLM-L6-v2 folder, a FAISS index on disk in a temporary folder, its SQLite
history, and no LLM (every turn added with `infer=False`, stored as it is; no key is needed, the OpenAI
client it builds is never called). Each question's `search(top_k=10)` is timed whole: mem0 embeds the query
inside the call (no cache), so its figures compare with the Brain's "with embedding". torch is held to the
Brain's thread count (BRAIN_EMBEDDER_THREADS) for both.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from brain.benchmarks.common import percentile
from brain.embedders import embedder_threads, minilm_model_path
from brain.models import Memory


def _import_mem0(path: str):
    os.environ.setdefault("MEM0_TELEMETRY", "False")  # read at import: no usage reports from a benchmark
    if path and path not in sys.path:
        sys.path.append(path)  # after the project's own packages: theirs win where both have one
    try:
        import mem0
        from mem0 import Memory as Mem0Memory
    except ImportError as exc:
        return None, f"mem0ai is not importable ({exc}): pip install mem0ai faiss-cpu, or pass --mem0-path"
    return (Mem0Memory, getattr(mem0, "__version__", "")), ""


def mem0_search_latency(tenant, questions, *, limit: int, path: str, stdout) -> dict:
    """{"version", "turns", "index_seconds", "latency_ms": {p50, p95, p99, max}} or {"skipped": why}."""
    imported, why = _import_mem0(path)
    if imported is None:
        stdout.write(f"mem0 skipped: {why}")
        return {"skipped": why}
    Mem0Memory, version = imported
    os.environ.setdefault(
        "OPENAI_API_KEY", "unused-offline"
    )  # mem0 builds its LLM client; infer=False never calls it
    import torch

    torch.set_num_threads(embedder_threads({}))
    turns = list(Memory.objects.for_tenant(tenant).order_by("id").values_list("text", flat=True))
    with tempfile.TemporaryDirectory(prefix="mem0-bench-") as folder:
        os.environ["MEM0_DIR"] = folder
        memory = Mem0Memory.from_config(
            {
                "embedder": {
                    "provider": "huggingface",
                    "config": {"model": minilm_model_path(), "embedding_dims": 384},
                },
                "vector_store": {
                    "provider": "faiss",
                    "config": {
                        "collection_name": "locomo",
                        "path": os.path.join(folder, "faiss"),
                        "embedding_model_dims": 384,
                        "distance_strategy": "cosine",
                    },
                },
                "history_db_path": os.path.join(folder, "history.db"),
            }
        )
        started = time.perf_counter()
        for text in turns:
            memory.add(text, user_id="locomo", infer=False)
        index_seconds = time.perf_counter() - started
        stdout.write(f"  mem0 {version}: {len(turns)} turns added in {index_seconds:.1f}s")
        for qa, _gold in questions[:5]:  # the first calls load what mem0 loads lazily
            memory.search(qa["question"], top_k=limit, filters={"user_id": "locomo"})
        latencies = []
        for qa, _gold in questions:
            began = time.perf_counter()
            memory.search(qa["question"], top_k=limit, filters={"user_id": "locomo"})
            latencies.append((time.perf_counter() - began) * 1000)
    return {
        "version": version,
        "turns": len(turns),
        "index_seconds": round(index_seconds, 1),
        "latency_ms": {
            "p50": round(percentile(latencies, 50), 2),
            "p95": round(percentile(latencies, 95), 2),
            "p99": round(percentile(latencies, 99), 2),
            "max": round(max(latencies), 2),
        },
    }
