"""Every per-process cache is in one registry, named, bounded and documented with what keys it (issue 12)."""

import brain.api  # noqa: F401  (imports every brain module that keeps a cache)
import intelligence.services  # noqa: F401
from brain.caches import StateCache, clear_all, registry

EXPECTED = {
    "agent-memories-active", "agent-memory-status-counts", "containment-windows",
    "search-lexical-statistics", "search-word-lexemes", "minilm-models", "runtime-base-candidates", "llm-provider",
    "client-brain-omitted-notes", "reranker", "hashing-embedder-buckets", "embedder", "runtime-memory-lines",
    "formation-entities", "memory-graphs", "agent-memory-vectors", "intent-projection",
    "relevance-preference-matrices", "intent-model",
}  # fmt: skip


def test_every_per_process_cache_is_registered_named_bounded_and_documented():
    caches = {info.name: info for info in registry()}
    assert EXPECTED <= set(caches)
    for info in caches.values():
        assert info.bound > 0 and info.keyed_on and info.kind in {"state", "dict", "derived", "lru", "timed"}


def test_clear_all_empties_every_cache():
    cache = StateCache("test-clear-all", size=2, keyed_on="a test key and state")
    cache.put(("k",), "s", 1)
    clear_all()
    assert {info.name: info.entries for info in registry()}["test-clear-all"] == 0


def test_no_cache_is_kept_outside_the_registry():
    """A bare functools cache would be one the registry cannot name, bound or clear. The benchmarks' loaders of
    their public corpora (functools' `@cache`, read once per run) are not the product's and may stay bare."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]

    def bare_caches(path: Path) -> bool:
        text = path.read_text()
        marks = ("lru_cache", "@functools.cache") + (() if "benchmarks" in path.parts else ("@cache\n",))
        return any(mark in text for mark in marks)

    found = [
        str(path.relative_to(repo))
        for app in ("brain", "intelligence", "tickets", "config")
        for path in (repo / app).rglob("*.py")
        if path.name != "caches.py" and bare_caches(path)
    ]
    assert found == []
