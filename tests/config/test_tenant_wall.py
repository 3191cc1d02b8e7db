"""The second wall (decision 13): row-level security on every tenant table, for a runtime role held to it."""

import pytest
from django.db import connection, transaction
from django.db.utils import ProgrammingError

from tests.conftest import api_client_for_key
from tests.tenant_rows import plant_every_tenant_table, rows_per_table, tenant_tables
from tests.tickets.factories import TenantFactory
from tickets.tenancy import services, wall


def _scalar(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def test_every_tenant_table_has_a_forced_policy(db):
    tables = tenant_tables()
    assert len(tables) >= 20
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity,
                      EXISTS (SELECT 1 FROM pg_policies p WHERE p.tablename = c.relname AND p.policyname = %s)
               FROM pg_class c WHERE c.relname = ANY(%s)""",
            [wall.POLICY, tables],
        )
        unguarded = [row[0] for row in cursor.fetchall() if not all(row[1:])]
    assert unguarded == []


def test_the_application_role_is_not_superuser_not_bypassrls_and_owns_nothing(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False, False)
        cursor.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)"
        )
        assert cursor.fetchone()[0] == 0
    if connection.settings_dict.get("MIGRATION_USER"):
        assert connection.settings_dict["USER"] != connection.settings_dict["MIGRATION_USER"]


@pytest.fixture
def two_planted_tenants(db):
    a, b = TenantFactory(slug="wall-a"), TenantFactory(slug="wall-b")
    plant_every_tenant_table(a)
    plant_every_tenant_table(b)
    empty = [t for t, n in rows_per_table(a.pk).items() if not n]
    assert empty == [], f"no row planted in {empty}: teach tests/tenant_rows.py the new table"
    wall.bypass_set(False, "")  # from here on, the test is held to the wall like the application
    return a, b


def test_raw_sql_without_a_tenant_sees_nothing_and_writes_nothing(two_planted_tenants):
    a, _ = two_planted_tenants
    seen = {t: _scalar(f'SELECT count(*) FROM "{t}"') for t in tenant_tables()}
    assert seen == {t: 0 for t in seen}
    assert (
        _scalar("WITH u AS (UPDATE tickets_ticket SET subject = 'x' RETURNING 1) SELECT count(*) FROM u") == 0
    )
    with pytest.raises(ProgrammingError, match="row-level security"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO tickets_membership (tenant_id, user_id, role, created_at)"
                " SELECT %s, id, 'admin', now() FROM auth_user LIMIT 1",
                [a.pk],
            )


def test_raw_sql_as_tenant_a_sees_nothing_of_b(two_planted_tenants):
    a, b = two_planted_tenants
    wall.tenant_set(a.pk)
    for table in tenant_tables():
        assert _scalar(f'SELECT count(*) FROM "{table}" WHERE tenant_id <> %s', [a.pk]) == 0, table
        assert _scalar(f'SELECT count(*) FROM "{table}"') > 0, table
    assert (
        _scalar(
            "WITH d AS (DELETE FROM tickets_ticket WHERE tenant_id = %s RETURNING 1) SELECT count(*) FROM d",
            [b.pk],
        )
        == 0
    )


def test_every_statement_of_an_api_request_runs_as_its_tenant_without_the_bypass(tenant, api_key):
    seen = []

    def record(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        with context["connection"].connection.cursor() as raw:
            raw.execute(
                "SELECT current_setting('brain.tenant_id', true), current_setting('brain.bypass', true)"
            )
            seen.append((sql, *raw.fetchone()))
        return result

    client = api_client_for_key(api_key)
    with connection.execute_wrapper(record):
        response = client.get("/api/v1/tickets")
    assert response.status_code == 200
    (lookup,) = [i for i, (sql, *_) in enumerate(seen) if wall.KEY_LOOKUP_FUNCTION in sql]
    assert seen[lookup][1:] == (str(tenant.pk), "")  # the lookup's own statement set the tenant
    handler = [state for sql, *state in seen[lookup + 1 :] if "set_config" not in sql]
    assert handler and set(map(tuple, handler)) == {(str(tenant.pk), "")}


def test_a_pooled_connection_keeps_no_tenant_after_the_request(tenant, api_key):
    response = api_client_for_key(api_key).get("/api/v1/tickets")
    assert response.status_code == 200
    assert _scalar("SELECT current_setting('brain.tenant_id', true)") in ("", None)


def test_a_key_lookup_finds_the_key_before_its_tenant_is_known_and_sets_it(tenant):
    from tickets.tenancy.selectors import api_key_with_tenant

    key, _ = services.api_key_create(tenant=tenant, name="lookup")
    wall.bypass_set(False, "")
    found = api_key_with_tenant(key.prefix)
    assert found.pk == key.pk and found.tenant.pk == tenant.pk
    assert _scalar("SELECT current_setting('brain.tenant_id', true)") == str(tenant.pk)
    assert _scalar("SELECT current_setting('brain.bypass', true)") in ("off", "", None)


def _plan(sql: str, params=()) -> str:
    """EXPLAIN of `sql` as the application's role, the sequential scan priced out of the planner's choice."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_full_text_and_trigram_conditions_are_served_by_their_indexes_under_the_wall(two_planted_tenants):
    """Under the policy a condition is an index condition only when its function is LEAKPROOF: `@@` and
    pg_trgm's operators were not, so full text and the trigram tier read a 100k-row tenant row by row along
    its btree (70-390 ms a statement in `brain_bench scale`, 1-25 ms through the indexes)."""
    a, _ = two_planted_tenants
    wall.tenant_set(a.pk)
    statements = wall.leakproof_statements(list(wall.LEAKPROOF_FUNCTIONS))
    # Full text matches the tenant's own lexeme keys (migration 0019: "<tenant>:<lexeme>").
    full_text = _plan(
        "SELECT id FROM brain_memory m WHERE m.tenant_lexemes @@ %s::tsquery", [f"'{a.pk}:refund'"]
    )
    assert "memory_tenant_lexemes" in full_text, f"{full_text}\n(as the server's superuser: {statements})"
    for operator in ("<%%", "%%"):  # word_similarity, similarity (`%` doubled: the statement has a parameter)
        trigram = _plan(f"SELECT id FROM brain_memory m WHERE %s {operator} m.text", ["refnd"])
        assert "memory_tenant_trgm" in trigram, f"{operator}: {trigram}\n(as the superuser: {statements})"
    assert wall.check_leakproof(databases=["default"]) == []


def test_the_check_names_an_operator_not_leakproof_and_the_statement_that_fixes_it(db):
    from config import embedded_db

    data_dir = connection.settings_dict.get("EMBEDDED_DATA_DIR")
    if not data_dir:
        pytest.skip("DATABASE_URL is set: no superuser here to take the mark off")
    server, name = embedded_db.server_for(data_dir), connection.settings_dict["NAME"]
    try:
        with embedded_db.superuser_connection(server, name) as conn:
            conn.execute("ALTER FUNCTION ts_match_vq(tsvector, tsquery) NOT LEAKPROOF")
        (warning,) = wall.check_leakproof(databases=["default"])
        assert warning.id == "brain.W001"
        assert "ts_match_vq(tsvector, tsquery)" in warning.msg
        assert warning.hint == "As the server's superuser, in this database: " + (
            "ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF;"
        )
    finally:
        with embedded_db.superuser_connection(server, name) as conn:
            conn.execute("ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF")
    assert wall.check_leakproof(databases=["default"]) == []
