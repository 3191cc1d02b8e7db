"""Issue 30, section 2: behind PgBouncer in transaction mode, a pooled server connection carries nothing of one
client's transaction into another's: the tenant, the wall's bypass, advisory locks (tickets/tenancy/pooled.py).

Each test starts its own PgBouncer (config/pgbouncer.py) with ONE server connection in front of the test
database, and opens connection wrappers through it as the application does (`BRAIN_DB_POOLER=transaction`):
their statements take turns on that one server connection. Skipped when pgbouncer is not installed, unless
BRAIN_REQUIRE_PGBOUNCER=1 (CI), which makes that a failure.
"""

import pytest
from django.db import connection, connections, transaction

from brain.formation.writes import scope_lock
from brain.models import Memory
from config import pgbouncer
from tests.brain.factories import fact
from tests.tickets.factories import TenantFactory
from tickets.tenancy import selectors, wall


@pytest.fixture
def bouncer(transactional_db, require_pgbouncer):
    data_dir = connection.settings_dict["EMBEDDED_DATA_DIR"]
    if not data_dir:
        pytest.skip("the PgBouncer tests start one in front of the embedded server (DATABASE_URL is set)")
    started = pgbouncer.start(data_dir, [connection.settings_dict["NAME"]], pool_size=1)
    yield started
    started.stop()


@pytest.fixture
def pooled(bouncer):
    """Connection wrappers through the PgBouncer, as `BRAIN_DB_POOLER=transaction` makes them; by alias."""
    made = []

    def make(alias: str):
        connections.settings[alias] = {
            **connection.settings_dict,
            "HOST": "127.0.0.1",
            "PORT": str(bouncer.port),
            "POOLER": "transaction",
            "DISABLE_SERVER_SIDE_CURSORS": True,
        }
        made.append(alias)
        wrapper = connections[alias]
        wrapper.connect()  # opened here: Django's test case refuses aliases it did not set up when they connect
        wrapper.brain_bypass = (
            False  # a client of the product, not test code (tests/conftest.py lowers the wall)
        )
        return wrapper

    yield make
    for alias in made:
        connections[alias].close()
        del connections[alias]
        del connections.settings[alias]


def ids(alias: str) -> set[int]:
    return set(Memory.objects.using(alias).all_tenants().values_list("id", flat=True))


def backend_pid(alias: str) -> int:
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.fixture
def two_tenants(transactional_db):
    acme, globex = TenantFactory(slug="acme"), TenantFactory(slug="globex")
    return (acme, fact(acme, "Acme ships to Norway.")), (globex, fact(globex, "Globex ships to Peru."))


def test_two_tenants_interleaved_through_one_pooled_connection_see_only_their_own(pooled, two_tenants):
    (acme, acme_row), (globex, globex_row) = two_tenants
    a, b, nobody = pooled("pooled_a"), pooled("pooled_b"), pooled("pooled_nobody")
    wall.tenant_set(acme.id, using="pooled_a")
    wall.tenant_set(globex.id, using="pooled_b")
    for _ in range(3):  # statement by statement, each its own transaction on the one server connection
        assert ids("pooled_a") == {acme_row.id}
        assert ids("pooled_b") == {globex_row.id}
        assert ids("pooled_nobody") == set()  # fail-closed: nothing of the others' settings reached it
    with transaction.atomic(using="pooled_a"):  # a transaction of several statements, then the other client
        assert ids("pooled_a") == {acme_row.id}
        assert Memory.objects.using("pooled_a").all_tenants().filter(id=acme_row.id).update(text="Acme.") == 1
        assert Memory.objects.using("pooled_a").all_tenants().filter(id=globex_row.id).update(text="X") == 0
    assert ids("pooled_b") == {globex_row.id}
    with nobody.cursor() as cursor:
        cursor.execute("SELECT coalesce(current_setting('brain.tenant_id', true), '')")
        assert cursor.fetchone()[0] == ""
    assert len({backend_pid(alias) for alias in ("pooled_a", "pooled_b", "pooled_nobody")}) == 1
    assert a.brain_tenant_id == acme.id and b.brain_tenant_id == globex.id


def test_an_api_key_lookup_gives_its_tenant_to_that_client_alone(pooled, two_tenants):
    """The key lookup sets the tenant in the statement that reads the key: behind a pooler, for that
    transaction alone; the client's next statements get it from its connection wrapper."""
    from tickets.tenancy import services

    (acme, acme_row), _ = two_tenants
    key, _full = services.api_key_create(tenant=acme, name="agent")
    pooled("pooled_a"), pooled("pooled_nobody")
    original, connections["default"] = connections["default"], connections["pooled_a"]
    try:
        found = selectors.api_key_with_tenant(key.prefix)
    finally:
        connections["default"] = original
    assert found is not None and connections["pooled_a"].brain_tenant_id == acme.id
    assert ids("pooled_nobody") == set()
    assert ids("pooled_a") == {acme_row.id}


def test_a_lowered_wall_is_one_clients_and_lasts_its_transactions_only(pooled, two_tenants):
    (acme, acme_row), (globex, globex_row) = two_tenants
    pooled("pooled_admin"), pooled("pooled_nobody")
    with wall.tenant_bypass("a staff page", using="pooled_admin"):
        assert ids("pooled_admin") == {acme_row.id, globex_row.id}
        assert ids("pooled_nobody") == set()
        with transaction.atomic(using="pooled_admin"):
            assert ids("pooled_admin") == {acme_row.id, globex_row.id}
        assert ids("pooled_nobody") == set()
    assert ids("pooled_admin") == set()
    with connections["pooled_nobody"].cursor() as cursor:  # the pass opened nothing past its transaction
        cursor.execute("SELECT brain_wall_open()")
        assert cursor.fetchone()[0] is False


def test_formations_advisory_lock_ends_with_its_transaction(pooled, two_tenants):
    """promote() serialises a scope with pg_advisory_xact_lock: under transaction pooling the lock is released
    at commit, so the next client on the same server connection does not inherit it."""
    (acme, _), _ = two_tenants
    pooled("pooled_a"), pooled("pooled_b")
    wall.tenant_set(acme.id, using="pooled_a")
    original, connections["default"] = connections["default"], connections["pooled_a"]
    try:
        with transaction.atomic(using="pooled_a"):
            scope_lock(acme.id, "tenant", "")
            with connections["pooled_a"].cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
                )
                assert cursor.fetchone()[0] == 1
    finally:
        connections["default"] = original
    with connections["pooled_b"].cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")
        assert cursor.fetchone()[0] == 0


def test_pooled_connections_prepare_no_statements_and_keep_no_cursor(pooled):
    """PgBouncer 1.18 (Debian 12) does not carry prepared statements across server connections: Django's
    psycopg connections prepare none (prepare_threshold None) and hold no server-side cursor."""
    wrapper = pooled("pooled_a")
    assert wrapper.connection.prepare_threshold is None
    assert wrapper.settings_dict["DISABLE_SERVER_SIDE_CURSORS"] is True


def test_a_tenant_or_bypass_changed_inside_a_transaction_holds_from_the_next_statement(pooled, two_tenants):
    (acme, acme_row), (globex, globex_row) = two_tenants
    pooled("pooled_a")
    with transaction.atomic(using="pooled_a"):
        wall.tenant_set(acme.id, using="pooled_a")
        assert ids("pooled_a") == {acme_row.id}
        wall.tenant_set(globex.id, using="pooled_a")
        assert ids("pooled_a") == {globex_row.id}
        with wall.tenant_bypass("a sweep", using="pooled_a"):
            assert ids("pooled_a") == {acme_row.id, globex_row.id}
        assert ids("pooled_a") == {globex_row.id}
        wall.tenant_set(None, using="pooled_a")
        assert ids("pooled_a") == set()


def test_a_pooled_client_writes_its_own_tenants_rows_only(pooled, two_tenants):
    """An INSERT ... RETURNING reads its own result behind the prefix; a row of another tenant is refused."""
    from django.db import DatabaseError

    from tickets.models import Ticket

    (acme, _), (globex, _) = two_tenants
    pooled("pooled_a"), pooled("pooled_nobody")
    wall.tenant_set(acme.id, using="pooled_a")
    ticket = Ticket.objects.using("pooled_a").create(
        tenant=acme, external_id="T-1", subject="Where is my order?"
    )
    assert ticket.id and Ticket.objects.using("pooled_a").for_tenant(acme).get().id == ticket.id
    with pytest.raises(DatabaseError, match="row-level security"):
        Ticket.objects.using("pooled_a").create(tenant=globex, external_id="T-2")
    assert not Ticket.objects.using("pooled_nobody").all_tenants().exists()
