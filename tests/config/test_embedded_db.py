"""The embedded PostgreSQL 18: it runs, has the extensions, starts once under concurrency, stops cleanly."""

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
server = embedded_db.ensure_running(sys.argv[1], database="brain")
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
        with psycopg.connect(
            host=str(server.socket_dir), port=server.port, user="postgres", dbname="brain"
        ) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
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
