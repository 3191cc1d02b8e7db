"""DATABASE_REPLICA_URLS: each URL an alias with the primary's role and wall key on another server, never
migrated, mirroring the test database; `embedded` needs the embedded server."""

import pytest

from config.settings.database import database_from_url, replica_database
from tickets.tenancy.replicas import ReplicaRouter, lsn_value

PRIMARY = {
    **database_from_url("postgresql://brain_app:secret@db1:5432/brain"),
    "MIGRATION_USER": "brain_owner",
    "MIGRATION_PASSWORD": "owner-secret",
    "RUNTIME_USER": "brain_app",
    "WALL_KEY": "k",
    "CONN_MAX_AGE": 60,
    "TEST": {"NAME": None},
}


def test_a_replica_url_is_another_server_with_the_primarys_role_and_no_migration_role():
    replica = replica_database(PRIMARY, "postgresql://db2:5433")
    assert (replica["HOST"], replica["PORT"]) == ("db2", "5433")
    assert (replica["USER"], replica["PASSWORD"], replica["NAME"]) == ("brain_app", "secret", "brain")
    assert "MIGRATION_USER" not in replica and "MIGRATION_PASSWORD" not in replica
    assert replica["BRAIN_REPLICA"] and replica["TEST"] == {"MIRROR": "default"}
    assert replica["OPTIONS"]["connect_timeout"] == 2  # a server that is down costs a call little
    assert PRIMARY["HOST"] == "db1" and "BRAIN_REPLICA" not in PRIMARY  # the primary's settings untouched


def test_embedded_needs_the_embedded_server():
    with pytest.raises(ValueError, match="embedded"):
        replica_database(PRIMARY, "embedded")


def test_replicas_never_migrate_and_positions_compare(settings):
    settings.BRAIN_REPLICA_ALIASES = ("replica",)
    router = ReplicaRouter()
    assert router.allow_migrate("default", "brain") and not router.allow_migrate("replica", "brain")
    assert lsn_value("16/B374D848") > lsn_value("16/0") > lsn_value("F/FFFFFFFF") > lsn_value(None) == 0
