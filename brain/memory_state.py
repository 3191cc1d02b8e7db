"""Caching what is derived from memories, safely: the memory state of a scope, and a cache keyed by it.

Every write to `brain_memory` stamps the scopes it touched with a never-reused sequence value (the
trigger of migration 0008), so `memory_state(tenant_id, ...)` — the stamps of the matching scopes — names
exactly one committed state of those memories. A cache entry stored under (key, state) is therefore
never served for another state, in any process, whatever wrote the change (ORM, raw SQL, admin, a
bulk load). Readers must take the state BEFORE they read the data they cache: data read afterwards is
at least as new as the state, so an entry is never older than its key says. An entry filled inside a
transaction that later rolls back is keyed by stamps no other transaction will ever see.

`StateCache` (brain.caches, the registry of every per-process cache) is a small per-process LRU keyed
this way. Cached values are shared between callers: treat them as read-only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection

from .caches import StateCache  # noqa: F401  (where callers have always found it)

ScopeSpec = tuple[str | None, Sequence[str] | None]  # (scope kind or None for all, scope ids or None for all)

# Inside `states_read_once()`: the states it read, by (tenant, scope kind, scope ids).
_READ_ONCE: ContextVar[dict[tuple, str] | None] = ContextVar("brain_memory_states_read_once", default=None)


def _scope_key(tenant_id: int, scope_kind: str | None, scope_ids: Sequence[str] | None) -> tuple:
    if scope_kind is None:
        return (int(tenant_id), None, None)
    ids = None if scope_ids is None else tuple(sorted({str(s) for s in scope_ids}))
    return (int(tenant_id), str(scope_kind), ids)  # str(): a TextChoices member hashes by its name


def _digest(rows) -> str:
    """The state of the scopes whose (scope kind, scope id, stamp) rows these are."""
    stamps = ",".join(f"{kind}/{scope_id}={stamp}" for kind, scope_id, stamp in sorted(rows))
    return hashlib.blake2b(stamps.encode(), digest_size=12).hexdigest()


def _covers(key: tuple, kind: str, scope_id: str) -> bool:
    _, wanted_kind, wanted_ids = key
    return wanted_kind is None or (kind == wanted_kind and (wanted_ids is None or scope_id in wanted_ids))


def states_sql(tenant_id: int, keys: list[tuple]) -> tuple[str, list]:
    """The statement reading the stamps of several scope selections of one tenant: (sql, params)."""
    conditions, params = [], [int(tenant_id)]
    for _, kind, ids in keys:
        if kind is None:
            conditions = ["TRUE"]
            break
        if ids is None:
            conditions.append("scope_kind = %s")
            params.append(kind)
        else:
            conditions.append("(scope_kind = %s AND scope_id = ANY(%s))")
            params.extend([kind, list(ids)])
    if conditions == ["TRUE"]:
        params = [int(tenant_id)]
    sql = "SELECT scope_kind, scope_id, stamp FROM brain_memory_scope_state WHERE tenant_id = %s"
    return sql + " AND (" + " OR ".join(conditions) + ")", params


def states_of_rows(keys: list[tuple], rows) -> dict[tuple, str]:
    """The states of the scope selections `keys`, from the (scope kind, scope id, stamp) rows `states_sql` read."""
    return {key: _digest(row for row in rows if _covers(key, row[0], row[1])) for key in keys}


def _read_states(tenant_id: int, keys: list[tuple]) -> dict[tuple, str]:
    """The states of several scope selections of one tenant, in one statement."""
    if not keys:
        return {}
    sql, params = states_sql(tenant_id, keys)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return states_of_rows(keys, rows)


def memory_state(
    tenant_id: int, *, scope_kind: str | None = None, scope_ids: Sequence[str] | None = None
) -> str:
    """The state of the tenant's memories in the given scopes (all of the tenant's scopes by default), as
    a short string that changes whenever any of those memories is inserted, changed or deleted."""
    key = _scope_key(tenant_id, scope_kind, scope_ids)
    read_once = _READ_ONCE.get()
    if read_once is not None and key in read_once:
        return read_once[key]
    return _read_states(tenant_id, [key])[key]


@contextmanager
def states_read_once(tenant_id: int, scopes: Sequence[ScopeSpec]):
    """Within the block, `memory_state()` of these scopes answers from one statement read on entry.

    For a request that consults several caches (the runtime context: the agent's memories, recall's
    statistics, the Client Brain window): one round trip instead of one per cache. Answering from the
    entry read is what reading the state first means anyway: whatever the block reads afterwards is at
    least as new. Per thread and task (a context variable); blocks nest, the inner one read afresh.
    """
    keys = scope_keys(tenant_id, scopes)
    with states_known(_read_states(tenant_id, keys)):
        yield


def scope_keys(tenant_id: int, scopes: Sequence[ScopeSpec]) -> list[tuple]:
    return [_scope_key(tenant_id, kind, ids) for kind, ids in scopes]


@contextmanager
def states_known(states: dict[tuple, str]):
    """Within the block, `memory_state()` of these scope keys answers `states` (read by the caller: where
    reads go to a replica, brain/replicas.py reads them on the primary and the replica in one statement each)."""
    token = _READ_ONCE.set(states)
    try:
        yield
    finally:
        _READ_ONCE.reset(token)


@contextmanager
def states_kept(tenant_id: int, scopes: Sequence[ScopeSpec]):
    """`states_read_once` for a reader that may run inside such a block: when the enclosing block already
    read every one of these scopes, its reads answer (no statement); otherwise they are read once, here."""
    read_once = _READ_ONCE.get()
    if read_once is not None and all(_scope_key(tenant_id, kind, ids) in read_once for kind, ids in scopes):
        yield
        return
    with states_read_once(tenant_id, scopes):
        yield
