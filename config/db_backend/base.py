"""PostgreSQL backend with the role split: the runtime role by default, the migration role on demand.

Every deployment connects as two roles (decision 13): the application as a runtime role that owns
nothing and to which row-level security applies, `migrate` (and the test run's database set-up) as the
migration role that owns the schema. `migration_role(connection)` switches a connection for a block.

With DATABASE_URL unset it also starts the embedded server on first connection and takes the roles'
passwords from its data folder. Starting lazily (rather than at settings import) keeps commands that never
touch the database, like `manage.py help` or `check --deploy`, free of a server start. What needs the
server's superuser (creating the database, the LEAKPROOF marks) is done when the database is prepared
(`migrate`, `embedded_db start`, the test run's set-up), never on a running process's connection.
"""

import hashlib
import hmac
from contextlib import contextmanager

from django.db.backends.postgresql import base, creation

from config import embedded_db
from tickets.tenancy import pooled, wall


class DatabaseCreation(creation.DatabaseCreation):
    """The test database is created, migrated and dropped by the migration role, then used by the runtime role."""

    def create_test_db(self, *args, **kwargs):
        with migration_role(self.connection):
            return super().create_test_db(*args, **kwargs)

    def destroy_test_db(self, *args, **kwargs):
        with migration_role(self.connection):
            return super().destroy_test_db(*args, **kwargs)


class DatabaseWrapper(base.DatabaseWrapper):
    creation_class = DatabaseCreation

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Behind PgBouncer in transaction mode, each transaction is given the tenant and the bypass
        # (tickets/tenancy/pooled.py); `brain_applied` is what the current transaction was given.
        self.brain_applied = None
        if wall.pooled(self):
            self.execute_wrappers.append(pooled.TransactionLocalWall())

    # A transaction begins or ends, or is rolled back to a savepoint: what it was given is gone.
    def _set_autocommit(self, autocommit):
        self.brain_applied = None
        super()._set_autocommit(autocommit)

    def _commit(self):
        self.brain_applied = None
        super()._commit()

    def _rollback(self):
        self.brain_applied = None
        super()._rollback()

    def _savepoint_rollback(self, sid):
        self.brain_applied = None
        super()._savepoint_rollback(sid)

    def get_new_connection(self, conn_params):
        data_dir = self.settings_dict.get("EMBEDDED_DATA_DIR")
        if data_dir:
            # The database was prepared (created, marked) by `migrate` or the test run's set-up.
            server = embedded_db.ensure_running(data_dir)
            conn_params = {**conn_params, "password": embedded_db.password_for(server, conn_params["user"])}
        elif replica_dir := self.settings_dict.get("EMBEDDED_REPLICA_DATA_DIR"):
            # The embedded standby: the primary's passwords (its copy); never started here (down: skipped).
            server = embedded_db.server_for(replica_dir)
            conn_params = {**conn_params, "password": embedded_db.password_for(server, conn_params["user"])}
        # A session opened again inside a tenant scope starts in it (tickets/tenancy/wall.py).
        options = wall.session_options(self)
        if options:
            conn_params = {**conn_params, "options": f"{conn_params.get('options', '')} {options}".strip()}
        return super().get_new_connection(conn_params)

    def init_connection_state(self):
        super().init_connection_state()
        wall.session_opened(self)  # ... and inside a bypass, the wall is lowered again on the new session

    def wall_key(self) -> str:
        """The key that lowers the tenant wall for a session (tickets/tenancy/wall.py): BRAIN_WALL_KEY, else
        derived from the migration role's password (one role: its password), so that every process of a
        deployment derives the same key and the database keeps only its hash."""
        explicit = self.settings_dict.get("WALL_KEY")
        if explicit:
            return explicit
        password = driver_params(self.settings_dict, migration=True)["password"] or ""
        return hmac.new(password.encode(), b"brain tenant wall", hashlib.sha256).hexdigest()


@contextmanager
def migration_role(connection):
    """Run the block on `connection` as the migration role (a no-op where none is configured, or already).

    The connection is closed on entry and on exit: a session belongs to one role.
    """
    migration = connection.settings_dict.get("MIGRATION_USER")
    if not migration or connection.settings_dict["USER"] == migration:
        yield
        return
    runtime = (connection.settings_dict["USER"], connection.settings_dict["PASSWORD"])
    connection.close()
    connection.settings_dict["USER"] = migration
    connection.settings_dict["PASSWORD"] = connection.settings_dict.get("MIGRATION_PASSWORD", "")
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["USER"], connection.settings_dict["PASSWORD"] = runtime


def driver_params(settings_dict: dict, *, migration: bool = False) -> dict:
    """psycopg.connect() keywords for these settings, as the runtime role or the migration role (tests and
    tools that talk to the server outside Django's connection, e.g. to drop a benchmark's database)."""
    user = settings_dict.get("MIGRATION_USER") if migration else None
    password = settings_dict.get("MIGRATION_PASSWORD", "") if user else settings_dict["PASSWORD"]
    user = user or settings_dict["USER"]
    if settings_dict.get("EMBEDDED_DATA_DIR"):
        password = embedded_db.password_for(embedded_db.server_for(settings_dict["EMBEDDED_DATA_DIR"]), user)
    return {
        "host": settings_dict["HOST"],
        "port": settings_dict["PORT"] or None,
        "user": user,
        "password": password,
        "dbname": settings_dict["NAME"],
    }
