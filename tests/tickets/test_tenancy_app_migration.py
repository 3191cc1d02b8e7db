"""Tenancy and webhooks became Django apps of their own in state only (tenancy 0001, webhooks 0001, brain
0017, intelligence 0007, tickets 0007): a database at the earlier migrations migrates forward keeping every
row, its tables, foreign keys and the tenant wall, and the moved models' content types (so staff
permissions) follow them."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from config.db_backend.base import migration_role
from tests.tenant_rows import fingerprint, plant_every_tenant_table
from tests.tickets.factories import TenantFactory
from tickets.tenancy.models import Tenant
from tickets.tenancy.wall import POLICY, wall_install

# Unapplying tenancy 0001 unapplies everything that came after it: the schema before the move.
BEFORE = [("tenancy", None)]
MOVED = {
    "tenant": "tenancy",
    "membership": "tenancy",
    "apikey": "tenancy",
    "invitation": "tenancy",
    "webhookendpoint": "webhooks",
    "webhookdelivery": "webhooks",
}


def migrate(targets) -> None:
    """Migrations run as the schema's owner, and the tenant wall is put back as `migrate` does."""
    with migration_role(connection):
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(targets)
        wall_install(connection)


def _one_column(sql, params=()) -> list:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] if len(row) == 1 else row for row in cursor.fetchall()]


def _content_type_labels() -> dict[str, str]:
    return dict(
        _one_column("SELECT model, app_label FROM django_content_type WHERE model = ANY(%s)", [list(MOVED)])
    )


def _schema() -> dict:
    """What a state-only move must leave as it is: the tables, the foreign keys to them, the wall's
    policies."""
    return {
        "tables": _one_column(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename = ANY(%s)"
            " ORDER BY 1",
            [[f"tickets_{model}" for model in MOVED]],
        ),
        "foreign_keys": _one_column(
            "SELECT conrelid::regclass::text, conname, confrelid::regclass::text FROM pg_constraint"
            " WHERE contype = 'f' AND confrelid = ANY(%s::regclass[]) ORDER BY 1, 2",
            [["tickets_tenant", "tickets_webhookendpoint"]],
        ),
        "policies": _one_column(
            "SELECT tablename FROM pg_policies WHERE policyname = %s ORDER BY 1", [POLICY]
        ),
    }


def test_a_database_at_the_earlier_migrations_moves_forward_keeping_its_rows(transactional_db):
    tenant = TenantFactory(slug="before-the-move")
    plant_every_tenant_table(tenant)
    rows, schema = fingerprint(tenant.pk), _schema()
    assert len(schema["tables"]) == len(MOVED) and schema["foreign_keys"] and schema["policies"]
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    migrate(BEFORE)
    try:
        # The tables of the earlier migrations keep their rows; a table a later migration adds (brain 0018 on) is
        # dropped when its migration is unapplied, and had no rows at the earlier migrations to keep.
        earlier = set(fingerprint(tenant.pk))
        assert earlier <= set(rows)
        assert set(_content_type_labels().values()) == {"tickets"}  # where the earlier migrations had them
        staff = get_user_model().objects.create_user("staff-before-the-move", is_staff=True)
        staff.user_permissions.add(
            Permission.objects.get(content_type__app_label="tickets", codename="change_apikey")
        )
        with connection.cursor() as cursor:  # a row the earlier code wrote, straight into its table
            cursor.execute(
                "INSERT INTO tickets_tenant (name, slug, settings, created_at)"
                " VALUES ('Written before', 'written-before', '{}', now())"
            )
        migrate(leaves)
        ContentType.objects.clear_cache()
        assert _content_type_labels() == MOVED
        assert get_user_model().objects.get(pk=staff.pk).has_perm("tenancy.change_apikey")
        assert {t: d for t, d in fingerprint(tenant.pk).items() if t in earlier} == {
            t: rows[t] for t in earlier
        }
        assert _schema() == schema
        assert Tenant.objects.get(slug="written-before").name == "Written before"
    finally:
        migrate(leaves)
        ContentType.objects.clear_cache()
