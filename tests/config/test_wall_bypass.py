"""Issue 29, item 1: the runtime role cannot lower the tenant wall itself.

Found on 6cfae5b: as `brain_app`, `SELECT set_config('brain.bypass', 'on', false)` showed every tenant's rows.
The policy now honours only a pass the wall's own functions hand out (tickets/tenancy/wall.py): a pass is
opened with the wall key, which the application holds and the database does not, for one session.
"""

import psycopg
import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError

from config.db_backend.base import driver_params
from tests.tenant_rows import plant_every_tenant_table, tenant_tables
from tests.tickets.factories import TenantFactory
from tickets.tenancy import wall


def _foreign_rows(cursor, tenant_id: int) -> dict[str, int]:
    """Rows of tenants other than `tenant_id` this session sees, per table (those it sees at all)."""
    seen = {}
    for table in tenant_tables():
        cursor.execute(f'SELECT count(*) FROM "{table}" WHERE tenant_id <> %s', [tenant_id])
        count = cursor.fetchone()[0]
        if count:
            seen[table] = count
    return seen


def _runtime_session(**extra) -> psycopg.Connection:
    """A new session as the runtime role, outside Django (as an attacker with the role's password would)."""
    return psycopg.connect(**driver_params(connection.settings_dict), autocommit=True, **extra)


@pytest.fixture
def planted(transactional_db):
    """Two tenants' rows in every table, committed (other sessions must see them to be refused them)."""
    a, b = TenantFactory(slug="bypass-a"), TenantFactory(slug="bypass-b")
    plant_every_tenant_table(a)
    plant_every_tenant_table(b)
    wall.bypass_set(False, "")
    return a, b


ATTEMPTS = [
    "SELECT set_config('brain.bypass', 'on', false)",
    "SET brain.bypass = 'on'",
    "SET brain.bypass = 'true'",
    "SELECT set_config('brain.bypass', md5('guess'), false)",
]


@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_no_setting_the_runtime_role_can_write_lowers_the_wall(planted, attempt):
    a, _ = planted
    with _runtime_session() as session, session.cursor() as cursor:
        cursor.execute("SELECT set_config('brain.tenant_id', %s, false)", [str(a.pk)])
        cursor.execute(attempt)
        assert _foreign_rows(cursor, a.pk) == {}


def test_a_setting_given_at_session_start_does_not_lower_it(planted):
    a, _ = planted
    with _runtime_session(options="-c brain.bypass=on") as session, session.cursor() as cursor:
        assert _foreign_rows(cursor, a.pk) == {}


def test_a_wrong_key_is_refused_and_lowers_nothing(planted):
    a, _ = planted
    with _runtime_session() as session, session.cursor() as cursor:
        with pytest.raises(psycopg.Error, match="wall key"):
            cursor.execute("SELECT brain_wall_lower(%s, %s)", ["not-the-key", "an attacker"])
        assert _foreign_rows(cursor, a.pk) == {}


def test_the_wall_tables_and_the_owner_are_out_of_the_runtime_roles_reach(planted):
    with _runtime_session() as session, session.cursor() as cursor:
        for statement in (
            "INSERT INTO brain_wall.pass (token_hash, pid, reason) VALUES (sha256('x'), pg_backend_pid(), 'x')",
            "SELECT key_hash FROM brain_wall.key",
            "DELETE FROM brain_wall.log",
            "SET ROLE brain_owner",
        ):
            with pytest.raises(psycopg.Error, match="permission denied"):
                cursor.execute(statement)


def test_a_pass_belongs_to_the_session_it_was_opened_in(planted):
    """A token read from one session's setting (its holder was lowered with the key) opens nothing in another."""
    a, _ = planted
    wall.bypass_set(True, "a session that holds the key")
    with connection.cursor() as cursor:
        assert _foreign_rows(cursor, a.pk)  # the key lowers it: the test can fail
        cursor.execute("SELECT current_setting('brain.bypass')")
        token = cursor.fetchone()[0]
    with _runtime_session() as session, session.cursor() as cursor:
        cursor.execute("SELECT set_config('brain.bypass', %s, false)", [token])
        assert _foreign_rows(cursor, a.pk) == {}
    wall.bypass_set(False, "")
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('brain.bypass', %s, false)", [token])
        assert _foreign_rows(cursor, a.pk) == {}  # raised: the token is spent


def test_every_lowering_is_logged_with_its_reason_where_the_runtime_role_cannot_erase_it(planted):
    wall.bypass_set(True, "staff looks at every tenant's tickets")
    wall.bypass_set(False, "")
    with psycopg.connect(**driver_params(connection.settings_dict, migration=True)) as owner:
        reasons = [row[0] for row in owner.execute("SELECT reason FROM brain_wall.log ORDER BY id")]
    assert reasons[-1] == "staff looks at every tenant's tickets"


def test_a_lowering_needs_a_reason(db):
    with pytest.raises(DatabaseError, match="reason"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT brain_wall_lower(%s, '')", [connection.wall_key()])


OLD_CONDITION = (
    "tenant_id = (SELECT NULLIF(current_setting('brain.tenant_id', true), '')::bigint)"
    " OR (SELECT current_setting('brain.bypass', true)) = 'on'"
)


def test_a_database_from_before_the_pass_is_upgraded_by_migrate(planted):
    """A database walled before issue 29 (the policy honouring the setting, no wall functions): `migrate`
    runs with the old setting's bypass and leaves the new policy, the functions and a working pass."""
    from django.core.management import call_command

    from config.db_backend.base import migration_role

    a, _ = planted
    with migration_role(connection), connection.cursor() as cursor:
        for table in tenant_tables():
            cursor.execute(f'ALTER POLICY {wall.POLICY} ON "{table}" USING ({OLD_CONDITION})')
        cursor.execute("DROP FUNCTION brain_wall_open, brain_wall_lower, brain_wall_raise CASCADE")
        cursor.execute(f"DROP SCHEMA {wall.WALL_SCHEMA} CASCADE")
    connection.brain_wall_installed = None
    call_command("migrate", verbosity=0, interactive=False)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_policies WHERE policyname = %s AND qual LIKE %s",
            [wall.POLICY, "%brain_wall_open%"],
        )
        assert cursor.fetchone()[0] == len(tenant_tables())
    with _runtime_session() as session, session.cursor() as cursor:
        cursor.execute("SELECT set_config('brain.bypass', 'on', false)")
        assert _foreign_rows(cursor, a.pk) == {}
    wall.bypass_set(True, "after the upgrade")
    with connection.cursor() as cursor:
        assert _foreign_rows(cursor, a.pk)
