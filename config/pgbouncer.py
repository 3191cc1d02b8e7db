"""A PgBouncer in transaction mode in front of the embedded PostgreSQL, for tests and `brain_bench context --pooler`.

Debian's `pgbouncer` package (`make test` and `.ci/run` install it: scripts/ensure_pgbouncer.sh). It listens on a
free loopback port, pools server connections per database and role in transaction mode, and authenticates
clients with the roles' own passwords (SCRAM; its auth file lives in a private temporary folder and is removed
with it). It reaches the server through the server's private socket folder, so under root it runs as the
server's OS user (PgBouncer refuses to run as root, like PostgreSQL).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from config import embedded_db

CANDIDATES = ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer")


def binary() -> str | None:
    """The pgbouncer executable, or None (Debian puts it in /usr/sbin, which a user's PATH may lack)."""
    found = shutil.which("pgbouncer")
    return found or next((path for path in CANDIDATES if os.access(path, os.X_OK)), None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _quote(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


@dataclass
class PgBouncer:
    """A running PgBouncer: connect to `port` on 127.0.0.1 with a role's name and password."""

    port: int
    process: subprocess.Popen
    folder: Path

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def start(data_dir: str, databases: list[str], *, pool_size: int = 20) -> PgBouncer:
    """A PgBouncer in transaction mode for `databases` of the embedded server in `data_dir` (started if needed),
    with `pool_size` server connections per database and role."""
    executable = binary()
    if executable is None:
        raise FileNotFoundError("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
    server = embedded_db.ensure_running(data_dir)
    passwords = embedded_db.role_passwords(server)
    folder = Path(tempfile.mkdtemp(prefix="brain-pgbouncer-"))
    port = _free_port()
    (folder / "users.txt").write_text(
        "".join(f"{_quote(role)} {_quote(password)}\n" for role, password in passwords.items())
    )
    entries = "".join(
        f"{name} = host={server.socket_dir} port={server.port} dbname={name}\n" for name in databases
    )
    (folder / "pgbouncer.ini").write_text(
        f"[databases]\n{entries}\n[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = scram-sha-256\nauth_file = {folder / 'users.txt'}\n"
        f"pool_mode = transaction\ndefault_pool_size = {pool_size}\nmax_client_conn = 500\n"
        "server_reset_query =\nignore_startup_parameters = extra_float_digits,options\n"
        f"logfile = {folder / 'pgbouncer.log'}\npidfile = {folder / 'pgbouncer.pid'}\n"
    )
    command = [executable, str(folder / "pgbouncer.ini")]
    if os.geteuid() == 0:  # the server's OS user reaches its socket folder; PgBouncer will not run as root
        user = embedded_db.SERVER_USER
        shutil.chown(folder, user, user)
        for path in folder.iterdir():
            shutil.chown(path, user, user)
        command[1:1] = ["-u", user]
    os.chmod(folder, 0o700)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    bouncer = PgBouncer(port, process, folder)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log = (folder / "pgbouncer.log").read_text() if (folder / "pgbouncer.log").exists() else ""
            message = process.stderr.read().decode(errors="replace") + log
            bouncer.stop()
            raise RuntimeError(f"pgbouncer exited early: {message[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return bouncer
        except OSError:
            time.sleep(0.1)
    bouncer.stop()
    raise RuntimeError("pgbouncer did not listen within 15 s")
