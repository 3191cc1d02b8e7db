"""Caching what is derived from memories, safely: the memory state of a scope, and a cache keyed by it.

Every write to `brain_memory` stamps the scopes it touched with a never-reused sequence value (the
trigger of migration 0008), so `memory_state(tenant_id, ...)` — the stamps of the matching scopes — names
exactly one committed state of those memories. A cache entry stored under (key, state) is therefore
never served for another state, in any process, whatever wrote the change (ORM, raw SQL, admin, a
bulk load). Readers must take the state BEFORE they read the data they cache: data read afterwards is
at least as new as the state, so an entry is never older than its key says. An entry filled inside a
transaction that later rolls back is keyed by stamps no other transaction will ever see.

`StateCache` is a small per-process LRU (each gunicorn or Celery process keeps its own). Cached values
are shared between callers: treat them as read-only.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from django.db import connection


def memory_state(
    tenant_id: int, *, scope_kind: str | None = None, scope_ids: Sequence[str] | None = None
) -> str:
    """The state of the tenant's memories in the given scopes (all of the tenant's scopes by default), as
    a short string that changes whenever any of those memories is inserted, changed or deleted."""
    sql = (
        "SELECT string_agg(scope_kind || '/' || scope_id || '=' || stamp, ',' ORDER BY scope_kind, scope_id)"
    )
    sql += " FROM brain_memory_scope_state WHERE tenant_id = %s"
    params: list[Any] = [int(tenant_id)]
    if scope_kind is not None:
        sql += " AND scope_kind = %s"
        params.append(scope_kind)
        if scope_ids is not None:
            sql += " AND scope_id = ANY(%s)"
            params.append([str(s) for s in scope_ids])
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        stamps = cursor.fetchone()[0] or ""
    return hashlib.blake2b(stamps.encode(), digest_size=12).hexdigest()


class StateCache:
    """A thread-safe LRU of at most `size` entries, each stored under (key, memory state)."""

    def __init__(self, name: str, size: int):
        self.name = name
        self.size = size
        self._entries: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: tuple, state: str, load: Callable[[], Any]) -> Any:
        """The value cached for (key, state), or `load()` stored under it."""
        entry_key = (*key, state)
        with self._lock:
            if entry_key in self._entries:
                self._entries.move_to_end(entry_key)
                self.hits += 1
                return self._entries[entry_key]
            self.misses += 1
        value = load()
        self.put(key, state, value)
        return value

    def peek(self, key: tuple, state: str, default: Any = None) -> Any:
        with self._lock:
            entry_key = (*key, state)
            if entry_key in self._entries:
                self._entries.move_to_end(entry_key)
                return self._entries[entry_key]
        return default

    def put(self, key: tuple, state: str, value: Any) -> None:
        with self._lock:
            self._entries[(*key, state)] = value
            self._entries.move_to_end((*key, state))
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)
