"""DATABASES: an external PostgreSQL from DATABASE_URL, or the embedded PostgreSQL 18 (decision 7).

Two roles either way (decision 13): USER is the runtime role the application connects as, MIGRATION_USER
the role that owns the schema and runs `migrate` (config/db_backend). With DATABASE_URL, the migration
role comes from DATABASE_MIGRATION_URL (same server and database; unset, one role does both, without the
second wall's guarantee). RUNTIME_USER keeps the runtime role's name while a connection runs as the other.

Read replicas (issue 30): DATABASE_REPLICA_URLS, comma-separated postgresql:// URLs of hot standbys of the
primary (or `embedded`: the embedded server's standby, `manage.py embedded_db replica start`), become the
aliases `replica`, `replica_2`, ... with the runtime role; brain/replicas.py decides per call whether a read
may go to one. Unset (the default), there is no replica alias and no router: nothing changes.
"""

import copy
from urllib.parse import parse_qsl, unquote, urlparse

from config import embedded_db, embedded_replica

from .env import BASE_DIR, env_int, env_str


def database_from_url(url: str) -> dict:
    parsed = urlparse(url)
    if parsed.scheme not in {"postgres", "postgresql", "pgsql"}:
        raise ValueError(f"DATABASE_URL must be a postgresql:// URL, not {parsed.scheme}://")
    return {
        "ENGINE": "config.db_backend",
        "NAME": unquote(parsed.path.lstrip("/")),
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        "HOST": unquote(parsed.hostname or ""),
        "PORT": str(parsed.port or ""),
        "OPTIONS": dict(parse_qsl(parsed.query)),
    }


def embedded_database(data_dir: str, name: str) -> dict:
    server = embedded_db.server_for(data_dir)
    return {
        "ENGINE": "config.db_backend",
        "NAME": name,
        "USER": embedded_db.RUNTIME_ROLE,
        "PASSWORD": "",  # read from the data folder at connection time (config/db_backend)
        "MIGRATION_USER": embedded_db.MIGRATION_ROLE,
        "MIGRATION_PASSWORD": "",
        "HOST": str(server.socket_dir),
        "PORT": str(server.port),
        "EMBEDDED_DATA_DIR": str(server.data_dir),
        "EMBEDDED_DATABASE": name,
    }


DATABASE_URL = env_str("DATABASE_URL")
EMBEDDED_PGDATA = env_str("BRAIN_PGDATA", str(BASE_DIR / "var" / "pgdata"))

DATABASE_MIGRATION_URL = env_str("DATABASE_MIGRATION_URL")

if DATABASE_URL:
    _default = database_from_url(DATABASE_URL)
    if DATABASE_MIGRATION_URL:
        _migration = database_from_url(DATABASE_MIGRATION_URL)
        _default["MIGRATION_USER"] = _migration["USER"]
        _default["MIGRATION_PASSWORD"] = _migration["PASSWORD"]
else:
    _default = embedded_database(EMBEDDED_PGDATA, env_str("BRAIN_DB_NAME", "brain"))

_default["RUNTIME_USER"] = _default["USER"]
# The key that lowers the tenant wall (tickets/tenancy/wall.py); unset, derived from the migration role's password.
_default["WALL_KEY"] = env_str("BRAIN_WALL_KEY")
_default["CONN_MAX_AGE"] = env_int("DB_CONN_MAX_AGE", 60)
_default["CONN_HEALTH_CHECKS"] = True
# Tests run several suites side by side on one server; BRAIN_TEST_DB_NAME keeps their databases apart.
_default["TEST"] = {"NAME": env_str("BRAIN_TEST_DB_NAME") or None}

# Behind PgBouncer in transaction mode (README, "Scale-out"): `BRAIN_DB_POOLER=transaction` sets the tenant and the
# wall's bypass per transaction (tickets/tenancy/pooled.py), and no cursor outlives its transaction. With the
# embedded server, BRAIN_DB_POOLER_PORT is a PgBouncer on 127.0.0.1 in front of it (`brain_bench context --pooler`).
_default["POOLER"] = env_str("BRAIN_DB_POOLER")
if _default["POOLER"] not in ("", "transaction"):
    raise ValueError("BRAIN_DB_POOLER is `transaction` (PgBouncer in transaction mode) or empty")
if _default["POOLER"]:
    _default["DISABLE_SERVER_SIDE_CURSORS"] = True
    if env_str("BRAIN_DB_POOLER_PORT") and not DATABASE_URL:
        _default["HOST"], _default["PORT"] = "127.0.0.1", env_str("BRAIN_DB_POOLER_PORT")

DATABASES = {"default": _default}


def replica_database(default: dict, url: str) -> dict:
    """The alias of one standby: the primary's settings (runtime role, wall key, connection reuse) on another
    server. It never migrates and, in tests, mirrors the test database (`TEST.MIRROR`)."""
    replica = copy.deepcopy(default)
    for key in ("MIGRATION_USER", "MIGRATION_PASSWORD", "EMBEDDED_DATA_DIR", "EMBEDDED_DATABASE"):
        replica.pop(key, None)
    if url.strip() == "embedded":
        if not default.get("EMBEDDED_DATA_DIR"):
            raise ValueError("DATABASE_REPLICA_URLS=embedded needs the embedded server (DATABASE_URL unset).")
        server = embedded_replica.replica_server(default["EMBEDDED_DATA_DIR"])
        replica["HOST"], replica["PORT"] = str(server.socket_dir), str(server.port)
        # Its passwords are the primary's (a copy of the server); never started by a connection.
        replica["EMBEDDED_REPLICA_DATA_DIR"] = str(server.data_dir)
    else:
        parsed = database_from_url(url.strip())
        replica.update({k: v for k, v in parsed.items() if v})
    # A standby that is down costs a call at most this long before it is skipped (libpq's minimum: 2 s).
    replica["OPTIONS"] = {"connect_timeout": 2, **replica.get("OPTIONS", {})}
    replica["BRAIN_REPLICA"] = True
    replica["TEST"] = {"MIRROR": "default"}
    return replica


DATABASE_REPLICA_URLS = [u for u in env_str("DATABASE_REPLICA_URLS").split(",") if u.strip()]
for _index, _url in enumerate(DATABASE_REPLICA_URLS):
    DATABASES["replica" if _index == 0 else f"replica_{_index + 1}"] = replica_database(_default, _url)
BRAIN_REPLICA_ALIASES = tuple(alias for alias in DATABASES if alias != "default")
# A standby whose replay is further behind than this is skipped for the call (its reads go to the primary).
BRAIN_REPLICA_MAX_LAG_MS = env_int("BRAIN_REPLICA_MAX_LAG_MS", 500)
DATABASE_ROUTERS = ["tickets.tenancy.replicas.ReplicaRouter"] if BRAIN_REPLICA_ALIASES else []
