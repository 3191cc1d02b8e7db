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
(CONN_MAX_AGE) never carries one tenant into the next request. Behind PgBouncer in transaction mode
(`BRAIN_DB_POOLER=transaction`) nothing is set for the session: every transaction is given the tenant and the
bypass as its first statement, transaction-local (tickets/tenancy/pooled.py).

The explicit, audited bypass: `tenant_bypass(reason)` lowers the wall for a block and logs the reason. The
admin (staff work across tenants), `migrate`, cross-tenant tasks and maintenance commands use it. The
runtime role cannot lower it by itself (issue 29): the policy honours no setting the role can write, only a
pass that the wall's function `brain_wall_lower(key, reason)` opens for the calling session alone when it is
given the wall key (`DatabaseWrapper.wall_key()`: BRAIN_WALL_KEY, else derived from the migration role's
password — the database stores only its hash). The pass's token is kept in the session's `brain.bypass`
setting; its hash and the session's process id are kept in the schema `brain_wall`, which the runtime role
cannot read or write, and every lowering is logged there with its reason. A token copied into another
session opens nothing; `brain_wall_raise()` spends it. The two reads made before a tenant is known, the key
lookup and a user's memberships (sign-in, the switcher), go through SECURITY DEFINER functions that hold a
standing pass for their own read only.

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
WALL_SCHEMA = "brain_wall"
# A row is the session's tenant's, or every row while the session holds a pass. The pass is looked up only
# when the setting is not empty (an initplan runs when first needed): the hot path pays a string compare.
POLICY_CONDITION = (
    f"tenant_id = (SELECT NULLIF(current_setting('{TENANT_SETTING}', true), '')::bigint)"
    f" OR ((SELECT coalesce(current_setting('{BYPASS_SETTING}', true), '')) <> ''"
    " AND (SELECT brain_wall_open()))"
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


# The pass's token: two random UUIDs (244 random bits); the database keeps its SHA-256 only.
_TOKEN_HASH = "sha256(convert_to({value}, 'UTF8'))"
_DEFINER = "SECURITY DEFINER SET search_path = pg_catalog, pg_temp"

WALL_SQL = [
    f"CREATE SCHEMA IF NOT EXISTS {WALL_SCHEMA}",
    f"REVOKE ALL ON SCHEMA {WALL_SCHEMA} FROM PUBLIC",
    # key_hash: the wall key's hash; standing: the lookup functions' token (its pass has no session).
    f"""CREATE TABLE IF NOT EXISTS {WALL_SCHEMA}.key (
        id int PRIMARY KEY CHECK (id = 1), key_hash bytea NOT NULL, standing text NOT NULL)""",
    f"""CREATE TABLE IF NOT EXISTS {WALL_SCHEMA}.pass (
        token_hash bytea PRIMARY KEY, pid int, opened_at timestamptz NOT NULL DEFAULT now(),
        reason text NOT NULL)""",
    f"CREATE INDEX IF NOT EXISTS pass_pid ON {WALL_SCHEMA}.pass (pid)",
    # A pass for one transaction (behind a transaction pooler): its transaction's start, else NULL.
    f"ALTER TABLE {WALL_SCHEMA}.pass ADD COLUMN IF NOT EXISTS xact_start timestamptz",
    f"""CREATE TABLE IF NOT EXISTS {WALL_SCHEMA}.log (
        id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), pid int NOT NULL,
        role name NOT NULL, reason text NOT NULL)""",
    f"CREATE INDEX IF NOT EXISTS log_at ON {WALL_SCHEMA}.log (at)",
    # The policy's question: does this session hold a pass (its own, or the standing one)?
    f"""CREATE OR REPLACE FUNCTION brain_wall_open() RETURNS boolean
    LANGUAGE sql STABLE {_DEFINER} AS $$
        SELECT EXISTS (SELECT 1 FROM {WALL_SCHEMA}.pass p
            WHERE p.token_hash = {_TOKEN_HASH.format(value=f"current_setting('{BYPASS_SETTING}', true)")}
              AND (p.pid IS NULL OR p.pid = pg_backend_pid())
              AND (p.xact_start IS NULL OR p.xact_start = now()))
    $$""",
    # A pass for this session (`local`: for this transaction alone): with the wall key (or as the schema's owner,
    # who could drop the policy), and a reason, logged. Passes of sessions that ended without raising the wall,
    # and this session's earlier ones, are dropped on the way.
    "DROP FUNCTION IF EXISTS brain_wall_lower(text, text)",
    f"""CREATE OR REPLACE FUNCTION brain_wall_lower(wall_key text, reason text, local boolean DEFAULT false)
    RETURNS void
    LANGUAGE plpgsql VOLATILE {_DEFINER} AS $$
    DECLARE token text := gen_random_uuid()::text || gen_random_uuid()::text;
    BEGIN
        IF coalesce(btrim(reason), '') = '' THEN
            RAISE EXCEPTION 'the tenant wall is lowered only with a reason';
        END IF;
        IF session_user <> (SELECT nspowner::regrole::name FROM pg_namespace WHERE nspname = '{WALL_SCHEMA}')
           AND NOT EXISTS (SELECT 1 FROM {WALL_SCHEMA}.key
                           WHERE key_hash = {_TOKEN_HASH.format(value="wall_key")}) THEN
            RAISE EXCEPTION 'wrong tenant wall key' USING ERRCODE = 'invalid_password';
        END IF;
        DELETE FROM {WALL_SCHEMA}.pass WHERE pid = pg_backend_pid()
            OR pid NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL);
        INSERT INTO {WALL_SCHEMA}.pass (token_hash, pid, reason, xact_start)
            VALUES ({_TOKEN_HASH.format(value="token")}, pg_backend_pid(), left(reason, 500),
                    CASE WHEN local THEN now() END);
        INSERT INTO {WALL_SCHEMA}.log (pid, role, reason) VALUES (pg_backend_pid(), session_user, left(reason, 500));
        DELETE FROM {WALL_SCHEMA}.log WHERE at < now() - interval '90 days';
        PERFORM set_config('{BYPASS_SETTING}', token, local);
    END $$""",
    f"""CREATE OR REPLACE FUNCTION brain_wall_raise() RETURNS void
    LANGUAGE plpgsql VOLATILE {_DEFINER} AS $$
    BEGIN
        DELETE FROM {WALL_SCHEMA}.pass WHERE pid = pg_backend_pid();
        PERFORM set_config('{BYPASS_SETTING}', '', false);
    END $$""",
]


def _lookup_function_sql(name: str, table: str, column: str, argument_type: str) -> str:
    """A function reading `table`'s rows by `column` with the standing pass held for its own read only: for
    the two reads made before a tenant is known. It runs as the schema's owner, who alone reads the token."""
    return f"""
DROP FUNCTION IF EXISTS {name}({argument_type});
CREATE FUNCTION {name}(wanted {argument_type}) RETURNS SETOF public.{table}
LANGUAGE plpgsql {_DEFINER} AS $$
DECLARE previous text := coalesce(current_setting('{BYPASS_SETTING}', true), '');
BEGIN
    PERFORM set_config('{BYPASS_SETTING}', (SELECT standing FROM {WALL_SCHEMA}.key), true);
    RETURN QUERY SELECT * FROM public.{table} WHERE {column} = wanted;
    PERFORM set_config('{BYPASS_SETTING}', previous, true);
END $$
"""


LOOKUP_FUNCTIONS_SQL = [
    _lookup_function_sql(KEY_LOOKUP_FUNCTION, "tickets_apikey", "prefix", "text"),  # a key, by its prefix
    _lookup_function_sql(
        MEMBERSHIPS_FUNCTION, "tickets_membership", "user_id", "integer"
    ),  # sign-in, switcher
]


def _key_install(cursor, wall_key: str) -> None:
    """The wall key's hash (replaced when the key changes) and the standing pass (made once)."""
    cursor.execute(
        f"""INSERT INTO {WALL_SCHEMA}.key (id, key_hash, standing)
            VALUES (1, {_TOKEN_HASH.format(value="%s")}, gen_random_uuid()::text || gen_random_uuid()::text)
            ON CONFLICT (id) DO UPDATE SET key_hash = EXCLUDED.key_hash""",
        [wall_key],
    )
    cursor.execute(
        f"""INSERT INTO {WALL_SCHEMA}.pass (token_hash, pid, reason)
            SELECT {_TOKEN_HASH.format(value="standing")}, NULL, 'the lookup functions (key, memberships)'
            FROM {WALL_SCHEMA}.key ON CONFLICT DO NOTHING"""
    )


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
    """Idempotent: the wall's schema and functions, the policy on every tenant table, the lookup functions,
    the runtime role's grants.

    Returns the tenant tables. Needs the schema's owner (the migration role).
    """
    with connection.cursor() as cursor:
        tables = tenant_tables(cursor)
        cursor.execute("SELECT tablename FROM pg_policies WHERE policyname = %s", [POLICY])
        have_policy = {row[0] for row in cursor.fetchall()}
        for statement in WALL_SQL:
            cursor.execute(statement)
        _key_install(cursor, connection.wall_key())
        for table in tables:
            if table in have_policy:  # the condition as this version writes it
                cursor.execute(f'ALTER POLICY {POLICY} ON "{table}" USING ({POLICY_CONDITION})')
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
        connection = connections[using]
        wall_install(connection)
        # A database upgraded from before the pass: `migrate`'s bypass was the old setting until now.
        session_opened(connection, "migrate")


# --- The tenant of a session ------------------------------------------------------------------------------
# A connection wrapper (one per thread and alias) remembers the tenant and bypass its session should have
# (`brain_tenant_id`, `brain_bypass`); a session the backend opens again mid-block starts in that state
# (config/db_backend passes the tenant as a startup option and lowers the wall again on the new session), so
# a reconnect never loses the tenant or the bypass.


def session_options(connection) -> str:
    """libpq startup options for a new session of this wrapper: its tenant, if any."""
    tenant_id = getattr(connection, "brain_tenant_id", None)
    if tenant_id is None or pooled(connection):  # behind a pooler, each transaction sets its own
        return ""
    return f"-c {TENANT_SETTING}={int(tenant_id)}"


def _wall_functions_installed(connection, cursor) -> bool:
    """Whether this database has the wall's functions (not while `migrate` builds a new one: then it has no
    policy either). Remembered per connection wrapper and database once they are there."""
    database = connection.settings_dict["NAME"]
    if getattr(connection, "brain_wall_installed", None) == database:
        return True
    cursor.execute("SELECT to_regprocedure('brain_wall_lower(text,text,boolean)') IS NOT NULL")
    if cursor.fetchone()[0]:
        connection.brain_wall_installed = database
        return True
    return False


def _lower_or_raise(connection, cursor, lower: bool, reason: str) -> None:
    """One statement on `cursor` (a driver's or Django's, of `connection`'s session)."""
    if not _wall_functions_installed(connection, cursor):
        # A database `migrate` is still building or upgrading: a policy written before issue 29, if any,
        # honours the setting itself.
        cursor.execute("SELECT set_config(%s, %s, false)", [BYPASS_SETTING, "on" if lower else ""])
    elif lower:
        cursor.execute("SELECT brain_wall_lower(%s, %s)", [connection.wall_key(), reason])
    else:
        cursor.execute("SELECT brain_wall_raise()")


def session_opened(connection, reason: str = "a session opened again inside a bypass") -> None:
    """config/db_backend, on a new session of a wrapper inside a bypass: the wall lowered again there (on the
    driver's connection: not one of a request's queries)."""
    if getattr(connection, "brain_bypass", False) and not pooled(connection):
        with connection.connection.cursor() as cursor:
            _lower_or_raise(connection, cursor, True, reason)


def pooled(connection) -> bool:
    """Behind a pooler in transaction mode (`BRAIN_DB_POOLER`) the tenant and the bypass are set for each
    transaction, never for the session (tickets/tenancy/pooled.py)."""
    return connection.settings_dict.get("POOLER") == "transaction"


def _set(connection, name: str, value: str) -> None:
    if pooled(connection):
        _set_in_transaction(connection, name, value)
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, false)", [name, value])


def _set_in_transaction(connection, name: str, value: str) -> None:
    """Behind a pooler: the next statement's transaction is given the wrapper's new state (pooled.py); inside a
    transaction, a setting switched off is cleared now (the next statement sets only what is on)."""
    if connection.in_atomic_block:
        if not value:
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config(%s, '', true)", [name])
        connection.brain_applied = None


def tenant_set(tenant_id: int | None, *, using: str = DEFAULT_DB_ALIAS) -> None:
    """Make `tenant_id` the session's tenant (None: no tenant, no rows). Lasts until cleared or changed.

    Behind a transaction pooler it is the tenant of every transaction of this connection wrapper from now on."""
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
    had_tenant = getattr(connection, "brain_tenant_id", None) is not None
    had_bypass = getattr(connection, "brain_bypass", False)
    connection.brain_tenant_id = None
    connection.brain_bypass = False
    if not (had_tenant or had_bypass) or connection.connection is None or pooled(connection):
        return  # behind a pooler nothing outlived its transaction
    try:
        # Connection upkeep, sent on the driver's connection as Django's own health check is: not one of
        # the request's queries (query-count guards measure the handler's).
        with connection.connection.cursor() as cursor:
            if had_tenant:
                cursor.execute("SELECT set_config(%s, '', false)", [TENANT_SETTING])
            if had_bypass:
                _lower_or_raise(connection, cursor, False, "")
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
    """Lower the wall for the session (logged with its reason, here and in the database) or raise it again.
    Prefer `tenant_bypass` for a block."""
    connection = connections[using]
    if on:
        logger.log(level, "tenant wall bypassed: %s", reason)
    connection.brain_bypass = on
    connection.brain_bypass_reason = reason
    # A closed connection is left closed: the backend lowers the wall on the next session (session_opened).
    # Behind a pooler, each transaction is given its own pass, with this reason (pooled.py).
    if connection.connection is None:
        return
    if pooled(connection):
        _set_in_transaction(connection, BYPASS_SETTING, "on" if on else "")
        return
    with connection.cursor() as cursor:
        _lower_or_raise(connection, cursor, on, reason)


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
