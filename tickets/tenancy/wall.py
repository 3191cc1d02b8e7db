"""The second wall between tenants (decision 13): PostgreSQL row-level security on every tenant table.

Every table with a `tenant_id` column has the policy `tenant_wall`, enabled and forced (the schema's owner
is held to it too): a row is visible and writable only when its `tenant_id` equals the session's
`brain.tenant_id`. With no tenant set, every query returns no rows and every write fails: fail-closed.

Who sets the tenant:
- API requests: the key lookup sets it in the same statement that reads the key (no extra round trip);
- operator UI requests: `TenantMiddleware`, once it knows the session's tenant;
- Celery tasks: from their `tenant_id` argument (`task_prerun`), restored after the task;
- management commands and benchmarks: `tenant_scope(tenant_id)` or the bypass below.
A request's setting is cleared when the request finishes (`request_finished`), so a pooled connection
(CONN_MAX_AGE) never carries one tenant into the next request.

The explicit, audited bypass: `tenant_bypass(reason)` sets `brain.bypass` for a block and logs the reason.
The admin (staff work across tenants), `migrate`, cross-tenant tasks and maintenance commands use it. The
two reads made before a tenant is known, the key lookup and a user's memberships (sign-in, the switcher),
go through SQL functions that hold the bypass for their own read only.

The tenancy app's ready() (tickets/tenancy/apps.py) connects the signal handlers below and registers the
database check `brain.W001` (check_leakproof).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

from django.core.management.base import BaseCommand
from django.db import DEFAULT_DB_ALIAS, connections

logger = logging.getLogger("brain.tenant_wall")

TENANT_SETTING = "brain.tenant_id"
BYPASS_SETTING = "brain.bypass"
POLICY = "tenant_wall"
POLICY_CONDITION = (
    f"tenant_id = (SELECT NULLIF(current_setting('{TENANT_SETTING}', true), '')::bigint)"
    f" OR (SELECT current_setting('{BYPASS_SETTING}', true)) = 'on'"
)
# The operators the lexical tiers ask their GIN indexes with (full text's `@@`, pg_trgm's `<%` / `%>` / `%`).
# Under a row-level security policy PostgreSQL uses a condition of the query as an index condition only when
# its function is LEAKPROOF (it could otherwise see, through an error, a row the policy hides); these are not
# declared so, so every full-text or trigram condition was checked row by row along the tenant's btree index,
# far slower on a large tenant than through the GIN indexes (README, `brain_bench scale`). None of them raises an
# error that depends on a row's value (they compare a document with a query and return a boolean), so the server's superuser marks
# them LEAKPROOF: the embedded server does it for every database it serves (config/embedded_db.py); for an
# external server the check `brain.W001` prints the statements. ILIKE's `~~*` is left as it is: it raises an
# error on a malformed pattern, so with a row as its pattern it would tell one thing about a hidden row.
LEAKPROOF_FUNCTIONS = (
    "ts_match_vq(tsvector, tsquery)",
    "word_similarity_op(text, text)",
    "word_similarity_commutator_op(text, text)",
    "similarity_op(text, text)",
)
KEY_LOOKUP_FUNCTION = "brain_api_key_by_prefix"
MEMBERSHIPS_FUNCTION = "brain_memberships_of_user"


def _lookup_function_sql(name: str, table: str, column: str, argument_type: str) -> str:
    """A function reading `table`'s rows by `column` with the bypass held for its own read only: for the two
    reads made before a tenant is known."""
    return f"""
DROP FUNCTION IF EXISTS {name}({argument_type});
CREATE FUNCTION {name}(wanted {argument_type}) RETURNS SETOF {table}
LANGUAGE plpgsql AS $$
DECLARE previous text := coalesce(current_setting('{BYPASS_SETTING}', true), '');
BEGIN
    PERFORM set_config('{BYPASS_SETTING}', 'on', true);
    RETURN QUERY SELECT * FROM {table} WHERE {column} = wanted;
    PERFORM set_config('{BYPASS_SETTING}', previous, true);
END $$
"""


LOOKUP_FUNCTIONS_SQL = [
    _lookup_function_sql(KEY_LOOKUP_FUNCTION, "tickets_apikey", "prefix", "text"),  # a key, by its prefix
    _lookup_function_sql(
        MEMBERSHIPS_FUNCTION, "tickets_membership", "user_id", "integer"
    ),  # sign-in, switcher
]


# --- Installing the wall (runs as the migration role: `migrate` and post_migrate) -------------------------


def tenant_tables(cursor) -> list[str]:
    """Every table of the schema with a tenant_id column, read from the catalog (a new table is included)."""
    cursor.execute(
        """SELECT c.relname FROM pg_attribute a
           JOIN pg_class c ON c.oid = a.attrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
             AND a.attname = 'tenant_id' AND NOT a.attisdropped
           ORDER BY c.relname"""
    )
    return [row[0] for row in cursor.fetchall()]


def wall_install(connection) -> list[str]:
    """Idempotent: the policy on every tenant table, the key lookup function, the runtime role's grants.

    Returns the tenant tables. Needs the schema's owner (the migration role).
    """
    with connection.cursor() as cursor:
        tables = tenant_tables(cursor)
        cursor.execute("SELECT tablename FROM pg_policies WHERE policyname = %s", [POLICY])
        have_policy = {row[0] for row in cursor.fetchall()}
        for table in tables:
            if table in have_policy:
                continue
            cursor.execute(f'ALTER TABLE "{table}" ENABLE ROW LEVEL SECURITY')
            cursor.execute(f'ALTER TABLE "{table}" FORCE ROW LEVEL SECURITY')
            cursor.execute(f'CREATE POLICY {POLICY} ON "{table}" USING ({POLICY_CONDITION})')
        for function_sql in LOOKUP_FUNCTIONS_SQL:
            cursor.execute(function_sql)
        _grant_runtime_role(cursor, connection.settings_dict.get("RUNTIME_USER"), connection.ops.quote_name)
    return tables


def _grant_runtime_role(cursor, runtime: str | None, quote_name) -> None:
    """The runtime role reads and writes rows; it owns nothing, so it cannot alter, drop or truncate."""
    cursor.execute("SELECT current_user")
    if not runtime or runtime == cursor.fetchone()[0]:
        return
    role = quote_name(runtime)
    cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
    cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
    cursor.execute(
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {role}"
    )
    cursor.execute(f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {role}")


def not_leakproof(cursor) -> list[str]:
    """The functions of LEAKPROOF_FUNCTIONS this database has and does not declare LEAKPROOF."""
    cursor.execute(
        "SELECT f FROM unnest(%s::text[]) f JOIN pg_proc p ON p.oid = to_regprocedure(f) WHERE NOT p.proleakproof",
        [list(LEAKPROOF_FUNCTIONS)],
    )
    return [row[0] for row in cursor.fetchall()]


def leakproof_statements(functions: list[str]) -> str:
    return "; ".join(f"ALTER FUNCTION {function} LEAKPROOF" for function in functions)


def check_leakproof(app_configs=None, databases=None, **kwargs) -> list:
    """System check (database): warn when the lexical tiers' operators cannot be index conditions under the wall."""
    from django.core import checks
    from django.db.utils import Error as DatabaseError

    found = []
    for alias in databases or ():
        try:
            with connections[alias].cursor() as cursor:
                missing = not_leakproof(cursor)
        except DatabaseError:
            continue  # a server that cannot be reached is reported by what needs it
        if missing:
            found.append(
                checks.Warning(
                    f"Full-text and trigram search cannot use their indexes under the tenant wall on database "
                    f"'{alias}': {', '.join(missing)} not declared LEAKPROOF, so each search checks every row "
                    "of the tenant (slow on tenants of 10k rows and more).",
                    hint=f"As the server's superuser, in this database: {leakproof_statements(missing)};",
                    id="brain.W001",
                )
            )
    return found


def wall_install_after_migrate(sender, using=DEFAULT_DB_ALIAS, **kwargs) -> None:
    """post_migrate: tables a later migration adds get the policy and the grants without a migration of their own."""
    if sender.name == "brain":  # once per migrate (post_migrate is sent per app)
        wall_install(connections[using])


# --- The tenant of a session ------------------------------------------------------------------------------
# A connection wrapper (one per thread and alias) remembers the tenant and bypass its session should have
# (`brain_tenant_id`, `brain_bypass`); a session the backend opens again mid-block starts in that state
# (config/db_backend passes it as startup options), so a reconnect never loses the tenant or the bypass.


def session_options(connection) -> str:
    """libpq startup options for a new session of this wrapper: its tenant and bypass, if any."""
    options = []
    tenant_id = getattr(connection, "brain_tenant_id", None)
    if tenant_id is not None:
        options.append(f"-c {TENANT_SETTING}={int(tenant_id)}")
    if getattr(connection, "brain_bypass", False):
        options.append(f"-c {BYPASS_SETTING}=on")
    return " ".join(options)


def _set(connection, name: str, value: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, false)", [name, value])


def tenant_set(tenant_id: int | None, *, using: str = DEFAULT_DB_ALIAS) -> None:
    """Make `tenant_id` the session's tenant (None: no tenant, no rows). Lasts until cleared or changed."""
    connection = connections[using]
    connection.brain_tenant_id = tenant_id
    if connection.connection is not None:  # else the next session starts with it (startup options)
        _set(connection, TENANT_SETTING, "" if tenant_id is None else str(int(tenant_id)))


def tenant_noted(tenant_id: int | None, *, using: str = DEFAULT_DB_ALIAS) -> None:
    """Record a tenant a statement of the caller's own set (the key lookup folds the setting into its read)."""
    connections[using].brain_tenant_id = tenant_id


def session_reset(*, using: str = DEFAULT_DB_ALIAS) -> None:
    """Clear the tenant and the bypass if this process set either (one statement on an open connection)."""
    connection = connections[using]
    had_state = getattr(connection, "brain_tenant_id", None) is not None or getattr(
        connection, "brain_bypass", False
    )
    connection.brain_tenant_id = None
    connection.brain_bypass = False
    if not had_state or connection.connection is None:
        return
    try:
        # Connection upkeep, sent on the driver's connection as Django's own health check is: not one of
        # the request's queries (query-count guards measure the handler's).
        connection.connection.execute(
            "SELECT set_config(%s, '', false), set_config(%s, 'off', false)", [TENANT_SETTING, BYPASS_SETTING]
        )
    except Exception:  # noqa: BLE001 - a connection that cannot be reset must not be reused
        logger.exception("could not clear the tenant of a connection; closing it")
        connection.close()


def request_finished_reset(sender=None, **kwargs) -> None:
    """request_finished: the next request on a pooled connection starts with no tenant and no bypass."""
    for connection in connections.all(initialized_only=True):
        session_reset(using=connection.alias)


@contextmanager
def tenant_scope(tenant_id: int | None, *, using: str = DEFAULT_DB_ALIAS):
    """The block runs as `tenant_id` (tasks, commands); the session's previous tenant is restored after."""
    connection = connections[using]
    previous = getattr(connection, "brain_tenant_id", None)
    tenant_set(tenant_id, using=using)
    try:
        yield
    finally:
        tenant_set(previous, using=using)


def bypass_set(on: bool, reason: str, *, using: str = DEFAULT_DB_ALIAS, level: int = logging.INFO) -> None:
    """Turn the session's bypass on (logged with its reason) or off. Prefer `tenant_bypass` for a block."""
    connection = connections[using]
    if on:
        logger.log(level, "tenant wall bypassed: %s", reason)
    connection.brain_bypass = on
    # A closed connection is left closed: the backend opens the next session in this state (startup options).
    if connection.connection is not None:
        _set(connection, BYPASS_SETTING, "on" if on else "off")


@contextmanager
def tenant_bypass(reason: str, *, using: str = DEFAULT_DB_ALIAS, level: int = logging.INFO):
    """Every tenant's rows for the block, logged with its reason: admin, migrate, sign-in, maintenance."""
    previous = getattr(connections[using], "brain_bypass", False)
    bypass_set(True, reason, using=using, level=level)
    try:
        yield
    finally:
        if not previous:
            bypass_set(False, reason, using=using)


@contextmanager
def bypass_suspended(*, using: str = DEFAULT_DB_ALIAS):
    """The block is held to the wall even inside a bypass (erasure: the policy itself keeps it to one tenant)."""
    previous = getattr(connections[using], "brain_bypass", False)
    if previous:
        bypass_set(False, "", using=using)
    try:
        yield
    finally:
        if previous:
            bypass_set(True, "resumed after a block held to one tenant", using=using)


class CrossTenantCommand(BaseCommand):
    """A maintenance command that works across tenants: it runs with the bypass, logged with its name."""

    def execute(self, *args, **options):
        with tenant_bypass(f"manage.py {type(self).__module__.rsplit('.', 1)[-1]}"):
            return super().execute(*args, **options)


# --- Celery: a task runs as the tenant its tenant_id names ------------------------------------------------


def _task_tenant_id(task, args, kwargs) -> tuple[bool, int | None]:
    """(whether the task takes a tenant_id, its value)."""
    import inspect

    try:
        bound = inspect.signature(task.run).bind_partial(*(args or ()), **(kwargs or {}))
    except TypeError:
        return False, None
    if "tenant_id" not in inspect.signature(task.run).parameters:
        return False, None
    return True, bound.arguments.get("tenant_id")


def task_enter(sender=None, task=None, args=None, kwargs=None, **extra) -> None:
    """task_prerun: tenant tasks run as their tenant; tasks without one (periodic sweeps across tenants)
    run with the bypass, logged with the task's name."""
    task = task or sender
    takes_tenant, tenant_id = _task_tenant_id(task, args, kwargs)
    scope = (
        tenant_scope(tenant_id) if takes_tenant else tenant_bypass(f"task {task.name} works across tenants")
    )
    scope.__enter__()
    task.request.brain_tenant_scope = scope


def task_exit(sender=None, task=None, **extra) -> None:
    """task_postrun: the session as it was before the task (an eager task runs inside a request)."""
    task = task or sender
    scope = getattr(task.request, "brain_tenant_scope", None)
    if scope is not None:
        task.request.brain_tenant_scope = None
        scope.__exit__(None, None, None)
