"""The Client Brain dashboard's counts, kept by a trigger: `brain_memory_tally`.

Every tenant-scope memory row is counted in one group of (tenant, type, status, typed, confidence bin),
with the sum of its confidence when the confidence is valid (finite within 0–1: bins 0–9, the tenths the
dashboard's histogram shows; -1 is invalid: NaN, infinite, out of range or missing). A statement-level
trigger on `brain_memory` (with transition tables, as the memory-state stamps of migration 0008) adds the
rows a statement inserts and subtracts those it deletes (an update: both), so the tenant-wide aggregates
and the histogram read a few dozen group rows instead of scanning every memory row after each write.

`typed` is the shared four-family guard, `typed.typed_sql()` itself, compiled into the trigger function
by `tally_install()`; a test holds the installed function to the guard of the code, so a change of the
guard needs a migration that calls `tally_install()` again (it recounts every row).

Locking: the trigger fires after the memory-state stamp (triggers fire in name order, `stamp` < `tally`),
which already locks the written scope's state row until the commit, so the group rows it updates add no
new wait and no lock-order inversion between writers.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

from .typed import typed_sql

# Named to sort after brain_memory: tenant erasure deletes table by table in name order, so the memory rows
# go first and their deletion empties the tenant's groups, which the trigger then removes.
TABLE = "brain_memory_tally"
FUNCTION = "brain_memory_tally"
TRIGGERS = ("brain_memory_tally_insert", "brain_memory_tally_update", "brain_memory_tally_delete")
TRUNCATE_TRIGGER = "brain_memory_tally_truncate"
INVALID_BIN = -1
BINS = 10
GROUP = ("tenant_id", "type", "status", "typed", "confidence_bin")


def _counted(rows: str, sign: str) -> str:
    """The tenant-scope rows of transition table `rows` as (group, +1/-1, signed confidence)."""
    valid = '"r"."confidence" >= 0 AND "r"."confidence" <= 1'  # NaN > 1 in PostgreSQL: outside
    return f"""SELECT "r"."tenant_id", "r"."type", "r"."status", {typed_sql("r")} AS typed,
        CASE WHEN {valid} THEN LEAST(floor("r"."confidence" * {BINS})::int, {BINS - 1})
             ELSE {INVALID_BIN} END AS confidence_bin,
        {sign}1 AS n, CASE WHEN {valid} THEN {sign}"r"."confidence"::numeric ELSE 0 END AS confidence
        FROM {rows} AS "r" WHERE "r"."scope_kind" = 'tenant'"""


def _apply(changes: str) -> str:
    """Add the signed changes to their groups (sorted: concurrent writers lock group rows in one order);
    groups a statement left unchanged (an update of other columns) are not written at all."""
    group = ", ".join(GROUP)
    return f"""INSERT INTO {TABLE} AS t ({group}, rows, confidence_sum)
        SELECT {group}, sum(n), sum(confidence) FROM ({changes}) AS c
        GROUP BY {group} HAVING sum(n) <> 0 OR sum(confidence) <> 0 ORDER BY {group}
        ON CONFLICT ({group}) DO UPDATE
        SET rows = t.rows + excluded.rows, confidence_sum = t.confidence_sum + excluded.confidence_sum"""


def _emptied() -> str:
    """Remove the groups a statement emptied (an erased tenant leaves no row behind)."""
    return f"""DELETE FROM {TABLE} WHERE rows = 0
        AND tenant_id IN (SELECT DISTINCT tenant_id FROM old_rows WHERE scope_kind = 'tenant')"""


def install_sql() -> list[str]:
    """The table, the trigger function (with today's typed guard) and its triggers; idempotent."""
    group = ", ".join(GROUP)
    function = f"""CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        TRUNCATE {TABLE};
    ELSIF TG_OP = 'INSERT' THEN
        {_apply(_counted("new_rows", "+"))};
    ELSIF TG_OP = 'DELETE' THEN
        {_apply(_counted("old_rows", "-"))};
        {_emptied()};
    ELSE
        {_apply(_counted("new_rows", "+") + " UNION ALL " + _counted("old_rows", "-"))};
        {_emptied()};
    END IF;
    RETURN NULL;
END $$"""
    statements = [
        f"""CREATE TABLE IF NOT EXISTS {TABLE} (
            tenant_id bigint NOT NULL, type text NOT NULL, status text NOT NULL, typed boolean NOT NULL,
            confidence_bin smallint NOT NULL, rows bigint NOT NULL, confidence_sum numeric NOT NULL,
            PRIMARY KEY ({group}))""",
        function,
    ]
    for name, event, transition in zip(
        TRIGGERS,
        ("INSERT", "UPDATE", "DELETE"),
        ("NEW TABLE AS new_rows", "OLD TABLE AS old_rows NEW TABLE AS new_rows", "OLD TABLE AS old_rows"),
        strict=True,
    ):
        statements += [
            f"DROP TRIGGER IF EXISTS {name} ON brain_memory",
            f"CREATE TRIGGER {name} AFTER {event} ON brain_memory REFERENCING {transition} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()",
        ]
    statements += [
        f"DROP TRIGGER IF EXISTS {TRUNCATE_TRIGGER} ON brain_memory",
        f"CREATE TRIGGER {TRUNCATE_TRIGGER} AFTER TRUNCATE ON brain_memory "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()",
    ]
    return statements


def tally_install(db_connection=None) -> None:
    """Install (or re-install) the tally and count every existing row afresh. Run by a migration: the
    triggers are created first, which locks out writers of brain_memory until the migration commits, so
    the recount and the triggers see one state of the rows."""
    db_connection = db_connection or connection
    with db_connection.cursor() as cursor:
        for statement in install_sql():
            cursor.execute(statement)
        cursor.execute(f"DELETE FROM {TABLE}")
        cursor.execute(_apply(_counted("brain_memory", "+")))


def tally_uninstall_sql() -> list[str]:
    return [
        *(f"DROP TRIGGER IF EXISTS {name} ON brain_memory" for name in (*TRIGGERS, TRUNCATE_TRIGGER)),
        f"DROP FUNCTION IF EXISTS {FUNCTION}()",
        f"DROP TABLE IF EXISTS {TABLE}",
    ]


@dataclass(frozen=True)
class TallyGroup:
    """One group of a tenant's tenant-scope rows: how many, and the sum of their valid confidences."""

    type: str
    status: str
    typed: bool
    confidence_bin: int  # 0–9: the valid tenth; INVALID_BIN: NaN, infinite, outside 0–1 or missing
    rows: int
    confidence_sum: float

    @property
    def valid(self) -> bool:
        return self.confidence_bin != INVALID_BIN


def tally_groups(*, tenant_id: int) -> list[TallyGroup]:
    """The tenant's non-empty groups (every tenant-scope type: callers keep the Client Brain ones).
    One statement over a few dozen rows, whatever the number of memories."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT type, status, typed, confidence_bin, rows, confidence_sum FROM {TABLE}"
            " WHERE tenant_id = %s AND rows <> 0",
            [int(tenant_id)],
        )
        return [
            TallyGroup(type, status, typed, int(b), int(n), float(s))
            for type, status, typed, b, n, s in cursor.fetchall()
        ]
