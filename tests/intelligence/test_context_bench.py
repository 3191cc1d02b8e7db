"""`manage.py brain_bench context` runs end to end (the README's command, at a tiny size): it loads its
tenant, serves it with gunicorn, measures both phases and prints its figures as JSON last."""

import json
import secrets
import subprocess
import sys
import time
from pathlib import Path

import psycopg
from django.db import connections

from config.db_backend.base import driver_params

REPO = Path(__file__).resolve().parents[2]


def _drop(database: str) -> None:
    params = driver_params(connections["default"].settings_dict, migration=True)  # the databases' owner
    with psycopg.connect(**{**params, "dbname": "postgres"}, autocommit=True) as conn:
        # The benchmark's servers have stopped, but their sessions may take a moment to leave, and the owner
        # may not terminate another role's session (FORCE failed so once, 2026-12-06): wait up to 10 s first.
        for _ in range(100):
            others = "SELECT 1 FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"
            if conn.execute(others, [database]).fetchone() is None:
                break
            time.sleep(0.1)
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def test_the_context_benchmark_runs_and_prints_its_figures():
    database = f"brain_bench_smoke_{secrets.token_hex(4)}"
    try:
        result = subprocess.run(
            [
                sys.executable, "manage.py", "brain_bench", "context", "--db", database,
                "--agents", "2", "--agent-memories", "40", "--client-brain-rows", "60",
                "--requests", "30", "--rate", "20", "--rate-requests", "20", "--json",
            ],
            cwd=REPO, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    finally:
        _drop(database)
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["errors"] == 0
    assert figures["requests"] == 50 and figures["saturated"]["requests"] == 30
    assert figures["rps"] > 0 and 0 < figures["p50_ms"] <= figures["p95_ms"] <= figures["p99_ms"]
    assert figures["worker_class"] == "sync" and figures["workers"] == 2
    assert figures["conversations"] == "synthetic"
    assert "targets: p95 <= 50 ms at 20 requests/s" in result.stdout
    # The agent memories get their vectors, as the product gives them after each write: the calls' relevance
    # runs its vector tier over them.
    assert "embedded 40 agent memories" in result.stdout


def test_the_context_benchmark_measures_beside_pgbouncer(require_pgbouncer):
    """`--pooler`: the same run measures direct connections, then gunicorn behind PgBouncer in transaction mode;
    here with the Bitext sample's customer messages as the conversations (`--conversations bitext`)."""
    database = f"brain_bench_smoke_{secrets.token_hex(4)}"
    try:
        result = subprocess.run(
            [
                sys.executable, "manage.py", "brain_bench", "context", "--db", database, "--pooler",
                "--conversations", "bitext",
                "--agents", "2", "--agent-memories", "40", "--client-brain-rows", "60",
                "--requests", "20", "--rate", "20", "--rate-requests", "20", "--json",
            ],
            cwd=REPO, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
    finally:
        _drop(database)
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["direct"]["errors"] == 0 and figures["pooler"]["errors"] == 0
    assert figures["pooler"]["requests"] == 40 and figures["pooler"]["pool_size"] == 4
    assert "through PgBouncer (transaction mode" in result.stdout
    assert (
        figures["pooler"]["conversations"] == "bitext"
        and "conversations: Bitext customer messages" in result.stdout
    )
