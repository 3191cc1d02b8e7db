"""Reads on a hot standby (issue 30): the router, and the block whose reads all go to one replica.

DATABASE_REPLICA_URLS (config/settings/database.py) makes the aliases `replica`, `replica_2`, ... Whether a
call may read on one is decided by its caller (brain/replicas.py for the agents' context call: the freshness
rule); this module gives the mechanism:

- `replica_block(alias)`: within the block the default connection IS the replica's (the ORM's reads and every
  raw statement of the code inside, unchanged); the replica's session is held to the same tenant as the
  primary's (the wall: the same role, the same `brain.tenant_id`, the same row-level security, which the
  standby has as a copy of the primary). A write inside the block is refused by `ReplicaRouter` (and by the
  standby itself, read-only): every write goes to the primary.
- a replica that cannot be reached, or fails in the middle of a read, is skipped for `DOWN_SECONDS` and
  logged (`brain.replicas`), and the caller reads on the primary: never a 500 for a replica.
- `REPLICA_PROBE`: the replica's replay lag in milliseconds and its replay position, in the caller's first
  statement on it; a replica further behind than BRAIN_REPLICA_MAX_LAG_MS is skipped for that call.

With no replica configured none of this runs: no router is installed and callers check `configured()` first.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.utils import DatabaseError, InterfaceError, OperationalError

from . import wall

logger = logging.getLogger("brain.replicas")

T = TypeVar("T")

DOWN_SECONDS = 5.0
# Lag: 0 while the standby has replayed all it received, else the age of the last transaction it replayed.
REPLICA_PROBE = (
    "CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0"
    " ELSE coalesce(extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000, 1e9) END,"
    " pg_last_wal_replay_lsn()::text"
)
# The replica connection's failures that skip it (the server is down, restarted, or cancelled a read).
REPLICA_ERRORS = (OperationalError, InterfaceError)

# Per process: where each call's reads went ("replica", or why not), and until when a replica is skipped.
read_sources: Counter = Counter()
_down_until: dict[str, float] = {}
_in_block: ContextVar[str | None] = ContextVar("brain_replica_block", default=None)
last_source: ContextVar[str] = ContextVar("brain_replica_last_source", default="primary")


class ReplicaWriteError(RuntimeError):
    """A write was attempted inside a block of replica reads (a programming error: writes go to the primary)."""


class ReplicaRouter:
    """Installed only when replicas are configured. Reads go where the calling block points the default
    connection (the primary, or a replica inside `replica_block`); writes only to the primary; replicas
    never migrate."""

    def db_for_read(self, _model, **_hints):
        return None

    def db_for_write(self, model, **_hints):
        if in_replica_block():
            raise ReplicaWriteError(f"write of {model.__name__} inside a block of reads on a replica")
        return DEFAULT_DB_ALIAS

    def allow_relation(self, _obj1, _obj2, **_hints):
        return True  # one database, several servers

    def allow_migrate(self, db, _app_label, **_hints):
        return db not in configured()


def configured() -> tuple[str, ...]:
    return tuple(getattr(settings, "BRAIN_REPLICA_ALIASES", ()))


def max_lag_ms() -> float:
    return float(getattr(settings, "BRAIN_REPLICA_MAX_LAG_MS", 500))


def candidates() -> list[str]:
    """The replicas worth trying now (not marked down), the first one turning per call to spread the load."""
    now = time.monotonic()
    live = [alias for alias in configured() if _down_until.get(alias, 0.0) <= now]
    if len(live) > 1:
        turn = sum(read_sources.values()) % len(live)
        live = live[turn:] + live[:turn]
    return live


def mark_down(alias: str, exc: BaseException) -> None:
    """Skip `alias` for DOWN_SECONDS, logged; its connection is closed (the next try opens a new one)."""
    _down_until[alias] = time.monotonic() + DOWN_SECONDS
    logger.warning("replica %s skipped for %.0f s: %s", alias, DOWN_SECONDS, str(exc).strip()[:300])
    try:
        connections[alias].close()
    except REPLICA_ERRORS:
        pass


def lsn_value(text: str | None) -> int:
    """A WAL position (`16/B374D848`) as a number, to compare two; no position is 0."""
    if not text:
        return 0
    high, low = text.split("/")
    return (int(high, 16) << 32) + int(low, 16)


def reads_header() -> dict[str, str] | None:
    """The answer's header saying where the call's reads went (with replicas configured; else none)."""
    return {"X-Brain-Reads": last_source.get()} if configured() else None


def record(source: str) -> None:
    read_sources[source] += 1
    last_source.set(source)


def replica_query(alias: str, tenant_id: int, sql: str, params) -> list:
    """One statement on the replica's session, held to `tenant_id` (the tenant travels as a startup option
    on a new session, else one setting on the replica)."""
    replica = connections[alias]
    if replica.connection is None or getattr(replica, "brain_tenant_id", None) != tenant_id:
        wall.tenant_set(tenant_id, using=alias)
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


@contextmanager
def replica_block(alias: str):
    """Within the block the default connection is the replica's (see the module's docstring)."""
    primary = connections[DEFAULT_DB_ALIAS]
    replica = connections[alias]
    token = _in_block.set(alias)
    connections[DEFAULT_DB_ALIAS] = replica
    try:
        yield
    finally:
        connections[DEFAULT_DB_ALIAS] = primary
        _in_block.reset(token)


def in_replica_block() -> bool:
    """Whether the code runs inside `replica_block` (its statements go to a read-only standby)."""
    return _in_block.get() is not None


def primary_may_be_left(tenant_id: int) -> bool:
    """The primary's session is held to `tenant_id` alone (no bypass: the standby cannot lower the wall)."""
    primary = connections[DEFAULT_DB_ALIAS]
    return (
        not getattr(primary, "brain_bypass", False) and getattr(primary, "brain_tenant_id", None) == tenant_id
    )


def read_on_a_replica(
    tenant_id: int, probe: str, params, judge: Callable[[str, list], str], read: Callable[[], T]
) -> tuple[bool, T | None]:
    """`read()` on the first replica that may serve it, else nothing read (the caller reads on the primary).

    Each live replica in turn: `probe` (REPLICA_PROBE's lag and replay position first, then any columns of
    the caller's) runs on it; a replica that fails is marked down, one lagging past BRAIN_REPLICA_MAX_LAG_MS
    is skipped, and `judge(replay_lsn, rows)` names the source to record: "replica..." reads there, anything
    else ("primary_stale") passes it over. A read that fails on the replica's connection marks it down and
    tries the next; one that writes or otherwise fails there leaves the replicas for the primary (logged).
    The source is recorded either way (`last_source`). Returns (True, result) or (False, None)."""
    source = "primary_no_replica"
    for alias in candidates():
        try:
            rows = replica_query(alias, tenant_id, probe, params)
        except REPLICA_ERRORS as exc:
            mark_down(alias, exc)
            source = "primary_down"
            continue
        lag_ms, replay_lsn = rows[0][:2]
        if float(lag_ms) > max_lag_ms():
            source = "primary_lag"
            continue
        verdict = judge(replay_lsn, rows)
        if not verdict.startswith("replica"):
            source = verdict
            continue
        try:
            with replica_block(alias):
                result = read()
        except REPLICA_ERRORS as exc:
            mark_down(alias, exc)
            source = "primary_down"
            continue
        except (ReplicaWriteError, DatabaseError) as exc:
            logger.warning(
                "a read wrote or failed on replica %s; read on the primary: %s", alias, str(exc).strip()[:300]
            )
            source = "primary_wrote"
            break
        record(verdict)
        return True, result
    record(source)
    return False, None
