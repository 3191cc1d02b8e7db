"""Every per-process cache of the project, in one registry: each named, bounded, and documented with what
it is keyed on (issue 12).

Nothing here is shared between processes (DESIGN.md, "Scale path"): a value derived from memories is
keyed by the memory state of the scopes it was read from (brain.memory_state), so a write made by any
process is seen by the next read in every process. A cache of something that never goes stale (a word's
lexemes, a loaded model) says so in `keyed_on`.

Five kinds, all thread-safe enough for their use (a lost update only costs a second load):
- `StateCache`: an LRU of values stored under (key, memory state).
- `BoundedDict`: a dict cleared when it reaches its bound, for values that never change for their key.
- `memoize()`: `functools.lru_cache` of a pure function, registered under a name.
- `DerivedCache`: a value built from another cache's value, kept while that value is the same object
  (it then stands for the same memory state as that value).
- `TimedValue`: one value read from the catalog, reloaded once it is `seconds` old (what no memory state
  stamps: which indexes exist).

`registry()` lists them (name, kind, bound, keyed_on, entries); `clear_all()` empties them (tests,
benchmarks that measure a cold start).
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_REGISTRY: dict[str, Any] = {}
_REGISTRY_LOCK = threading.Lock()


@dataclass(frozen=True)
class CacheInfo:
    name: str
    kind: str
    bound: int
    keyed_on: str
    entries: int


def _register(name: str, cache: Any) -> None:
    with _REGISTRY_LOCK:
        _REGISTRY[name] = cache  # a module reloaded (tests) replaces its own entry


def registry() -> list[CacheInfo]:
    """Every registered cache, by name."""
    with _REGISTRY_LOCK:
        caches = sorted(_REGISTRY.items())
    return [
        CacheInfo(name=name, kind=c.kind, bound=c.bound, keyed_on=c.keyed_on, entries=len(c))
        for name, c in caches
    ]


def clear_all() -> None:
    with _REGISTRY_LOCK:
        caches = list(_REGISTRY.values())
    for cache in caches:
        cache.clear()


class StateCache:
    """A thread-safe LRU of at most `size` entries, each stored under (key, memory state).

    Readers take the memory state BEFORE they read the data they cache (brain.memory_state). Cached values
    are shared between callers: treat them as read-only.
    """

    kind = "state"

    def __init__(self, name: str, size: int, keyed_on: str = "(key, memory state)"):
        self.name = name
        self.size = self.bound = size
        self.keyed_on = keyed_on
        self._entries: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0
        _register(name, self)

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


class BoundedDict(dict):
    """A dict for values that never change for their key, emptied when it holds `bound` entries.

    Reads are plain dict reads (hot paths look words up one by one); a write to a full dict empties it first.
    """

    kind = "dict"

    def __init__(self, name: str, bound: int, keyed_on: str):
        super().__init__()
        self.name, self.bound, self.keyed_on = name, bound, keyed_on
        _register(name, self)

    def __setitem__(self, key: Any, value: Any) -> None:
        if len(self) >= self.bound and key not in self:
            self.clear()
        super().__setitem__(key, value)


class DerivedCache:
    """Per key, a value built from a `source` value (another cache's entry), rebuilt when the source is a
    different object: the source stands for a memory state, so the derived value does too."""

    kind = "derived"

    def __init__(self, name: str, bound: int, keyed_on: str):
        self.name, self.bound, self.keyed_on = name, bound, keyed_on
        self._entries: dict[Any, tuple[Any, Any]] = {}
        _register(name, self)

    def get(self, key: Any, source: Any, build: Callable[[], Any]) -> Any:
        entry = self._entries.get(key)
        if entry is None or entry[0] is not source:
            if len(self._entries) >= self.bound:
                self._entries.clear()
            entry = self._entries[key] = (source, build())
        return entry[1]

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class TimedValue:
    """One value, loaded on first use and again once it is older than `seconds` (or after `clear`)."""

    kind = "timed"
    bound = 1

    def __init__(self, name: str, seconds: float, keyed_on: str):
        self.name, self.seconds, self.keyed_on = name, seconds, keyed_on
        self._entry: tuple[float, Any] | None = None
        _register(name, self)

    def get(self, load: Callable[[], Any]) -> Any:
        entry = self._entry
        now = time.monotonic()
        if entry is None or now - entry[0] > self.seconds:
            entry = self._entry = (now, load())
        return entry[1]

    def clear(self) -> None:
        self._entry = None

    def __len__(self) -> int:
        return 0 if self._entry is None else 1


class _Memoized:
    kind = "lru"

    def __init__(self, name: str, function: Callable, bound: int, keyed_on: str):
        self.name, self.bound, self.keyed_on, self.function = name, bound, keyed_on, function

    def clear(self) -> None:
        self.function.cache_clear()

    def __len__(self) -> int:
        return self.function.cache_info().currsize


def memoize(name: str, *, maxsize: int, keyed_on: str) -> Callable[[Callable], Callable]:
    """`functools.lru_cache(maxsize)` of a pure function, registered as `name`."""

    def decorate(function: Callable) -> Callable:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _register(name, _Memoized(name, cached, maxsize, keyed_on))
        return cached

    return decorate
