"""Search backends: one per storage, each executing the engine's plans (brain.search.plan).

`SearchBackend` (base.py) is the interface; `get_search_backend(plan)` applies the rule documented in
`brain.search`. Every backend passes the one contract test class, tests/brain/search/test_backends.py.
"""

from __future__ import annotations

from .base import SearchBackend
from .memory import MEMORY_BACKEND, MemoryBackend
from .postgres import POSTGRES_BACKEND, PostgresBackend

BACKENDS = {"postgres": POSTGRES_BACKEND, "memory": MEMORY_BACKEND}


def get_search_backend(plan) -> SearchBackend:
    """The backend that serves `plan`: in memory when it supports the plan and BRAIN_RECALL["IN_MEMORY"]
    is on, else PostgreSQL (the rule, in full, is in brain.search's docstring)."""
    if plan.config["IN_MEMORY"] and MEMORY_BACKEND.supports(plan):
        return MEMORY_BACKEND
    return POSTGRES_BACKEND


__all__ = ["BACKENDS", "MemoryBackend", "PostgresBackend", "SearchBackend", "get_search_backend"]
