"""Client Brain: initial-run recall latency at 1k/10k/100k rows, and learning throughput on a real worker.

`manage.py brain_bench client-brain [--json]`. It lives in `tickets` because it measures both halves
(brain must not import tickets):

1. Recall: `brain.benchmarks.client_brain.measure_recall_latency()` (the brain side's own measurement): one
   throw-away tenant grows to each row count (typed rows of the four families, some legacy shapes and
   invalid confidences), then `client_brain_context()` — both tiers, ranking, typed admission, caps,
   rendering and the activity update, exactly what the context endpoint runs — is timed for many
   ticket-like queries. p50/p95 per row count, plus the read path alone and the machine's load.
2. Learning: N tickets with realistic evidence are solved through `ticket_transition`; a real Celery
   worker (started here, on the broker given) runs `learn_from_ticket` with the configured provider
   (local by default), so the figure covers the broker round trip, extraction, the typed guard and
   `promote()` (gate, judge, duplicate backstop, embedding). Tickets per second from the first status
   change until every attempt has finished.

Everything runs in a separate database (default `brain_bench`), never the development one.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

from django.conf import settings
from django.db import connection

from brain.benchmarks.client_brain import measure_recall_latency
from brain.benchmarks.common import fresh_tenant, use_bench_database
from brain.models import Memory
from tickets import services
from tickets.demo import ACME_TICKETS, GLOBEX_TICKETS
from tickets.models import LearningAttempt, LearningStatus

LEARNING_TENANT = "bench-client-brain-learning"
FINISHED = (LearningStatus.SUCCEEDED, LearningStatus.SKIPPED, LearningStatus.FAILED)

PRODUCTS = (
    "tent pole", "sleeping bag", "hiking boots", "rain jacket", "backpack", "camping stove", "headlamp",
    "trekking poles", "water filter", "sleeping mat", "fibre broadband", "mobile plan", "SIM card",
    "router", "roaming pass", "landline", "smartwatch plan", "device insurance", "phone screen", "voicemail",
)  # fmt: skip


def add_arguments(parser) -> None:
    parser.add_argument(
        "--database", default="brain_bench", help="Database to load into (created if missing)."
    )
    parser.add_argument(
        "--rows", default="1000,10000,100000", help="Comma-separated row counts for recall latency."
    )
    parser.add_argument("--queries", type=int, default=200, help="Recall calls measured per row count.")
    parser.add_argument("--tickets", type=int, default=200, help="Tickets learned for the throughput figure.")
    parser.add_argument(
        "--broker",
        default=os.environ.get("BRAIN_BENCH_BROKER_URL")
        or settings.CELERY_BROKER_URL
        or "redis://127.0.0.1:6379/13",
        help="Broker the benchmark's Celery worker uses (its queue is flushed first: use a spare Redis db).",
    )
    parser.add_argument("--concurrency", type=int, default=2, help="Worker processes (prefork).")
    parser.add_argument(
        "--embedder",
        choices=("minilm", "hashing", "openai"),
        default=None,
        help="The worker's BRAIN_EMBEDDER (default: as configured). promote() embeds every candidate.",
    )
    parser.add_argument(
        "--timeout", type=int, default=900, help="Give up waiting for learning after N seconds."
    )
    parser.add_argument("--skip-recall", action="store_true", help="Only measure learning throughput.")
    parser.add_argument("--skip-learning", action="store_true", help="Only measure recall latency.")
    parser.add_argument("--seed", type=int, default=7)


# --- Learning throughput ----------------------------------------------------------------------------------


def _start_worker(
    broker: str, concurrency: int, embedder: str | None, stdout
) -> tuple[subprocess.Popen, Path]:
    from config.celery import app, use_broker

    subprocess.run(  # a clean queue: nothing left from an earlier, interrupted run
        [sys.executable, "-c", f"import redis; redis.Redis.from_url({broker!r}).flushdb()"], check=False
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings.dev"),
        "CELERY_BROKER_URL": broker,
        "CELERY_RESULT_BACKEND": broker,
        "BRAIN_DB_NAME": connection.settings_dict["NAME"],
        # One math thread per worker process: N processes each spawning a thread per core would fight
        # over the same cores (the embedder runs in every process).
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
    }
    if embedder:
        env["BRAIN_EMBEDDER"] = embedder
    if os.environ.get("DATABASE_URL"):
        url = urlparse(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = url._replace(path="/" + connection.settings_dict["NAME"]).geturl()
    log_path = Path(settings.BASE_DIR) / "var" / f"bench-worker-{os.getpid()}.log"
    log_path.parent.mkdir(exist_ok=True)
    log = open(log_path, "w")  # noqa: SIM115 - closed with the worker
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=prefork",
            f"--concurrency={concurrency}",
            "--loglevel=warning",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"bench-{os.getpid()}@%h",
        ],  # fmt: skip
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    worker._brain_log = log  # closed in _stop_worker
    use_broker(broker, broker)
    deadline = time.monotonic() + 90
    while not app.control.ping(timeout=0.5):
        if worker.poll() is not None or time.monotonic() > deadline:
            _stop_worker(worker)
            raise SystemExit(f"the Celery worker did not start on {broker}; see {log_path}")
    stdout.write(
        f"worker up ({concurrency} processes, embedder {embedder or 'as configured'}, broker {broker})"
    )
    return worker, log_path


def _stop_worker(worker: subprocess.Popen) -> None:
    from config.celery import use_broker

    worker.terminate()
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()
    worker._brain_log.close()
    use_broker(settings.CELERY_BROKER_URL or None, settings.CELERY_RESULT_BACKEND)


def _bench_tickets(tenant, count: int, rng: random.Random, prefix: str) -> list:
    """`count` open tickets with evidence, varied from the demo tickets (numbers, products, requesters)."""
    templates = ACME_TICKETS + GLOBEX_TICKETS
    tickets = []
    for n in range(count):
        demo = templates[n % len(templates)]
        product = rng.choice(PRODUCTS)
        ticket, _ = services.ticket_upsert(
            tenant=tenant,
            external_id=f"{prefix}-{n}",
            subject=f"{demo.subject} ({product})",
            requester=f"customer{n}@example.com",
            status="open",
        )
        services.message_add(ticket=ticket, direction="inbound", body=demo.customer_message)
        services.message_add(
            ticket=ticket,
            direction="outbound",
            body=demo.reply.replace("two", rng.choice(("two", "three", "four"))),
        )
        services.classification_add(ticket=ticket, category=demo.category, intent=demo.intent, confidence=0.9)
        for action, kind, decision in demo.approvals:
            services.approval_record(ticket=ticket, proposed_action=action, kind=kind, decision=decision)
        tickets.append(ticket)
    return tickets


def _wait_for_attempts(tenant, expected: int, timeout: int, stdout, started: float) -> int:
    attempts = LearningAttempt.objects.for_tenant(tenant)
    last_report = 0.0
    while True:
        done = attempts.filter(status__in=FINISHED).count()
        now = time.perf_counter()
        if done >= expected:
            return done
        if now - started > timeout:
            stdout.write(f"  gave up after {timeout} s with {done}/{expected} attempts finished")
            return done
        if now - last_report > 5:
            stdout.write(f"  {done}/{expected} learning attempts finished ({now - started:.1f} s)")
            last_report = now
        time.sleep(0.25)


def measure_learning(options: dict, rng: random.Random, stdout) -> dict:
    tenant = fresh_tenant(LEARNING_TENANT, "Bench learning")
    count = options["tickets"]
    stdout.write(f"learning: preparing {count} tickets with evidence ...")
    warmup = _bench_tickets(tenant, 2, rng, "WARM")
    tickets = _bench_tickets(tenant, count, rng, "BENCH")
    worker, log_path = _start_worker(
        options["broker"], options["concurrency"], options.get("embedder"), stdout
    )
    try:
        # Warm-up: the worker loads the embedder and plans on its first tasks; not timed.
        for ticket in warmup:
            services.ticket_transition(ticket=ticket, status="solved")
        _wait_for_attempts(tenant, len(warmup), options["timeout"], stdout, time.perf_counter())
        started = time.perf_counter()
        for ticket in tickets:
            services.ticket_transition(ticket=ticket, status="solved")  # enqueued on commit
        done = _wait_for_attempts(tenant, len(warmup) + count, options["timeout"], stdout, started) - len(
            warmup
        )
        elapsed = time.perf_counter() - started
    finally:
        _stop_worker(worker)
    timed = LearningAttempt.objects.for_tenant(tenant).filter(ticket_external_id__startswith="BENCH-")
    by_status = {str(s.value): timed.filter(status=s).count() for s in FINISHED}
    totals = {
        f: sum(timed.values_list(f, flat=True)) for f in ("added", "reinforced", "superseded", "rejected")
    }
    figures = {
        "tickets": count,
        "finished": done,
        "seconds": round(elapsed, 2),
        "tickets_per_s": round(done / elapsed, 2) if elapsed else 0.0,
        "attempts": by_status,
        "promote": totals,
        "memories": Memory.objects.for_tenant(tenant).count(),
        "worker_concurrency": options["concurrency"],
        "provider": settings.BRAIN_LLM_PROVIDER["BACKEND"].rsplit(".", 1)[-1],
        "embedder": options.get("embedder") or settings.BRAIN_EMBEDDER["BACKEND"].rsplit(".", 1)[-1],
    }
    stdout.write(
        f"learning: {done}/{count} tickets in {elapsed:.1f} s = {figures['tickets_per_s']} tickets/s "
        f"({options['concurrency']} worker processes, {figures['provider']}, {figures['embedder']}); "
        f"attempts {by_status}; promote {totals}; {figures['memories']} memories"
    )
    return figures


def run(options: dict, stdout) -> dict:
    use_bench_database(options["database"], stdout)
    rng = random.Random(options["seed"])
    figures: dict = {}
    if not options.get("skip_recall"):
        row_counts = tuple(sorted(int(r) for r in str(options["rows"]).split(",") if r.strip()))
        recall = measure_recall_latency(
            row_counts, queries=options["queries"], seed=options["seed"], progress=stdout.write
        )
        figures["recall"] = recall
        figures["recall_p95_ms"] = {str(k): v for k, v in recall["recall_p95_ms"].items()}
        figures["recall_p50_ms"] = {str(k): v for k, v in recall["recall_p50_ms"].items()}
        for name in [k for k in recall if k.startswith("dashboard_")]:  # issue 17: p50 / p95, baseline beside
            figures[name] = {str(k): v for k, v in recall[name].items()}
    if not options.get("skip_learning"):
        learning = measure_learning(options, rng, stdout)
        figures["learning"] = learning
        figures["tickets_per_s"] = learning["tickets_per_s"]
    return figures
