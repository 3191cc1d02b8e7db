"""`brain_bench context --pooler`: the context endpoint on direct connections, then through PgBouncer in
transaction mode (config/pgbouncer.py, `--pool-size` server connections), in the same run over the same data.

Behind the pooler gunicorn's workers run with `BRAIN_DB_POOLER=transaction` (tickets/tenancy/pooled.py: the
tenant travels in front of each transaction's first statement) and `BRAIN_DB_POOLER_PORT`. Goal (issue 30):
p95 <= 50 ms at >= 100 requests/s through PgBouncer.
"""

from __future__ import annotations

import os

from django.db import connection

from config import pgbouncer

FIGURES = ("rps", "p50_ms", "p95_ms", "p99_ms", "achieved_rate", "errors")


def beside_pooler(run, options, stdout) -> dict:
    if not connection.settings_dict.get("EMBEDDED_DATA_DIR"):
        raise RuntimeError(
            "--pooler starts a PgBouncer in front of the embedded server; with DATABASE_URL, point it at your"
            " PgBouncer and set BRAIN_DB_POOLER=transaction instead"
        )
    stdout.write("== direct connections ==")
    direct = run({**options, "pooler": False}, stdout)
    bouncer = pgbouncer.start(
        connection.settings_dict["EMBEDDED_DATA_DIR"], [options["db"]], pool_size=options["pool_size"]
    )
    saved = {name: os.environ.get(name) for name in ("BRAIN_DB_POOLER", "BRAIN_DB_POOLER_PORT")}
    os.environ.update(BRAIN_DB_POOLER="transaction", BRAIN_DB_POOLER_PORT=str(bouncer.port))
    try:
        stdout.write(
            f"== through PgBouncer (transaction mode, {options['pool_size']} server connections,"
            f" 127.0.0.1:{bouncer.port}) =="
        )
        pooled = run({**options, "pooler": False}, stdout)
    finally:
        bouncer.stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    for name in FIGURES:
        stdout.write(f"{name}: direct {direct.get(name)}, through PgBouncer {pooled.get(name)}")
    p95, rps = pooled.get("p95_ms"), pooled.get("rps") or 0
    met = p95 is not None and p95 <= 50 and rps >= 100
    stdout.write(f"target through PgBouncer: p95 <= 50 ms at >= 100 requests/s {'MET' if met else 'MISSED'}")
    return {"direct": direct, "pooler": {**pooled, "pool_size": options["pool_size"]}}
