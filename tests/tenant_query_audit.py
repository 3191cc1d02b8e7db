"""The tenant query audit (issue 30, section 3): which statements of the test suite Citus could not route to one
tenant's shard.

With `BRAIN_AUDIT_TENANT_QUERIES=1` (`.ci/run` sets it) every statement sent through Django's cursors, in every
thread of the test process (the test thread, live servers, threads a test starts), passes an execute wrapper
that notes a SELECT, UPDATE or DELETE touching a distributed tenant table (`tickets/tenancy/scale.py`: a tenant
table that is not a reference table) without a `tenant_id` condition on that table, and an INSERT into one
without a `tenant_id` column. At the end of the session the statements are written by shape (literals and IN
lists folded) with their count and first test to `var/tenant-query-audit.txt` (`BRAIN_AUDIT_TENANT_QUERIES_REPORT`)
and summarised on the terminal.

It reports and does not fail: today's list is Django's own statements by primary key (`save()`, `delete()`,
`refresh_from_db()`, the cascade collector), which Citus runs as multi-shard statements, and the shapes a test
selection produces differ from run to run, so a committed list would fail partial runs. Worker subprocesses and
driver cursors (connection upkeep) are not seen. A statement is parsed once (verdicts are cached by its text),
with regular expressions over Django's and our SQL: a `tenant_id` condition is `"t"."tenant_id" = ...`,
`... IN (...)`, `= ANY(...)`, a join's `= "t"."tenant_id"` or a row `("t"."tenant_id", ...) IN`, for the table's
name or its alias; an unqualified `tenant_id = ...` counts for every table of the statement (our raw SQL's
one-table statements).
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ENV = "BRAIN_AUDIT_TENANT_QUERIES"
REPORT_ENV = "BRAIN_AUDIT_TENANT_QUERIES_REPORT"
REPO = Path(__file__).resolve().parent.parent
_KEYWORDS = {
    "where", "on", "inner", "left", "right", "full", "cross", "join", "set", "values", "group", "order", "limit",
    "offset", "for", "using", "returning", "union", "window", "having", "except", "intersect", "lateral",
    "natural", "outer", "default", "select",
}  # fmt: skip
_DML = re.compile(r"^\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\b", re.I)
_FOLD = [
    (re.compile(r"\bIN\s*\((?:\s*%s\s*,?)+\)", re.I), "IN (...)"),
    (re.compile(r"'(?:[^']|'')*'"), "'?'"),
    (re.compile(r"\b\d+\b"), "N"),
    (re.compile(r"\s+"), " "),
]


def shape(sql: str) -> str:
    for pattern, replacement in _FOLD:
        sql = pattern.sub(replacement, sql)
    return sql.strip()


def _condition(name: str) -> re.Pattern:
    quoted = f'"?{re.escape(name)}"?'
    return re.compile(
        rf'{quoted}\."?tenant_id"?\s*(?:=|IN\s*\()|=\s*(?:ANY\s*\(\s*)?{quoted}\."?tenant_id"?\b'
        rf'|\(\s*{quoted}\."?tenant_id"?\s*,[^()]*\)\s*(?:=|IN\b)',
        re.I,
    )


_UNQUALIFIED = re.compile(
    r'(?<![."\w])"?tenant_id"?\s*(?:=|IN\s*\()|\(\s*"?tenant_id"?\s*,[^()]*\)\s*(?:=|IN\b)', re.I
)


@dataclass
class Shape:
    tables: tuple[str, ...]
    count: int = 0
    first_test: str = ""


@dataclass
class TenantQueryAudit:
    """An execute wrapper (Django's `connection.execute_wrappers`) noting statements without a tenant condition."""

    tables: frozenset[str] = frozenset()
    statements: int = 0
    current_test: str = ""
    verdicts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    shapes: dict[str, Shape] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    paused: bool = False  # while the test database is created and migrated
    _table_pattern: re.Pattern | None = None

    def __call__(self, execute, sql, params, many, context):
        try:
            self.observe(sql)
        except Exception:  # noqa: BLE001 - the audit never breaks a test
            pass
        return execute(sql, params, many, context)

    def _tables(self) -> re.Pattern:
        if self._table_pattern is None:
            from django.apps import apps

            from tickets.tenancy import scale

            self.tables = (
                frozenset(m._meta.db_table for m in apps.get_models() if scale.is_tenant_model(m))
                - scale.REFERENCE_TABLES
            )
            names = "|".join(sorted(map(re.escape, self.tables), key=len, reverse=True))
            self._table_pattern = re.compile(
                rf'\b(FROM|JOIN|UPDATE|INTO)\s+(?:ONLY\s+)?"?({names})(?!\w)"?'
                rf'(?:\s*\(([^)]*)\)|\s+(?:AS\s+)?"?([A-Za-z_]\w*)"?)?',
                re.I,
            )
        return self._table_pattern

    def lacking(self, sql: str) -> tuple[str, ...]:
        """The distributed tenant tables `sql` touches without a tenant_id condition on them."""
        if not _DML.match(sql):
            return ()
        found = self._tables().findall(sql)
        if not found:
            return ()
        unqualified = bool(_UNQUALIFIED.search(sql))
        missing = []
        for verb, table, columns, alias in found:
            if verb.upper() == "INTO":  # an INSERT's rows are routed by the tenant_id they carry
                if "tenant_id" not in columns:
                    missing.append(table)
                continue
            names = [table] + ([alias] if alias and alias.lower() not in _KEYWORDS else [])
            if not unqualified and not any(_condition(name).search(sql) for name in names):
                missing.append(table)
        return tuple(sorted(set(missing)))

    def observe(self, sql: str) -> None:
        if self.paused:
            return
        verdict = self.verdicts.get(sql)
        if verdict is None:
            verdict = self.verdicts[sql] = self.lacking(sql)
        with self.lock:
            self.statements += 1
            if verdict:
                key = shape(sql)
                entry = self.shapes.get(key)
                if entry is None:
                    entry = self.shapes[key] = Shape(verdict, first_test=self.current_test)
                entry.count += 1

    def install(self, connection) -> None:
        """First in the list: Django's `execute_wrapper()` blocks pop the last one."""
        if self not in connection.execute_wrappers:
            connection.execute_wrappers.insert(0, self)

    def report(self, path: Path | None = None) -> tuple[Path, list[str]]:
        path = path or Path(os.environ.get(REPORT_ENV) or REPO / "var" / "tenant-query-audit.txt")
        path.parent.mkdir(parents=True, exist_ok=True)
        ordered = sorted(self.shapes.items(), key=lambda item: (-item[1].count, item[0]))
        lacking = sum(entry.count for entry in self.shapes.values())
        per_table = Counter(table for entry in self.shapes.values() for table in entry.tables)
        summary = [
            f"tenant query audit: {self.statements} statements, {lacking} on a distributed tenant table without "
            f"a tenant_id condition, in {len(self.shapes)} shapes; shapes per table: "
            + (", ".join(f"{table} {n}" for table, n in per_table.most_common()) or "none"),
            f"tenant query audit: report in {path}",
        ]
        lines = [summary[0], ""]
        for key, entry in ordered:
            lines.append(f"{entry.count:7d}  {', '.join(entry.tables)}  (first: {entry.first_test})")
            lines.append(f"         {key}")
        path.write_text("\n".join(lines) + "\n")
        return path, summary


class AuditPlugin:
    """The audit's pytest hooks, registered as a plugin of their own so that they see session fixtures too."""

    def __init__(self, audit: TenantQueryAudit):
        self.audit = audit

    def connection_created(self, sender, connection, **kwargs) -> None:
        self.audit.install(connection)

    def pytest_runtest_setup(self, item) -> None:
        from django.db import connections
        from django.db.backends.signals import connection_created

        connection_created.connect(self.connection_created, dispatch_uid="tests.tenant_query_audit")
        self.audit.current_test = item.nodeid
        for connection in connections.all():  # this thread's; other threads' as they connect
            self.audit.install(connection)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        """The test database's set-up (migrations) is not the test suite's statements."""
        pausing = fixturedef.argname == "django_db_setup"
        self.audit.paused = self.audit.paused or pausing
        try:
            yield
        finally:
            if pausing:
                self.audit.paused = False

    def pytest_terminal_summary(self, terminalreporter) -> None:
        _, summary = self.audit.report()
        for line in summary:
            terminalreporter.write_line(line)


def pytest_configure(config) -> None:
    """tests/conftest.py imports this hook: with BRAIN_AUDIT_TENANT_QUERIES=1 the audit's plugin is registered."""
    if os.environ.get(ENV) == "1" and not config.pluginmanager.has_plugin("brain_tenant_query_audit"):
        config.pluginmanager.register(AuditPlugin(TenantQueryAudit()), "brain_tenant_query_audit")
