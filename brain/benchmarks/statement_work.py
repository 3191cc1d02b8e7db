"""The work of the statements a block of code sends to PostgreSQL: each read statement run again under
`EXPLAIN (ANALYZE, BUFFERS)` just before it runs, in the same session and transaction (so its local settings
hold), and summed up as its plan's nodes and the shared buffers its execution touched.

For the timing-channel benchmark (brain.benchmarks.timing_channel) and the tests that hold a tenant's search
to work that depends on its own rows only. Planning's own buffers (catalogs, statistics) are left out: they
depend on what the session's caches hold, not on the rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection


@dataclass(frozen=True)
class StatementWork:
    sql: str
    nodes: str  # the plan's nodes, depth first: "Bitmap Heap Scan on brain_memory > Bitmap Index Scan ..."
    shared: int  # shared buffers hit or read while executing
    rows_removed: int  # rows scans read and threw away (filters and index rechecks)

    def as_dict(self) -> dict:
        return {
            "sql": self.sql,
            "nodes": self.nodes,
            "shared": self.shared,
            "rows_removed": self.rows_removed,
        }


def _node_name(node: dict) -> str:
    name = node["Node Type"]
    if "Index Name" in node:
        name += f" using {node['Index Name']}"
    elif "Relation Name" in node:
        name += f" on {node['Relation Name']}"
    return name


def _walk(node: dict) -> tuple[list[str], int]:
    names = [_node_name(node)]
    removed = int(node.get("Rows Removed by Filter", 0)) + int(node.get("Rows Removed by Index Recheck", 0))
    for child in node.get("Plans", ()):
        child_names, child_removed = _walk(child)
        names += child_names
        removed += child_removed
    return names, removed


def _is_read(sql: str) -> bool:
    head = sql.lstrip().lstrip("(").lstrip()[:40].upper()
    return head.startswith(("SELECT", "WITH")) and "SET_CONFIG" not in head


def search_work(block: Callable[[], object]) -> list[StatementWork]:
    """Run `block`; each read statement it sends is first run under EXPLAIN (ANALYZE, BUFFERS) in the same
    session (it is read-only, so running it twice changes nothing). Returns their work in order."""
    found: list[StatementWork] = []

    def explain_first(execute, sql, params, many, context):
        if not many and _is_read(sql):
            with connection.connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}", params)
                plan = cursor.fetchone()[0]
            top = (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]
            names, removed = _walk(top)
            shared = int(top.get("Shared Hit Blocks", 0)) + int(top.get("Shared Read Blocks", 0))
            found.append(StatementWork(" ".join(sql.split()), " > ".join(names), shared, removed))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(explain_first):
        block()
    return found
