"""Chaos: tickets solved through a real worker that is SIGKILLed mid-run; lost, duplicated, stuck.

`manage.py brain_bench chaos [--json]` (and the `chaos` test, with a short lease): for each broker (Redis,
RabbitMQ) N tickets with evidence are solved through `ticket_transition`; a real Celery worker (prefork, its
own process group) learns them, and is SIGKILLed K times at fixed points (a fixed seed jitters them) and
started again at once. The requeue service runs as beat would, every half lease. Once the lease has passed
and every attempt has finished (or the time bound is reached):

- `lost`: solved tickets without a succeeded learning attempt;
- `duplicated`: tickets learned by more than one attempt, plus promote() writes beyond what the attempts
  recorded (a candidate written by a killed try and again by the next);
- `stuck`: attempts still queued or running.

It lives in `tickets` because it drives the helpdesk's trigger and the brain's formation (brain must not
import tickets). The benchmark runs in its own database (default `brain_bench_chaos`).
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlparse

from django.conf import settings
from django.db import connection
from django.db.models import Count

from brain.models import MemoryHistory
from tickets import services
from tickets.benchmarks.client_brain import _bench_tickets
from tickets.models import LearningAttempt, LearningStatus

UNFINISHED = (LearningStatus.QUEUED, LearningStatus.RUNNING)
PROMOTE_ACTIONS = ("added", "reinforced", "superseded", "rejected")


@dataclass(frozen=True)
class ChaosFigures:
    broker: str
    tickets: int
    kills: int
    lost: int
    duplicated: int
    stuck: int
    succeeded: int
    seconds: float
    requeued: int
    writes: dict  # promote()'s history rows per action, against what the attempts recorded


def add_arguments(parser) -> None:
    parser.add_argument(
        "--database", default="brain_bench_chaos", help="Database to run in (created if missing)."
    )
    parser.add_argument("--tickets", type=int, default=200)
    parser.add_argument("--kills", type=int, default=3, help="SIGKILLs of the worker per broker.")
    parser.add_argument("--lease", type=int, default=5, help="The running attempts' lease (seconds).")
    parser.add_argument(
        "--queue-lease", type=int, default=15, help="How long (seconds) a sent attempt may wait in the queue."
    )
    parser.add_argument(
        "--brokers",
        default=",".join(
            (os.environ.get("BRAIN_BENCH_BROKER_URL") or "redis://127.0.0.1:6379/12", amqp_url())
        ),
        help="Comma-separated broker URLs (Redis and RabbitMQ).",
    )
    parser.add_argument("--concurrency", type=int, default=2, help="Worker processes (prefork).")
    parser.add_argument("--timeout", type=int, default=240, help="Give up after N seconds per broker.")
    parser.add_argument("--seed", type=int, default=15)


def amqp_url() -> str:
    return os.environ.get("BRAIN_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//")


class ChaosWorker:
    """A Celery worker in its own process group on `broker`, consuming its own queue; kill() SIGKILLs it all."""

    def __init__(self, broker: str, queue: str, leases: tuple[int, int], concurrency: int, log_path: Path):
        self.broker, self.queue, self.leases, self.concurrency = broker, queue, leases, concurrency
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None
        self.node = f"chaos-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"

    def start(self) -> None:
        from config.celery import app

        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings.test"),
            "CELERY_BROKER_URL": self.broker,
            "CELERY_RESULT_BACKEND": "",
            "BRAIN_DB_NAME": connection.settings_dict["NAME"],
            "BRAIN_LEARNING_LEASE": str(self.leases[0]),
            "BRAIN_LEARNING_QUEUE_LEASE": str(self.leases[1]),
            "BRAIN_EMBEDDER": os.environ.get("BRAIN_EMBEDDER", "hashing"),
            "OMP_NUM_THREADS": "1",
        }
        if os.environ.get("DATABASE_URL"):
            url = urlparse(os.environ["DATABASE_URL"])
            env["DATABASE_URL"] = url._replace(path="/" + connection.settings_dict["NAME"]).geturl()
        log = open(self.log_path, "a")  # noqa: SIM115 - the child holds it; closed here at once
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=prefork",
                f"--concurrency={self.concurrency}",
                "--loglevel=warning",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-Q",
                self.queue,
                "-n",
                self.node,
            ],  # fmt: skip
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a kill takes the pool's children with it
        )
        log.close()
        deadline = time.monotonic() + 90
        while not app.control.ping(timeout=0.5, destination=[self.node]):  # not another's worker
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"the chaos worker did not start on {self.broker}; see {self.log_path}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None


def _finished(tenant) -> int:
    return LearningAttempt.objects.for_tenant(tenant).exclude(status__in=UNFINISHED).count()


def _measure(tenant, tickets: list, kills: int, seconds: float, requeued: int, broker: str) -> ChaosFigures:
    attempts = LearningAttempt.objects.for_tenant(tenant)
    ticket_ids = [t.pk for t in tickets]
    succeeded_by_ticket = dict(
        attempts.filter(status=LearningStatus.SUCCEEDED)
        .values("ticket_id")
        .annotate(n=Count("id"))
        .values_list("ticket_id", "n")
    )
    lost = sum(1 for pk in ticket_ids if not succeeded_by_ticket.get(pk))
    twice = sum(1 for n in succeeded_by_ticket.values() if n > 1)
    recorded = dict.fromkeys(PROMOTE_ACTIONS, 0)
    for outcomes in attempts.values_list("outcomes", flat=True):
        for outcome in outcomes:
            if outcome.get("reason") != "untyped_shape":  # refused by the typed guard: nothing written
                recorded[outcome["result"]] += 1
    history = dict(
        MemoryHistory.objects.for_tenant(tenant)
        .filter(surface="client_brain", action__in=PROMOTE_ACTIONS)
        .values("action")
        .annotate(n=Count("id"))
        .values_list("action", "n")
    )
    # A supersede writes a SUPERSEDED row and one ADDED (the new memory) or REINFORCED (the evidence turned to
    # an existing competitor) row; every other result writes one row of its own name.
    extra = sum(max(0, history.get(a, 0) - recorded[a]) for a in ("superseded", "rejected"))
    extra += max(
        0,
        history.get("added", 0)
        + history.get("reinforced", 0)
        - recorded["added"]
        - recorded["reinforced"]
        - recorded["superseded"],
    )
    stuck = attempts.filter(status__in=UNFINISHED).count()
    return ChaosFigures(
        broker=urlparse(broker).scheme,
        tickets=len(tickets),
        kills=kills,
        lost=lost,
        duplicated=twice + extra,
        stuck=stuck,
        succeeded=sum(succeeded_by_ticket.values()),
        seconds=round(seconds, 1),
        requeued=requeued,
        writes={a: [history.get(a, 0), recorded[a]] for a in PROMOTE_ACTIONS},
    )


def chaos_run(
    *,
    tenant,
    broker: str,
    tickets: int = 200,
    kills: int = 3,
    lease: int = 5,
    queue_lease: int = 15,
    concurrency: int = 2,
    timeout: float = 240,
    seed: int = 15,
    progress=print,
) -> ChaosFigures:
    """Solve `tickets` tickets of `tenant` through a real worker on `broker`, SIGKILL it `kills` times.

    Needs `settings.BRAIN_LEARNING_LEASE` / `BRAIN_LEARNING_QUEUE_LEASE` equal to `lease` / `queue_lease` in this
    process (the requeue service reads them), and a database the worker can reach by name.
    """
    from config.celery import app, use_broker

    rng = random.Random(seed)
    solved = _bench_tickets(tenant, tickets, rng, f"CHAOS-{urlparse(broker).scheme}")
    queue = f"brain-chaos-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    log_path = Path(settings.BASE_DIR) / "var" / f"chaos-worker-{os.getpid()}.log"
    log_path.parent.mkdir(exist_ok=True)
    previous = (None if app.conf.task_always_eager else app.conf.broker_url, app.conf.result_backend)
    previous_queue = app.conf.task_default_queue
    use_broker(broker, None)
    app.conf.task_default_queue = queue
    worker = ChaosWorker(broker, queue, (lease, queue_lease), concurrency, log_path)
    # Kill points: after a fixed share of the attempts finished, jittered by the seed.
    kill_at = sorted(
        int(tickets * (k + 1) / (kills + 1) + rng.randint(-tickets // 20, tickets // 20))
        for k in range(kills)
    )
    killed = requeued = 0
    started = time.monotonic()
    try:
        worker.start()
        for ticket in solved:
            services.ticket_transition(ticket=ticket, status="solved")  # autocommit: sent at once
        last_requeue = time.monotonic()
        while time.monotonic() - started < timeout:
            done = _finished(tenant)
            if killed < kills and done >= kill_at[killed]:
                worker.kill()
                killed += 1
                progress(
                    f"  {urlparse(broker).scheme}: SIGKILL {killed} of {kills} at {done}/{tickets} finished"
                )
                worker.start()
            if time.monotonic() - last_requeue >= lease / 2:  # as beat would, every half lease
                requeued += services.learning_attempts_requeue().sent
                last_requeue = time.monotonic()
            if done >= tickets and killed >= kills:
                break
            time.sleep(0.2)
        if (
            _finished(tenant) < tickets
        ):  # once the leases have passed: one more pass, then unfinished is stuck
            time.sleep(max(lease, queue_lease) + 0.5)
            requeued += services.learning_attempts_requeue().sent
            settle = time.monotonic() + 2 * lease
            while _finished(tenant) < tickets and time.monotonic() < settle:
                time.sleep(0.2)
    finally:
        worker.kill()
        try:
            with app.connection_for_write() as conn:
                conn.default_channel.queue_delete(queue)
        except Exception as exc:  # cleanup only: a queue left behind costs nothing but a name
            progress(f"  could not delete the queue {queue}: {exc}")
        app.conf.task_default_queue = previous_queue
        use_broker(*previous)
    return _measure(tenant, solved, killed, time.monotonic() - started, requeued, broker)


def run(options: dict, stdout) -> dict:
    from brain.benchmarks.common import fresh_tenant, use_bench_database

    use_bench_database(options["database"], stdout)
    settings.BRAIN_LEARNING_LEASE, settings.BRAIN_LEARNING_QUEUE_LEASE = (
        options["lease"],
        options["queue_lease"],
    )
    per_broker = []
    for n, broker in enumerate(b.strip() for b in options["brokers"].split(",") if b.strip()):
        tenant = fresh_tenant(f"bench-chaos-{n}", f"Bench chaos {broker}")
        figures = chaos_run(
            tenant=tenant,
            broker=broker,
            tickets=options["tickets"],
            kills=options["kills"],
            lease=options["lease"],
            queue_lease=options["queue_lease"],
            concurrency=options["concurrency"],
            timeout=options["timeout"],
            seed=options["seed"],
            progress=stdout.write,
        )
        stdout.write(
            f"chaos {figures.broker}: {figures.tickets} tickets, {figures.kills} SIGKILLs: lost {figures.lost}, "
            f"duplicated {figures.duplicated}, stuck {figures.stuck} ({figures.seconds} s, "
            f"{figures.requeued} re-sent)"
        )
        per_broker.append(figures)
    return {
        "tickets": sum(f.tickets for f in per_broker),
        "kills": sum(f.kills for f in per_broker),
        "lost": sum(f.lost for f in per_broker),
        "duplicated": sum(f.duplicated for f in per_broker),
        "stuck": sum(f.stuck for f in per_broker),
        "brokers": [asdict(f) for f in per_broker],
    }
