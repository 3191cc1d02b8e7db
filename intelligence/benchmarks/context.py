"""Runtime context over HTTP: POST /api/v1/agents/{id}/context under gunicorn, with many memories in the tenant.

Loads (once; `--reload` to redo) a tenant with `--agent-memories` agent memories spread over `--agents` agents
(every strength, mostly active, some scoped; embedded by the product's pipeline), `--agent-notes` notes the agents wrote themselves (never injected;
the answer counts those matching the conversation) and `--client-brain-rows` Client Brain rows, in the benchmark
database (default `brain_bench`, migrated on first use). Then starts gunicorn (`--workers`, default 2) on a
free loopback port and measures, each request a different sample conversation, agent and scope:

1. throughput: `--requests` sent back to back from `--concurrency` client threads (requests/s, and the
   latency of a server that always has a queue);
2. latency at a load: `--rate-requests` requests due on a fixed schedule of `--rate` per second, each timed
   from when it was due (p50/p95/p99).

Targets on the 2-core machine: at least 100 requests/s, and p95 <= 50 ms at 100 requests/s.
"""

from __future__ import annotations

import http.client
import os
import random
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from django.db import connection

from .context_rows import (
    PROVIDERS,
    agent_memory_rows,
    agent_note_rows,
    client_brain_rows,
    sentence,
)

REPO = Path(__file__).resolve().parents[2]
SLUG = "bench-context"


def add_arguments(parser) -> None:
    parser.add_argument("--db", default="brain_bench", help="Benchmark database on the same server.")
    parser.add_argument("--agent-memories", type=int, default=10_000)
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument(
        "--agent-notes", type=int, default=2000, help="Notes the agents wrote themselves (memory-append)."
    )
    parser.add_argument("--client-brain-rows", type=int, default=100_000)
    parser.add_argument(
        "--requests",
        type=int,
        default=1000,
        help="Throughput: requests sent back to back (after 40 warm-up).",
    )
    parser.add_argument("--concurrency", type=int, default=4, help="Throughput: client threads.")
    parser.add_argument(
        "--rate", type=float, default=100.0, help="Latency: requests per second, on a schedule."
    )
    parser.add_argument("--rate-requests", type=int, default=1000, help="Latency: requests sent at --rate.")
    parser.add_argument(
        "--rate-threads", type=int, default=16, help="Latency: client threads (enough that none is late)."
    )
    parser.add_argument(
        "--conversations",
        choices=["synthetic", "bitext"],
        default="synthetic",
        help="What the conversations say: synthetic (8-30 words of the rows' vocabulary, about 61 MiniLM"
        " tokens each: its generated words split into many pieces) or bitext (customer messages of the Bitext"
        " sample, read at run time, about 12 tokens: what the query's embedding costs for real openings).",
    )
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers.")
    parser.add_argument(
        "--worker-class",
        choices=["sync", "gthread"],
        default="sync",
        help="gunicorn worker class: sync (one request at a time per worker; closes each connection after its"
        " response) or gthread (keeps connections alive; --threads requests share a worker's interpreter).",
    )
    parser.add_argument("--threads", type=int, default=2, help="Threads per gunicorn worker (gthread only).")
    parser.add_argument("--reload", action="store_true", help="Reload the tenant's rows even if present.")
    parser.add_argument("--seed", type=int, default=8)
    from .context_replica import add_arguments as replica_arguments

    replica_arguments(parser)
    parser.add_argument(
        "--pooler",
        action="store_true",
        help="Measure twice in this run: direct connections, then through a PgBouncer in transaction mode"
        " (context_pooler.py).",
    )
    parser.add_argument("--pool-size", type=int, default=4, help="PgBouncer's server connections (--pooler).")


def _notes_present(tenant, agents) -> int:
    from brain import api as brain_api

    return sum(
        brain_api.agent_memory_list(tenant_id=tenant.pk, agent_id=a.pk, written_by="agent", limit=0).total
        for a in agents
    )


def _prepare(options, stdout):
    from brain.benchmarks.bulk_load import loaded_rows_count, memories_bulk_load_for_benchmark
    from brain.benchmarks.common import fresh_tenant, use_bench_database
    from intelligence.models import Agent
    from intelligence.services import agent_create
    from tickets.tenancy.models import Tenant

    use_bench_database(options["db"], stdout)
    tenant = Tenant.objects.filter(slug=SLUG).first()
    agents = list(Agent.objects.for_tenant(tenant).order_by("id")) if tenant else []
    if tenant and not options["reload"] and len(agents) == options["agents"]:
        # The loaded rows only: `--replica`'s learning phase writes (then archives) memories of these agents.
        present = loaded_rows_count(tenant_id=tenant.pk, types=["agent_memory"])
        notes = _notes_present(tenant, agents)
        if present == options["agent_memories"] and notes == options["agent_notes"]:
            stdout.write(
                f"reusing tenant {SLUG}: {len(agents)} agents, {present} agent memories, {notes} notes"
            )
            _embed_agent_memories(tenant, stdout)
            return tenant, agents
    rng = random.Random(options["seed"])
    tenant = fresh_tenant(SLUG, "Bench Context")
    agents = [agent_create(tenant=tenant, name=f"Bench agent {i}") for i in range(options["agents"])]
    started = time.perf_counter()
    stdout.write(f"loading {options['agent_memories']} agent memories ...")
    memories_bulk_load_for_benchmark(
        tenant_id=tenant.pk, rows=agent_memory_rows(rng, agents, options["agent_memories"]), stdout=stdout
    )
    stdout.write(f"loading {options['agent_notes']} notes the agents wrote ...")
    memories_bulk_load_for_benchmark(
        tenant_id=tenant.pk, rows=agent_note_rows(rng, agents, options["agent_notes"]), stdout=stdout
    )
    stdout.write(f"loading {options['client_brain_rows']} Client Brain rows ...")
    memories_bulk_load_for_benchmark(
        tenant_id=tenant.pk, rows=client_brain_rows(rng, options["client_brain_rows"]), stdout=stdout
    )
    _embed_agent_memories(tenant, stdout)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE brain_memory")
    stdout.write(f"loaded in {time.perf_counter() - started:.1f} s")
    return tenant, agents


def _embed_agent_memories(tenant, stdout) -> None:
    """The agent memories' vectors, as the product writes them after each memory's commit: the context call's
    relevance (hybrid, projected) runs its vector tier over them and projects the preferences' (before
    2026-12-05 the loaded rows had none, so the benchmark's calls never exercised either). Notes and Client
    Brain rows stay without: the call scores notes by words and Client Brain recall is word overlap."""
    from brain.benchmarks.bulk_load import embed_loaded_rows_for_benchmark

    embedded = embed_loaded_rows_for_benchmark(tenant_id=tenant.pk, types=["agent_memory"], stdout=stdout)
    if embedded:
        stdout.write(f"embedded {embedded} agent memories")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_gunicorn(options, port: int, stdout, extra_env: dict | None = None):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "BRAIN_DB_NAME": options["db"],
        # The benchmark measures the endpoint, not the per-key rate limit.
        "BRAIN_API_THROTTLE_RATE": "100000000/min",
        "LOG_LEVEL": "WARNING",
        **(extra_env or {}),
    }
    log_path = REPO / "var" / "bench-context-gunicorn.log"
    log_path.parent.mkdir(exist_ok=True)
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(options["workers"]),
            "--worker-class",
            options["worker_class"],
            "--threads",
            str(options["threads"]),
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited early; see {log_path}:\n{log_path.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                stdout.write(
                    f"gunicorn up on 127.0.0.1:{port} with {options['workers']} workers"
                    f" ({options['worker_class']}, {options['threads']} thread(s) each; pid {proc.pid})"
                )
                return proc, log
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"gunicorn did not answer /healthz within 60 s; see {log_path}")


def _requests(rng, agents, count, openings=None):
    """`count` (agent id, body) pairs; each conversation a synthetic sentence, or the next of `openings` (an
    iterator: each opening is sent once in a run, so no call finds its conversation in a cache)."""
    bodies = []
    for _ in range(count):
        body = {"conversation": next(openings) if openings else sentence(rng, 8, 30)}
        if rng.random() < 0.5:
            body["provider"] = rng.choice(PROVIDERS)
        if rng.random() < 0.3:
            body["campaign_ids"] = [f"c{rng.randint(1, 50)}"]
        if rng.random() < 0.3:
            body["policy"] = sentence(rng, 50, 200)
        bodies.append((rng.choice(agents).pk, body))
    return bodies


def _bitext_openings(rng, needed: int):
    """The Bitext sample's distinct customer messages (`instruction`, read at run time, never copied), in an
    order of `rng`, as an iterator of `needed` of them."""
    from django.core.management.base import CommandError

    from tickets.benchmarks.replay import bitext_rows

    texts = sorted({row["instruction"].strip() for row in bitext_rows()})
    if needed > len(texts):
        raise CommandError(
            f"--conversations bitext sends each of the sample's {len(texts)} distinct messages once: ask for"
            f" at most that many requests in all (warm-up 40, --requests, --rate-requests), not {needed}."
        )
    return iter(rng.sample(texts, needed))


def _stage_breakdown(tenant, agents, bodies, stdout) -> dict[str, float]:
    """In-process p50 of each stage of one context call, to see where a request's time goes."""
    from brain import api as brain_api
    from brain.benchmarks.common import percentile
    from intelligence.runtime import (
        BrandSection,
        CandidateMemory,
        ConversationScope,
        assemble_runtime_context,
        budget_for,
    )
    from intelligence.services import agents as services

    by_id = {a.pk: a for a in agents}
    names = ("candidates", "recall", "client_brain", "assemble", "notes")
    stages: dict[str, list[float]] = {k: [] for k in names}
    for agent_id, body in bodies:
        agent, request = by_id[agent_id], services.ContextRequest(**body)
        t0 = time.perf_counter()
        records = brain_api.agent_memories_active(tenant_id=tenant.pk, agent_id=agent.pk)
        t1 = time.perf_counter()
        relevance = services._relevance(agent, request.query, records)
        t2 = time.perf_counter()
        brand = brain_api.client_brain_context_preview(
            tenant_id=tenant.pk,
            subject=request.query[:200],
            latest_customer_message=request.conversation,
            max_chars=3500,
        )
        t3 = time.perf_counter()
        candidates = [
            CandidateMemory(
                id=r.id, text=r.text, strength=r.strength, confidence=r.confidence, relevance=relevance.get(r.id, 0.0),
                provider=r.provider, campaign_ids=r.campaign_ids,
            )
            for r in records
        ]  # fmt: skip
        assemble_runtime_context(
            candidates=candidates,
            scope=ConversationScope(provider=request.provider, campaign_ids=tuple(request.campaign_ids)),
            budget=budget_for(agent.budget_overrides),
            policy_text=request.policy,
            brand=lambda n, b=brand: BrandSection(text=b.prompt, memory_ids=tuple(b.memory_ids)),
        )
        t4 = time.perf_counter()
        # As the runtime counts them: at the memory state the call read once on entry (no state read here).
        with brain_api.states_read_once(tenant.pk, [("agent", [agent.pk])]):
            t4_notes = time.perf_counter()
            brain_api.agent_notes_matching(tenant_id=tenant.pk, agent_id=agent.pk, query=request.query)
            t5 = time.perf_counter()
        for name, seconds in zip(stages, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4_notes), strict=True):
            stages[name].append(seconds * 1000)
    result = {name: round(percentile(values, 50), 2) for name, values in stages.items()}
    stdout.write(
        "in-process p50 per stage (ms): "
        + ", ".join(f"{name} {ms}" for name, ms in result.items())
        + " (candidates: this agent's active memories; recall: relevance; client_brain: brand intelligence;"
        " assemble: the budget arithmetic; notes: counting the agent's notes that match, at the call's memory state)"
    )
    return result


class _Load:
    """Context requests to the running server from client threads, each with one kept-alive connection.

    The standard library's client: the load generator shares the two cores with the server, and a light
    client leaves more of them to what is measured. gthread workers keep connections alive; sync workers
    close each after its response, and the client then connects afresh.
    """

    def __init__(self, port: int, headers: dict[str, str], stdout):
        self.port, self.headers, self.stdout = port, headers, stdout
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.sources: Counter = Counter()

    def _record(self, status: int, payload: bytes, elapsed_ms: float) -> None:
        with self.lock:
            if status == 200:
                self.latencies.append(elapsed_ms)
            else:
                self.errors.append(f"{status}: {payload[:200].decode(errors='replace')}")
            done = len(self.latencies) + len(self.errors)
            if done % 500 == 0:
                self.stdout.write(f"  {done} requests")

    def _post(self, conn, agent_id: int, body: bytes) -> tuple[int, bytes]:
        conn.request("POST", f"/api/v1/agents/{agent_id}/context", body=body, headers=self.headers)
        response = conn.getresponse()
        with self.lock:  # where the call's reads went, with read replicas (brain_bench context --replica)
            self.sources[response.getheader("X-Brain-Reads") or "none"] += 1
        return response.status, response.read()

    def _run(self, threads: int, target) -> float:
        self.latencies, self.errors = [], []
        started = time.perf_counter()
        pool = [threading.Thread(target=target) for _ in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        return time.perf_counter() - started

    def closed_loop(self, items: list, threads: int) -> float:
        """Each thread sends its share back to back (the server always has work): the throughput."""
        queue = iter(items)

        def client():
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            for agent_id, body in _take(queue, self.lock):
                started = time.perf_counter()
                status, payload = self._post(conn, agent_id, body)
                self._record(status, payload, (time.perf_counter() - started) * 1000)
            conn.close()

        return self._run(threads, client)

    def open_loop(self, items: list, rate: float, threads: int) -> float:
        """Request i is due at start + i / rate whatever the server is doing (as independent agents
        arrive); its latency runs from when it was due, so a server that falls behind is charged for the
        wait (no coordinated omission). The latency a user sees at that rate."""
        queue = iter(enumerate(items))
        start = time.perf_counter() + 0.05

        def client():
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            for i, (agent_id, body) in _take(queue, self.lock):
                due = start + i / rate
                if (wait := due - time.perf_counter()) > 0:
                    time.sleep(wait)
                status, payload = self._post(conn, agent_id, body)
                self._record(status, payload, (time.perf_counter() - due) * 1000)
            conn.close()

        return self._run(threads, client)


def _take(iterator, lock):
    """Items of a shared iterator, one at a time, for several threads."""
    while True:
        with lock:
            item = next(iterator, None)
        if item is None:
            return
        yield item


def _latency_figures(latencies: list[float]) -> dict[str, float | None]:
    from brain.benchmarks.common import percentile

    if not latencies:
        return {"p50_ms": None, "p95_ms": None, "p99_ms": None}
    return {f"p{q}_ms": round(percentile(latencies, q), 2) for q in (50, 95, 99)}


def run(options, stdout) -> dict:
    import json

    if options.get("pooler"):
        from .context_pooler import beside_pooler

        return beside_pooler(run, options, stdout)

    from tickets.tenancy import services as ticket_services

    tenant, agents = _prepare(options, stdout)
    _, full_key = ticket_services.api_key_create(tenant=tenant, name="bench-context")
    connection.close()  # gunicorn's workers get the database to themselves while measuring
    rng = random.Random(options["seed"] + 1)
    needed = 40 + options["requests"] + options["rate_requests"]
    openings = _bitext_openings(rng, needed) if options.get("conversations") == "bitext" else None
    stdout.write(f"conversations: {'Bitext customer messages' if openings else 'synthetic sentences'}")
    # Bodies are encoded before the clock starts: the figures are the server's, not the client's JSON.
    warmup = [(a, json.dumps(b).encode()) for a, b in _requests(rng, agents, 40, openings)]
    measured = _requests(rng, agents, options["requests"], openings)
    closed = [(a, json.dumps(b).encode()) for a, b in measured]
    opened = [
        (a, json.dumps(b).encode()) for a, b in _requests(rng, agents, options["rate_requests"], openings)
    ]
    if options["replica"]:
        from types import SimpleNamespace

        from .context_replica import run_replica

        # This module's HTTP plumbing, handed over (context_replica does not import it back: no circle).
        http = SimpleNamespace(
            start=_start_gunicorn, Load=_Load, free_port=_free_port, latency=_latency_figures
        )
        return run_replica(options, stdout, http, agents, full_key, warmup, closed, opened)
    port = _free_port()
    proc, log = _start_gunicorn(options, port, stdout)
    load = _Load(port, {"Authorization": f"Bearer {full_key}", "Content-Type": "application/json"}, stdout)
    try:
        load.closed_loop(warmup, 1)
        stdout.write(
            f"throughput: {len(closed)} requests from {options['concurrency']} client threads, back to back"
        )
        wall = load.closed_loop(closed, options["concurrency"])
        saturated, saturated_errors = load.latencies, load.errors
        stdout.write(
            f"latency at {options['rate']:g} requests/s: {len(opened)} requests due on a fixed schedule"
        )
        open_wall = load.open_loop(opened, options["rate"], options["rate_threads"])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    errors = saturated_errors + load.errors
    if errors:
        stdout.write(f"{len(errors)} requests failed; first: {errors[0]}")
    at_rate = _latency_figures(load.latencies)
    at_saturation = _latency_figures(saturated)
    figures = {
        # The targets' figures: latency at the target rate, and the most requests/s the server gives.
        **at_rate,
        "rps": round(len(saturated) / wall, 1) if wall and saturated else 0.0,
        "rate": options["rate"],
        "achieved_rate": round(len(load.latencies) / open_wall, 1) if open_wall else 0.0,
        "saturated": {**at_saturation, "requests": len(saturated), "concurrency": options["concurrency"]},
        "requests": len(saturated) + len(load.latencies),
        "errors": len(errors),
        "workers": options["workers"],
        "worker_class": options["worker_class"],
        "threads": options["threads"],
        "agent_memories": options["agent_memories"],
        "agent_notes": options["agent_notes"],
        "client_brain_rows": options["client_brain_rows"],
        "conversations": options.get("conversations", "synthetic"),
    }
    stdout.write(
        f"throughput: {figures['rps']} requests/s ({options['concurrency']} client threads back to back:"
        f" p50 {at_saturation['p50_ms']} ms, p95 {at_saturation['p95_ms']} ms, {len(saturated_errors)} errors;"
        f" {options['workers']} gunicorn {options['worker_class']} workers)"
    )
    stdout.write(
        f"context endpoint at {options['rate']:g} requests/s (achieved {figures['achieved_rate']}):"
        f" p50 {at_rate['p50_ms']} ms, p95 {at_rate['p95_ms']} ms, p99 {at_rate['p99_ms']} ms,"
        f" {len(load.errors)} errors"
    )
    figures["stages_p50_ms"] = _stage_breakdown(tenant, agents, measured[:60], stdout)
    if at_rate["p95_ms"] is None:
        stdout.write(f"no request succeeded: no figures (see {REPO / 'var' / 'bench-context-gunicorn.log'})")
        return figures
    stdout.write(
        f"targets: p95 <= 50 ms at {options['rate']:g} requests/s {'MET' if at_rate['p95_ms'] <= 50 else 'MISSED'};"
        f" >= 100 requests/s {'MET' if figures['rps'] >= 100 else 'MISSED'}"
    )
    return figures
