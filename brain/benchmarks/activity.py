"""Recording a context call's Client Brain activity: the former counter upsert against the pending row (issue 30).

Every context call of a tenant injects much the same brand memories. It used to add one to each of their
counter rows in its write (`FORMER_UPSERT`, below), holding their row locks until its commit, so the tenant's
calls queued on those rows whatever the number of cores. It now inserts one pending row
(`brain.activity.RECORD_ACTIVITY_SQL`), which a drain adds to the counters later. This benchmark runs both
statements, each committed by itself as the call's write is, from 1, 4 and 8 connections of one tenant at
once over the same memory ids (by turns, in the same process), then times the drain of what the pending side
recorded. Figures: statements per second and p50 / p95 ms per statement for each side and thread count, their
ratio, and the drain's milliseconds per thousand recordings.
"""

from __future__ import annotations

import threading
import time

from django.core.management.base import CommandError
from django.db import connection, connections

from brain.activity import COUNTERS, RECORD_ACTIVITY_SQL, activity_drain
from brain.models import Memory
from tickets.tenancy import wall

from .common import fresh_tenant, percentile, use_bench_database

# The statement every context call ran before issue 30's drain (brain/activity.py until 2026-12-05): the baseline.
FORMER_UPSERT = f"""
INSERT INTO {COUNTERS} (memory_id, tenant_id, count, last_at)
SELECT m.id, m.tenant_id, 1, now()
FROM {Memory._meta.db_table} m
WHERE m.tenant_id = %s::bigint AND m.id = ANY(%s::bigint[])
ON CONFLICT (memory_id) DO UPDATE
SET count = {COUNTERS}.count + 1, last_at = excluded.last_at
"""
SIDES = {"upsert": FORMER_UPSERT, "pending": RECORD_ACTIVITY_SQL}


def add_arguments(parser) -> None:
    parser.add_argument("--db", default="brain_bench", help="Benchmark database on the same server.")
    parser.add_argument(
        "--memories",
        type=int,
        default=36,
        help="Memories each call records (a context call injects up to 41 Client Brain memories).",
    )
    parser.add_argument(
        "--statements", type=int, default=400, help="Statements per connection, per side and round."
    )
    parser.add_argument(
        "--threads", default="1,4,8", help="Connections of the tenant at once, comma-separated."
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="Rounds per thread count (the sides alternate)."
    )


def run(options, stdout) -> dict:
    threads = [n.strip() for n in str(options["threads"]).split(",") if n.strip()]
    if not threads or not all(n.isdigit() and int(n) > 0 for n in threads):
        raise CommandError(
            f"--threads takes positive whole numbers separated by commas, not {options['threads']!r}"
        )
    if min(options["statements"], options["memories"], options["rounds"]) < 1:
        raise CommandError("--statements, --memories and --rounds must be at least 1")
    threads = [int(n) for n in threads]
    use_bench_database(options["db"], stdout)
    with wall.tenant_bypass("brain_bench activity: its tenant"):
        tenant = fresh_tenant("bench-activity")
    try:
        with wall.tenant_scope(tenant.pk):
            memory_ids = _memories(tenant.pk, options["memories"])
        return measure(
            tenant.pk,
            memory_ids,
            threads=threads,
            statements=options["statements"],
            rounds=options["rounds"],
            progress=stdout.write,
        )
    finally:
        with wall.tenant_bypass("brain_bench activity: its tenant"):
            tenant.delete()


def _memories(tenant_id: int, count: int) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"""INSERT INTO {Memory._meta.db_table} (tenant_id, scope_kind, scope_id, type, key, payload, text,
                  confidence, status, strength, category, source, surface, provider, campaign_ids, tags,
                  frequency, provenance, embedding_model, created_at, updated_at)
                SELECT %s, 'tenant', '', 'business', '', '{{}}', 'Benchmark fact ' || n, 0.8, 'active', '', '',
                  'derived', 'import', '', '{{}}', '{{}}', 1, '[]', '', now(), now()
                FROM generate_series(1, %s) n RETURNING id""",
            [tenant_id, count],
        )
        return sorted(row[0] for row in cursor.fetchall())


def measure(
    tenant_id: int, memory_ids: list[int], *, threads, statements: int, rounds: int, progress
) -> dict:
    """Both sides at each thread count, by turns; then the drain of what the pending side recorded."""
    figures: dict = {"memories": len(memory_ids), "statements_per_connection": statements, "by_threads": {}}
    recorded = 0
    for count in threads:
        results = {side: [] for side in SIDES}
        for _ in range(rounds):
            for side, sql in SIDES.items():
                results[side].append(_side(tenant_id, memory_ids, sql, count, statements))
        recorded += rounds * count * statements
        row = {}
        for side, runs in results.items():
            latencies = [ms for run in runs for ms in run["latencies"]]
            row[side] = {
                "statements_per_s": [round(run["rate"]) for run in runs],
                "p50_ms": round(percentile(latencies, 50), 3),
                "p95_ms": round(percentile(latencies, 95), 3),
            }
        row["ratio"] = round(
            sum(row["pending"]["statements_per_s"]) / max(1, sum(row["upsert"]["statements_per_s"])), 2
        )
        figures["by_threads"][count] = row
        progress(
            f"{count} connection(s) at once: former upsert {row['upsert']['statements_per_s']} statements/s"
            f" (p50 {row['upsert']['p50_ms']} ms, p95 {row['upsert']['p95_ms']} ms); pending row"
            f" {row['pending']['statements_per_s']} statements/s (p50 {row['pending']['p50_ms']} ms, p95"
            f" {row['pending']['p95_ms']} ms); {row['ratio']}x"
        )
    started = time.perf_counter()
    with wall.tenant_scope(tenant_id):
        drained = activity_drain(tenant_id=tenant_id)
    drain_ms = (time.perf_counter() - started) * 1000
    figures |= {
        "drained": drained,
        "drain_ms": round(drain_ms, 1),
        "drain_ms_per_1000": round(drain_ms / max(1, drained) * 1000, 2),
    }
    progress(f"drain: {drained} recordings (of {recorded}) added to the counters in {drain_ms:.1f} ms")
    return figures


def _side(tenant_id: int, memory_ids: list[int], sql: str, count: int, statements: int) -> dict:
    """`count` connections of the tenant, each running `sql` `statements` times (each its own commit)."""
    start = threading.Barrier(count + 1)
    latencies: list[float] = []
    errors: list[BaseException] = []

    def work():
        mine = []
        try:
            with wall.tenant_scope(tenant_id):
                start.wait()
                for _ in range(statements):
                    began = time.perf_counter()
                    with connection.cursor() as cursor:
                        cursor.execute(sql, [tenant_id, memory_ids])
                    mine.append((time.perf_counter() - began) * 1000)
        except BaseException as exc:  # noqa: BLE001 - raised below, in the caller's thread
            errors.append(exc)
        finally:
            latencies.extend(mine)
            connections.close_all()

    workers = [threading.Thread(target=work) for _ in range(count)]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.perf_counter()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - began
    if errors:
        raise errors[0]
    return {"rate": count * statements / elapsed, "latencies": latencies}
