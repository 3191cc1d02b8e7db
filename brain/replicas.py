"""The agents' context reads on a read replica, when it has every memory write the call depends on.

The freshness rule is the memory-state stamp the product already keeps (brain/memory_state.py): every write
to a memory stamps its scopes with a never-reused sequence value, in the same transaction, so equal stamps
on the primary and on a replica mean the replica has replayed every write to the memories the call reads
(the agent's scope and the tenant's), whoever made it and whenever. The call reads the stamps on the
primary first (the one statement the call made there before anyway: its caches are keyed by them), then on
the replica with its lag; it reads on the replica only when the replica's stamps are the same, its lag is
within BRAIN_REPLICA_MAX_LAG_MS and the primary's transaction has written nothing yet. Otherwise, or when
the replica fails, the call reads on the primary (tickets/tenancy/replicas.py logs and skips a replica that
is down). The primary's statement also reads its WAL position, so the stricter rule (the replica has
replayed everything the primary had written, any tenant's) is counted beside it (source `replica_lsn_behind`:
read on the replica, which that rule would have refused); the benchmark (`brain_bench context --replica`)
compares the two.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from django.db import connection

from tickets.tenancy import replicas

from .memory_state import ScopeSpec, scope_keys, states_known, states_of_rows, states_read_once, states_sql

T = TypeVar("T")

PRIMARY_PROBE = "pg_current_wal_lsn()::text, pg_current_xact_id_if_assigned() IS NOT NULL"


def _probed(probe: str, tenant_id: int, keys: list[tuple]) -> tuple[str, list]:
    """One statement: the probe's columns, then the scopes' stamp rows (none when the tenant has none)."""
    sql, params = states_sql(tenant_id, keys)
    return f"SELECT p.*, s.* FROM (SELECT {probe}) p LEFT JOIN ({sql}) s ON TRUE", params


def _split(rows, probe_width: int) -> tuple[tuple, list]:
    head = tuple(rows[0][:probe_width]) if rows else ()
    return head, [row[probe_width:] for row in rows if row[probe_width] is not None]


def reads_on_replica(
    tenant_id: int, scopes: Sequence[ScopeSpec], read: Callable[[], T], *, states_once: bool = True
) -> T:
    """`read()` on a replica when the freshness rule allows for the memory states of `scopes`, else on the
    primary; within it, the states of `scopes` are known (read once). With no replica configured: exactly
    `states_read_once` (`states_once`), or `read()` alone (a caller that never read the states before)."""
    if not replicas.configured():
        if not states_once:
            return read()
        with states_read_once(tenant_id, scopes):
            return read()
    if not replicas.primary_may_be_left(tenant_id):  # a bypass, or another tenant's session: not on a replica
        replicas.record("primary_wall")
        with states_read_once(tenant_id, scopes):
            return read()
    keys = scope_keys(tenant_id, scopes)
    sql, params = _probed(PRIMARY_PROBE, tenant_id, keys)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        (primary_lsn, wrote), rows = _split(cursor.fetchall(), 2)
    states = states_of_rows(keys, rows)
    if wrote:
        replicas.record("primary_wrote")
    else:
        sql, params = _probed(replicas.REPLICA_PROBE, tenant_id, keys)

        def judge(replay_lsn: str, replica_rows: list) -> str:
            if states_of_rows(keys, _split(replica_rows, 2)[1]) != states:
                return "primary_stale"
            # The stricter rule would have sent this call back (the replica has not replayed all the primary had).
            behind = replicas.lsn_value(replay_lsn) < replicas.lsn_value(primary_lsn)
            return "replica_lsn_behind" if behind else "replica"

        def read_knowing_states() -> T:
            with states_known(states):
                return read()

        done, result = replicas.read_on_a_replica(tenant_id, sql, params, judge, read_knowing_states)
        if done:
            return result
    with states_known(states):
        return read()
