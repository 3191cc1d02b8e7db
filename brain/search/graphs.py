"""Tenant graphs: each large tenant's vectors in an HNSW graph of their own (issue 31).

One HNSW graph over every tenant's rows answers a tenant's query by walking mostly other tenants' vectors:
filtered to a tenant that holds a tenth of a million-row table, the walk's candidate list holds a tenth of
its usual count of that tenant's rows, and a fifth of the vector tier's answers to queries that are not
near-copies were wrong (`brain_bench scale`, the README's Scale section). A tenant graph is a partial HNSW
index, `WHERE tenant_id = N`, one per tenant holding at least `BRAIN_RECALL["TENANT_GRAPH_MIN_ROWS"]`
embedded rows: the planner walks it only for a query that names that tenant (the search statements name
their tenant as a literal), and the walk meets that tenant's vectors alone. A tenant below the bound has no
graph; its vector tier is the exact scan of its own rows (cheap at that size). Nothing about the table
changes: row-level security, the memory-state triggers, the keys and the Citus path (a partial index is
created on every shard of a distributed table) hold as before.

`sync_graphs` builds the graphs that are due and drops those of tenants that shrank below half the bound
(or were deleted), one tenant at a time with `CREATE INDEX CONCURRENTLY` (writes go on) as the schema's
owner: `manage.py memory_graphs` runs it with progress, so does the hourly beat task and the migration that
replaced the shared graph. It is resumable: a build interrupted by a crash leaves an invalid index, which the
next run drops and builds again; a graph already built is kept.

Which graphs exist is read from the catalog once a minute per process (`has_graph`): a new graph serves its
tenant within a minute of its build, and the exact scan serves it until then.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import psycopg
from django.db import connection

from brain.caches import TimedValue

PREFIX = "memory_graph_t"
# The graph's build parameters: those of the shared graph it replaced (m 16, ef_construction 64).
_DEFINITION = (
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON brain_memory USING hnsw (embedding vector_cosine_ops)"
    " WITH (m = 16, ef_construction = 64) WHERE tenant_id = {tenant_id}::bigint"
)
_GRAPHS = TimedValue(
    "memory-graphs", seconds=60, keyed_on="the tenant graphs in the catalog, read once a minute"
)


def graph_name(tenant_id: int) -> str:
    return f"{PREFIX}{int(tenant_id)}"


@dataclass(frozen=True)
class Graph:
    tenant_id: int
    name: str
    valid: bool  # False: a build that did not finish (CONCURRENTLY leaves the invalid index behind)
    rows: int  # the entries the catalog counts (at its build, then at each VACUUM or ANALYZE)


def _graphs_in(cursor) -> dict[int, Graph]:
    cursor.execute(
        """SELECT c.relname, i.indisvalid, greatest(c.reltuples, 0)::bigint FROM pg_index i
        JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = 'brain_memory'::regclass AND c.relname LIKE %s""",
        [PREFIX + "%"],
    )
    graphs = {}
    for name, valid, rows in cursor.fetchall():
        suffix = name[len(PREFIX) :]
        if suffix.isdigit():
            graphs[int(suffix)] = Graph(int(suffix), name, valid, rows)
    return graphs


def _load_valid() -> dict[int, int]:
    with connection.cursor() as cursor:
        return {t: graph.rows for t, graph in _graphs_in(cursor).items() if graph.valid}


def has_graph(tenant_id: int) -> bool:
    """Whether the tenant's vectors have a graph of their own (as the catalog said at most a minute ago)."""
    return tenant_id in _GRAPHS.get(_load_valid)


def walk_size(tenant_id: int, ef_search: int, reference_rows: int) -> int:
    """The candidates a walk of the tenant's graph keeps: `ef_search` for a graph of `reference_rows`,
    scaled by the square root of the graph's size (a walk of a small graph reaches its true neighbours with
    fewer: `brain_bench scale`'s sweep), within pgvector's 1 to 1,000."""
    rows = _GRAPHS.get(_load_valid).get(tenant_id) or reference_rows
    return max(1, min(1000, math.ceil(ef_search * math.sqrt(rows / reference_rows))))


@dataclass(frozen=True)
class GraphPlan:
    """What `sync_graphs` does: graphs to build ({tenant: embedded rows}), to drop (tenant ids), and
    invalid leftovers of interrupted builds to drop before building them again."""

    build: dict[int, int]
    drop: tuple[int, ...]
    invalid: tuple[int, ...]


def plan_graphs(*, min_rows: int, tenant_ids: Iterable[int] | None = None) -> GraphPlan:
    """The graphs due: one per tenant with at least `min_rows` embedded rows and none yet; the graphs of
    tenants under half of `min_rows` (so a tenant at the bound is not built and dropped in turn) dropped."""
    from tickets.tenancy.wall import tenant_bypass

    only = None if tenant_ids is None else set(tenant_ids)
    with tenant_bypass("tenant graphs: embedded rows per tenant"), connection.cursor() as cursor:
        cursor.execute(
            "SELECT tenant_id, count(*) FROM brain_memory WHERE embedding IS NOT NULL GROUP BY tenant_id"
        )
        rows = {tenant: count for tenant, count in cursor.fetchall() if only is None or tenant in only}
        graphs = {t: g for t, g in _graphs_in(cursor).items() if only is None or t in only}
    build = {
        tenant: count
        for tenant, count in sorted(rows.items())
        if count >= min_rows and not (tenant in graphs and graphs[tenant].valid)
    }
    drop = tuple(sorted(t for t, g in graphs.items() if g.valid and rows.get(t, 0) < min_rows / 2))
    invalid = tuple(sorted(t for t, g in graphs.items() if not g.valid))
    return GraphPlan(build=build, drop=drop, invalid=invalid)


def owner_connection() -> psycopg.Connection:
    """An autocommit connection as the schema's owner (CREATE INDEX CONCURRENTLY runs outside a transaction)."""
    from config.db_backend.base import driver_params

    return psycopg.connect(**driver_params(connection.settings_dict, migration=True), autocommit=True)


def sync_graphs(
    *,
    min_rows: int,
    tenant_ids: Iterable[int] | None = None,
    dry_run: bool = False,
    say: Callable[[str], None] = lambda line: None,
    owner: psycopg.Connection | None = None,
) -> GraphPlan:
    """Build the graphs due and drop the graphs no longer wanted (`plan_graphs`), one tenant at a time,
    saying each step; returns the plan carried out (or, with `dry_run`, the plan)."""
    plan = plan_graphs(min_rows=min_rows, tenant_ids=tenant_ids)
    steps = len(plan.build) + len(plan.drop)
    say(
        f"tenant graphs: {len(plan.build)} to build, {len(plan.drop)} to drop, {len(plan.invalid)} interrupted"
        f" builds to redo (a graph for each tenant of at least {min_rows:,} embedded rows)"
    )
    if dry_run:
        return plan
    own = owner is None
    owner = owner_connection() if own else owner
    try:
        with owner.cursor() as cursor:
            for tenant_id in plan.invalid:
                cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {graph_name(tenant_id)}")
            done = 0
            for tenant_id, count in plan.build.items():
                began = time.perf_counter()
                cursor.execute("SET maintenance_work_mem = '1GB'")
                cursor.execute(_DEFINITION.format(name=graph_name(tenant_id), tenant_id=int(tenant_id)))
                done += 1
                say(
                    f"  [{done}/{steps}] built {graph_name(tenant_id)} over {count:,} rows"
                    f" in {time.perf_counter() - began:.1f}s"
                )
            for tenant_id in plan.drop:
                cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {graph_name(tenant_id)}")
                done += 1
                say(f"  [{done}/{steps}] dropped {graph_name(tenant_id)}")
    finally:
        if own:
            owner.close()
        _GRAPHS.clear()
    return plan
