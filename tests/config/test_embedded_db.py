"""The embedded PostgreSQL 18: it runs, has the extensions, starts once under concurrency, stops cleanly."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg
import pytest
from django.core.management.base import CommandError
from django.db import connection

from brain.extensions import enable_extensions, missing_extensions
from config import embedded_db
from tests.conftest import REPO


def test_the_database_has_vector_and_pg_trgm(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT extname FROM pg_extension")
        installed = {row[0] for row in cursor.fetchall()}
        cursor.execute("SHOW server_version")
        (version,) = cursor.fetchone()
    assert {"vector", "pg_trgm"} <= installed
    if connection.settings_dict.get("EMBEDDED_DATA_DIR"):
        assert version.startswith("18.")


def test_a_server_without_pgvector_gets_an_error_naming_it():
    # The machine's own PostgreSQL 15 has pg_trgm but no pgvector: a real server lacking an extension.
    try:
        conn = psycopg.connect(
            host="127.0.0.1", port=5432, user="postgres", dbname="postgres", connect_timeout=2
        )
    except psycopg.OperationalError:
        pytest.skip("no PostgreSQL without pgvector on 127.0.0.1:5432 to try against")
    with conn, conn.cursor() as cursor:
        missing = missing_extensions(cursor)
        if "vector" not in missing:
            pytest.skip("that server has pgvector")
        with pytest.raises(CommandError, match="vector") as excinfo:
            enable_extensions(cursor)
    assert "DATABASE_URL" in str(excinfo.value)


START_AND_PRINT_PID = """
import sys
from config import embedded_db
server = embedded_db.prepare(sys.argv[1], "brain")
print(int((server.data_dir / "postmaster.pid").read_text().splitlines()[0]))
"""


def test_concurrent_starts_share_one_server_and_stop_cleanly():
    parent = Path(tempfile.mkdtemp(prefix="brain-pgtest-"))
    data_dir = parent / "pgdata"
    try:
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", START_AND_PRINT_PID, str(data_dir)],
                cwd=REPO,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        outputs = [p.communicate(timeout=120) for p in processes]
        assert all(p.returncode == 0 for p in processes), "\n".join(err[-3000:] for _, err in outputs)
        pids = {int(out.strip()) for out, _ in outputs}
        assert len(pids) == 1, "three processes starting at once must end up with one server"
        server = embedded_db.server_for(data_dir)
        assert embedded_db.is_running(server)
        runtime = embedded_db.RUNTIME_ROLE
        with psycopg.connect(
            host=str(server.socket_dir),
            port=server.port,
            user=runtime,
            password=embedded_db.password_for(server, runtime),
            dbname="brain",
        ) as conn:
            assert conn.execute(
                "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
            ).fetchone() == (
                False,
                False,
            )
        _assert_private(server)
        _make_it_as_old_versions_did(server)
        assert not embedded_db.is_private(server)
        embedded_db.prepare(data_dir, "brain")  # converted in place, while running
        _assert_private(server)
        assert embedded_db.stop(data_dir) is True
        assert not embedded_db.is_running(server)
        assert embedded_db.stop(data_dir) is False
    finally:
        if embedded_db.is_running(embedded_db.server_for(data_dir)):
            embedded_db.stop(data_dir)
        shutil.rmtree(parent, ignore_errors=True)


def test_shared_buffers_come_from_the_environment_and_only_as_a_size(monkeypatch):
    from config.embedded_db import EmbeddedDatabaseError, server_options

    monkeypatch.delenv("BRAIN_PG_SHARED_BUFFERS", raising=False)
    assert "-c shared_buffers=2GB" in server_options()
    monkeypatch.setenv("BRAIN_PG_SHARED_BUFFERS", "512MB")
    assert "-c shared_buffers=512MB" in server_options()
    monkeypatch.setenv("BRAIN_PG_SHARED_BUFFERS", "1GB; touch /tmp/x")  # pg_ctl passes options to a shell
    with pytest.raises(EmbeddedDatabaseError, match="not a PostgreSQL size"):
        server_options()


def _connect_without_password(server, user):
    return psycopg.connect(
        host=str(server.socket_dir), port=server.port, user=user, dbname="postgres", connect_timeout=5
    )


def _assert_private(server):
    """Finding 1 of issue 15: any local OS user was superuser (socket 0777, trust, the app as postgres)."""
    assert server.socket_dir.stat().st_mode & 0o777 == 0o700
    roles_file = server.data_dir / embedded_db.ROLES_FILE
    assert roles_file.stat().st_mode & 0o777 == 0o600
    hba = [line.split() for line in (server.data_dir / "pg_hba.conf").read_text().splitlines()]
    methods = {fields[-1] for fields in hba if fields and not fields[0].startswith("#")}
    assert methods == {"scram-sha-256"}
    for user in (embedded_db.SUPERUSER, embedded_db.RUNTIME_ROLE, embedded_db.MIGRATION_ROLE):
        with pytest.raises(psycopg.OperationalError, match="password"):
            _connect_without_password(server, user).close()
    if shutil.which("runuser") and os.geteuid() == 0:
        psql = embedded_db._bin_dir() / "psql"
        result = subprocess.run(
            [
                "runuser",
                "-u",
                "nobody",
                "--",
                str(psql),
                "-h",
                str(server.socket_dir),
                "-p",
                str(server.port),
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-w",
                "-c",
                "SELECT 1",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.returncode != 0
        assert "Permission denied" in result.stderr or "password" in result.stderr


def _make_it_as_old_versions_did(server):
    """A data folder from before issue 15: trust in pg_hba.conf, no roles file, a socket folder open to all."""
    hba = server.data_dir / "pg_hba.conf"
    hba.write_text("local all all trust\n")
    embedded_db._chown_to_server_user(hba)
    with embedded_db.superuser_connection(server) as conn:
        conn.execute("SELECT pg_reload_conf()")
    (server.data_dir / embedded_db.ROLES_FILE).unlink()
    server.socket_dir.chmod(0o777)


@pytest.mark.skipif(
    not os.environ.get("BRAIN_PGDATA") and bool(os.environ.get("DATABASE_URL")), reason="embedded only"
)
def test_the_running_embedded_server_is_private(db):
    if not connection.settings_dict.get("EMBEDDED_DATA_DIR"):
        pytest.skip("DATABASE_URL is set: no embedded server")
    _assert_private(embedded_db.server_for(connection.settings_dict["EMBEDDED_DATA_DIR"]))


CONNECT_AND_LIST_ROLES = """
import django, psycopg
users = []
connect = psycopg.connect
psycopg.connect = lambda *a, **kw: users.append(kw.get("user")) or connect(*a, **kw)
django.setup()
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("SELECT current_user")
    print(cursor.fetchone()[0], sorted(set(users)))
"""


@pytest.mark.skipif(
    not os.environ.get("BRAIN_PGDATA") and bool(os.environ.get("DATABASE_URL")), reason="embedded only"
)
def test_a_running_process_connects_without_the_superuser(db):
    """Issue 29, item 9: the web process applied the LEAKPROOF marks (and created its database) with the
    superuser's password on its first connection; now `migrate` prepares the database, and a running
    process reads only its own roles' passwords."""
    server = embedded_db.server_for(connection.settings_dict["EMBEDDED_DATA_DIR"])
    result = subprocess.run(
        [sys.executable, "-c", CONNECT_AND_LIST_ROLES],
        cwd=REPO,
        env={**os.environ, "BRAIN_DB_NAME": connection.settings_dict["NAME"]},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split(maxsplit=1) == [embedded_db.RUNTIME_ROLE, f"['{embedded_db.RUNTIME_ROLE}']\n"]
    assert embedded_db.SUPERUSER not in embedded_db.role_passwords(server)  # not in the file it reads
