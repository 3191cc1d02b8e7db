"""`brain_bench context --replica`: the context endpoint with its reads on a read replica against on the primary.

In one run, on the embedded server and its hot standby (`embedded_db replica start`, started here if it is
not running), three phases over the same requests, each with its own gunicorn:

1. `primary`: no replica configured (as today): throughput and latency at `--rate`;
2. `replica`: DATABASE_REPLICA_URLS=embedded: the same figures;
3. `learning`: with the replica, under a learning load: `brain_bench learning` in its own database on the
   same primary (`--learning-runs`) and `--replica-writes` new memories per second written to the measured
   tenant's agents through the API. Latency at `--rate`, the replica's lag (the primary's
   pg_stat_replication, sampled every 100 ms) and where the calls' reads went.

Each phase reports the CPU seconds of each server's processes (the postmaster and its backends, read from
/proc), per call measured and the primary's share of them, and the `X-Brain-Reads` answer of every call:
`replica`, `replica_lsn_behind` (read on the replica; the stricter rule, the replica's replay position against the
primary's WAL position, would have sent it back) or why the primary (`primary_stale`: the freshness rule;
`primary_lag`, `primary_down`, ...).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from django.db import connection

from .context_rows import sentence

REPO = Path(__file__).resolve().parents[2]


def add_arguments(parser) -> None:
    parser.add_argument(
        "--replica",
        action="store_true",
        help="Compare reads on the embedded server's hot standby with reads on the primary (three phases).",
    )
    parser.add_argument(
        "--replica-writes", type=float, default=5.0, help="Learning phase: new memories per second (API)."
    )
    parser.add_argument(
        "--learning-runs", type=int, default=2000, help="Learning phase: brain_bench learning --runs."
    )


def _server_cpu(data_dir) -> tuple[int, float]:
    """(postmaster pid, CPU seconds of the server: its postmaster, the backends it reaped and those alive)."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        postmaster = int((data_dir / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0, 0.0
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry), int(fields[1])
        if pid == postmaster:
            total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        elif ppid == postmaster:
            total += int(fields[11]) + int(fields[12])
    return postmaster, total / tick


def _cpu_used(before: tuple[int, float], after: tuple[int, float]) -> float | None:
    """CPU seconds between two readings of one server (None if it restarted in between)."""
    return round(after[1] - before[1], 2) if before[0] == after[0] and before[0] else None


class _LagSampler:
    """The standby's replay lag as the primary sees it, every 100 ms, in a thread."""

    def __init__(self, primary):
        self.primary, self.lag_ms, self.behind_bytes = primary, [], []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run)

    def _run(self):
        from config import embedded_db

        with embedded_db.superuser_connection(self.primary) as conn:
            while not self.stop.wait(0.1):
                row = conn.execute(
                    "SELECT coalesce(extract(epoch FROM replay_lag) * 1000, 0),"
                    " pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)"
                    " FROM pg_stat_replication WHERE application_name = 'brain_replica'"
                ).fetchone()
                if row:
                    self.lag_ms.append(float(row[0]))
                    self.behind_bytes.append(float(row[1] or 0))

    def figures(self) -> dict:
        from brain.benchmarks.common import percentile

        if not self.lag_ms:
            return {"lag_samples": 0}
        return {
            "lag_samples": len(self.lag_ms),
            "lag_p50_ms": round(percentile(self.lag_ms, 50), 1),
            "lag_p95_ms": round(percentile(self.lag_ms, 95), 1),
            "lag_max_ms": round(max(self.lag_ms), 1),
            "behind_p95_bytes": int(percentile(self.behind_bytes, 95)),
        }


def _writer(port, key, agents, rate, stop, counts) -> None:
    """New memories of the measured tenant's agents through the API, `rate` a second (the learning that
    changes what the context call reads); once stopped, the memories it wrote are archived, so the next run
    finds the agents' active memories as loaded (`counts["archived"]`)."""
    rng = random.Random(31)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    written: list[tuple[int, int]] = []

    def send(method: str, path: str, body: dict) -> tuple[int, bytes]:
        nonlocal conn
        try:
            conn.request(method, path, json.dumps(body), headers)
            response = conn.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            return 0, b""

    while not stop.wait(1.0 / rate):
        agent_id = rng.choice(agents).pk
        body = {"category": "instruction", "strength": "preference", "status": "active"}
        status, content = send(
            "POST", f"/api/v1/agents/{agent_id}/memories", body | {"content": sentence(rng, 8, 20)}
        )
        counts[status or "error"] += 1
        if status == 201:
            written.append((agent_id, json.loads(content)["memory"]["id"]))
    for agent_id, memory_id in written:
        status, _ = send(
            "POST", f"/api/v1/agents/{agent_id}/memories/{memory_id}/status", {"status": "archived"}
        )
        counts["archived"] += status == 200


def _phase(name, options, stdout, http, key, env, servers, warmup, closed, opened, agents=None) -> dict:
    port = http.free_port()
    proc, log = http.start(options, port, stdout, extra_env=env)
    load = http.Load(port, {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}, stdout)
    extra, learning, writer, sampler, stop = {}, None, None, None, threading.Event()
    try:
        load.closed_loop(warmup, 1)
        load.sources.clear()
        if agents is not None:  # the learning load
            sampler = _LagSampler(servers["primary_server"])
            sampler.thread.start()
            learning = subprocess.Popen(
                [sys.executable, "manage.py", "brain_bench", "learning", "--database", f"{options['db']}_learning",
                 "--runs", str(options["learning_runs"])],
                cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            writes: Counter = Counter()
            writer = threading.Thread(
                target=_writer, args=(port, key, agents, options["replica_writes"], stop, writes)
            )
            writer.start()
            time.sleep(2)  # the load under way before the clock starts
        cpu = {k: _server_cpu(d) for k, d in servers["dirs"].items()}
        wall = 0.0
        if agents is None:
            wall = load.closed_loop(closed, options["concurrency"])
            extra["rps"] = round(len(load.latencies) / wall, 1) if wall else 0.0
            extra["saturated"] = http.latency(load.latencies)
        load.open_loop(opened, options["rate"], options["rate_threads"])
        used = {k: _cpu_used(cpu[k], _server_cpu(d)) for k, d in servers["dirs"].items()}
    finally:
        stop.set()
        if writer:
            writer.join()
        if sampler:
            sampler.stop.set()
            sampler.thread.join()
        if learning and learning.poll() is None:
            learning.terminate()
            learning.wait(timeout=30)
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    calls = sum(load.sources.values()) or 1
    on_primary = sum(n for source, n in load.sources.items() if not source.startswith("replica"))
    figures = {
        **http.latency(load.latencies),
        **extra,
        "errors": len(load.errors),
        "cpu_s": used,
        "primary_cpu_share": round(used["primary"] / (sum(used.values()) or 1), 3) if None not in used.values() else None,
        # Per call measured: what each server spends on one call (its statements, commits and WAL streaming).
        "cpu_ms_per_call": {k: round(1000 * v / calls, 2) for k, v in used.items() if v is not None},
        "reads": dict(load.sources),
        "sent_back_share": round(on_primary / calls, 3) if env.get("DATABASE_REPLICA_URLS") else None,
        "lsn_rule_would_send_back_share": round(
            (load.sources["replica_lsn_behind"] + on_primary) / calls, 3
        ) if env.get("DATABASE_REPLICA_URLS") else None,
    }  # fmt: skip
    if sampler:
        figures.update(sampler.figures(), memory_writes=dict(writes))
    stdout.write(
        f"{name}: {figures.get('rps', '-')} requests/s; at {options['rate']:g}/s p50 {figures['p50_ms']} ms,"
        f" p95 {figures['p95_ms']} ms, p99 {figures['p99_ms']} ms; server CPU s {used},"
        f" ms a call {figures['cpu_ms_per_call']}"
        f" (primary's share {figures['primary_cpu_share']}); reads {dict(load.sources)};"
        f" sent back {figures['sent_back_share']}; {figures['errors']} errors"
        + (
            f"; replica lag p50 {figures.get('lag_p50_ms')} ms, p95 {figures.get('lag_p95_ms')} ms,"
            f" max {figures.get('lag_max_ms')} ms; memory writes {figures['memory_writes']}"
            if sampler
            else ""
        )
    )
    return figures


def run_replica(options, stdout, http, agents, key, warmup, closed, opened) -> dict:
    """The three phases (the module's docstring); `http`: the context benchmark's server and load plumbing."""
    from config import embedded_db, embedded_replica

    data_dir = connection.settings_dict.get("EMBEDDED_DATA_DIR")
    if not data_dir:
        raise RuntimeError("--replica measures the embedded server and its standby: unset DATABASE_URL.")
    replica = embedded_replica.start(data_dir)
    primary = embedded_db.server_for(data_dir)
    stdout.write(f"replica streaming: {replica.data_dir}; load average {os.getloadavg()}")
    servers = {"dirs": {"primary": primary.data_dir, "replica": replica.data_dir}, "primary_server": primary}
    no_replica, with_replica = {"DATABASE_REPLICA_URLS": ""}, {"DATABASE_REPLICA_URLS": "embedded"}
    result = {"load_average_start": os.getloadavg()}
    args = (options, stdout, http, key)
    result["primary"] = _phase("reads on the primary", *args, no_replica, servers, warmup, closed, opened)
    result["replica"] = _phase("reads on the replica", *args, with_replica, servers, warmup, closed, opened)
    result["learning"] = _phase(
        "reads on the replica, learning load", *args, with_replica, servers, warmup, closed, opened, agents
    )
    result["load_average_end"] = os.getloadavg()
    return {"replica_comparison": result, "requests": len(closed) + len(opened), "errors": sum(
        result[p]["errors"] for p in ("primary", "replica", "learning")
    )}  # fmt: skip
