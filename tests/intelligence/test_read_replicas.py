"""Read replicas (issue 30): the context call reads on a real hot standby of the embedded server when it has
the memory states the call depends on; a write is seen by the next call; a lagging or stopped standby is
skipped. The standby is made by `embedded_replica.start` (pg_basebackup, streaming replication) for these
tests only, and holds the tenant wall as the primary does."""

import logging
import time

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from config import embedded_replica
from config.settings.database import replica_database
from intelligence.models import ContextTrace
from tests.brain.factories import fact
from tests.conftest import make_member
from tickets.tenancy import replicas, wall

from .factories import add_memory, make_agent

ALIAS = "replica"
pytestmark = pytest.mark.django_db(transaction=True, databases=["default", ALIAS])


@pytest.fixture(scope="session")
def standby(django_db_setup, django_db_blocker):
    """A streaming standby of the test server, as the alias `replica` (reads on the test database)."""
    default = connections["default"].settings_dict
    data_dir = default.get("EMBEDDED_DATA_DIR")
    if not data_dir:
        pytest.skip("the replica tests make a standby of the embedded server (DATABASE_URL is set)")
    already = embedded_replica.is_running(embedded_replica.replica_server(data_dir))
    embedded_replica.start(data_dir)
    settings_dict = replica_database(default, "embedded")
    settings_dict["NAME"] = default["NAME"]  # the test database, on the standby
    settings_dict["TEST"] = {**default["TEST"], "MIRROR": "default"}
    connections.settings[ALIAS] = settings_dict
    yield data_dir
    connections[ALIAS].close()
    del connections.settings[ALIAS]
    if not already:  # another session's (or a developer's) standby is left running
        embedded_replica.stop(data_dir)


@pytest.fixture
def replica(standby, settings):
    """Reads may go to the standby in this test (running and replaying); nothing is marked down."""
    embedded_replica.start(standby)
    embedded_replica.replay_paused(standby, False)
    settings.BRAIN_REPLICA_ALIASES = (ALIAS,)
    settings.BRAIN_REPLICA_MAX_LAG_MS = 500
    settings.DATABASE_ROUTERS = ["tickets.tenancy.replicas.ReplicaRouter"]
    replicas._down_until.clear()
    yield standby
    embedded_replica.replay_paused(standby, False)
    connections[ALIAS].close()


def _primary_lsn() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        return cursor.fetchone()[0]


def _wait_on_replica(condition: str, lsn: str) -> None:
    """Until the standby has received (or replayed) the primary's WAL up to `lsn`."""
    server = embedded_replica.replica_server(connections["default"].settings_dict["EMBEDDED_DATA_DIR"])
    from config import embedded_db

    deadline = time.monotonic() + 30
    with embedded_db.superuser_connection(server) as conn:
        while not conn.execute(f"SELECT {condition} >= %s::pg_lsn", [lsn]).fetchone()[0]:
            assert time.monotonic() < deadline, f"the standby did not reach {lsn} ({condition})"
            time.sleep(0.05)


def caught_up() -> None:
    _wait_on_replica("pg_last_wal_replay_lsn()", _primary_lsn())


def context(api, agent, conversation="Where is my parcel?"):
    response = api.post(
        reverse("agent-context", kwargs={"agent_pk": agent.pk}), {"conversation": conversation}, format="json"
    )
    assert response.status_code == 200, response.content
    return response.json(), response.headers["X-Brain-Reads"]


def test_a_tenant_sees_nothing_of_another_on_the_replica(replica, tenant, other_tenant):
    mine = fact(tenant, "Acme ships from Lyon.")
    theirs = fact(other_tenant, "Globex ships from Oslo.")
    caught_up()
    replica_conn = connections[ALIAS]
    with wall.tenant_scope(tenant.pk, using=ALIAS), replica_conn.cursor() as cursor:
        cursor.execute("SELECT pg_is_in_recovery(), current_user")
        assert cursor.fetchone() == (True, connection.settings_dict["USER"])  # the standby, the runtime role
        cursor.execute("SELECT id FROM brain_memory")
        assert [row[0] for row in cursor.fetchall()] == [mine.pk]
        cursor.execute("SELECT count(*) FROM brain_memory WHERE tenant_id = %s", [other_tenant.pk])
        assert cursor.fetchone()[0] == 0
        cursor.execute(
            "SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user"
        )  # held to the policies, as on the primary
        assert cursor.fetchone()[0] is False
        cursor.execute(
            "SELECT relrowsecurity AND relforcerowsecurity FROM pg_class WHERE relname = 'brain_memory'"
        )
        assert cursor.fetchone()[0] is True
        assert wall.not_leakproof(cursor) == []  # the LEAKPROOF marks came with the copy
    with wall.tenant_scope(None, using=ALIAS), replica_conn.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM brain_memory WHERE id IN (%s, %s)", [mine.pk, theirs.pk])
        assert cursor.fetchone()[0] == 0  # no tenant, no rows: fail-closed
    # No bypass on the standby: the wall is not lowered without the key (nor could it write the pass).
    with replica_conn.cursor() as cursor, pytest.raises(Exception, match="wrong tenant wall key|read-only"):
        cursor.execute("SELECT brain_wall_lower(%s, %s)", ["not the key", "a try"])
    replica_conn.close()


def test_the_context_call_reads_on_the_replica_and_writes_on_the_primary(replica, api, tenant):
    agent = make_agent(tenant)
    rule = add_memory(agent, "Never promise a refund before the billing team confirms it.")
    caught_up()
    data, reads = context(api, agent)
    assert reads.startswith("replica")
    assert data["injected_memory_ids"] == [rule]
    # The trace was written on the primary.
    assert ContextTrace.objects.for_tenant(tenant).filter(pk=data["trace_id"]).exists()


def test_a_write_then_an_immediate_context_call_sees_the_write(replica, api, tenant, settings):
    settings.BRAIN_REPLICA_MAX_LAG_MS = 10**9  # the freshness rule alone decides here, not the lag
    agent = make_agent(tenant)
    first = add_memory(agent, "Never promise a refund before the billing team confirms it.")
    caught_up()
    embedded_replica.replay_paused(replica, True)  # the standby keeps the state before the write
    second = add_memory(agent, "Never share another customer's order details.")
    data, reads = context(api, agent)
    assert reads == "primary_stale"
    assert sorted(data["injected_memory_ids"]) == sorted([first, second])
    embedded_replica.replay_paused(replica, False)
    caught_up()
    data, reads = context(api, agent)
    assert reads.startswith("replica")
    assert sorted(data["injected_memory_ids"]) == sorted([first, second])


def test_a_lagging_replica_is_skipped(replica, api, tenant, other_tenant, settings):
    agent = make_agent(tenant)
    rule = add_memory(agent, "Never promise a refund before the billing team confirms it.")
    caught_up()
    settings.BRAIN_REPLICA_MAX_LAG_MS = 0  # any replay behind what the standby received is too much
    embedded_replica.replay_paused(replica, True)
    fact(other_tenant, "Globex ships from Oslo.")  # not this tenant's memories: their stamps stay equal
    _wait_on_replica("pg_last_wal_receive_lsn()", _primary_lsn())  # received, not replayed
    data, reads = context(api, agent)
    assert reads == "primary_lag"
    assert data["injected_memory_ids"] == [rule]
    embedded_replica.replay_paused(replica, False)
    caught_up()
    assert context(api, agent)[1].startswith("replica")


def test_a_stopped_replica_is_skipped_and_logged(replica, api, tenant, caplog):
    agent = make_agent(tenant)
    rule = add_memory(agent, "Never promise a refund before the billing team confirms it.")
    caught_up()
    assert context(api, agent)[1].startswith("replica")  # its connection is open when it stops
    embedded_replica.stop(replica)
    with caplog.at_level(logging.WARNING, logger="brain.replicas"):
        data, reads = context(api, agent)
    assert reads == "primary_down"
    assert data["injected_memory_ids"] == [rule]
    assert any("replica replica skipped" in r.getMessage() for r in caplog.records)
    data, reads = context(api, agent)  # within the pause: not tried again
    assert reads == "primary_no_replica" and data["injected_memory_ids"] == [rule]
    embedded_replica.start(replica)
    replicas._down_until.clear()
    caught_up()
    assert context(api, agent)[1].startswith("replica")


def test_a_write_inside_the_replica_block_is_refused(replica, tenant):
    with replicas.replica_block(ALIAS), pytest.raises(replicas.ReplicaWriteError):
        make_agent(tenant)


def test_an_operator_page_reads_on_the_replica_and_shows_the_operators_own_write(replica, tenant, settings):
    client = Client()
    client.force_login(make_member(tenant))
    agent = make_agent(tenant, name="Support agent")
    caught_up()
    tab = reverse("intelligence-tab", args=[agent.pk])
    page = client.get(tab)
    assert page.status_code == 200 and page["X-Brain-Reads"] == "replica"
    settings.BRAIN_REPLICA_MAX_LAG_MS = 10**9  # the operator's own last write alone decides here
    embedded_replica.replay_paused(replica, True)
    text = "Never promise a refund before the billing team confirms it."
    form = {"category": "instruction", "strength": "hard_rule", "status": "active", "content": text}
    added = client.post(reverse("intelligence-memory-add", args=[agent.pk]), form)
    assert added.status_code == 302, added.content.decode()[-2000:]
    page = client.get(tab)
    assert page["X-Brain-Reads"] == "primary_stale" and text in page.content.decode()
    embedded_replica.replay_paused(replica, False)
    caught_up()
    page = client.get(tab)
    assert page["X-Brain-Reads"] == "replica" and text in page.content.decode()


@pytest.mark.django_db
def test_with_no_replica_an_operator_page_is_untouched(tenant, settings):
    settings.BRAIN_REPLICA_ALIASES = ()
    client = Client()
    client.force_login(make_member(tenant))
    page = client.get(reverse("intelligence-agents"))
    assert page.status_code == 200 and "X-Brain-Reads" not in page


def test_search_reads_on_the_replica_and_sees_a_write_made_just_before(replica, api, tenant, settings):
    fact(tenant, "Refunds are issued within 14 days.")
    caught_up()
    search = reverse("brain-search")
    response = api.post(search, {"query": "refunds shipping", "limit": 5}, format="json")
    assert response.status_code == 200 and response.headers["X-Brain-Reads"].startswith("replica")
    assert response.json()["count"] == 1
    settings.BRAIN_REPLICA_MAX_LAG_MS = 10**9
    embedded_replica.replay_paused(replica, True)
    shipping = fact(tenant, "Shipping to Canada takes five days.")
    response = api.post(search, {"query": "refunds shipping", "limit": 5}, format="json")
    assert response.headers["X-Brain-Reads"] == "primary_stale"
    assert shipping.pk in [r["id"] for r in response.json()["results"]]


def recorded_activity_shown(page) -> str:
    import re

    return re.search(r'data-testid="recorded-activity">(\d+)<', page.content.decode()).group(1)


def test_the_client_brain_page_reads_on_the_replica_with_activity_still_pending(replica, tenant):
    """A page read on the standby drains nothing (it cannot write: a drain there would send the page back to
    the primary); it shows the counts of the primary's last drain, beat's or another read's."""
    from brain.activity import activity_drain_all, memories_record_activity
    from brain.models import PendingActivity

    client = Client()
    client.force_login(make_member(tenant))
    row = fact(tenant, "Acme ships refurbished laptops from Lyon within two days.")
    memories_record_activity(tenant_id=tenant.pk, memory_ids=[row.pk])
    caught_up()
    dashboard = reverse("client-brain-dashboard")
    page = client.get(dashboard)
    assert page.status_code == 200 and page["X-Brain-Reads"] == "replica"
    assert recorded_activity_shown(page) == "0"
    with wall.tenant_bypass("test: the recording is still pending"):
        assert PendingActivity.objects.all_tenants().filter(tenant=tenant).count() == 1
    assert activity_drain_all() == {tenant.pk: 1}  # beat's pass
    caught_up()
    page = client.get(dashboard)
    assert page["X-Brain-Reads"] == "replica" and recorded_activity_shown(page) == "1"
