"""The tenant query audit (tests/tenant_query_audit.py): what it counts as a statement without a tenant condition."""

import pytest
from django.db import connection

from brain.models import Memory
from tests.brain.factories import fact

from .tenant_query_audit import TenantQueryAudit, shape


@pytest.mark.parametrize(
    "sql",
    [
        'UPDATE "brain_memory" SET "text" = %s WHERE "brain_memory"."id" = %s',
        'DELETE FROM "brain_memoryhistory" WHERE "brain_memoryhistory"."memory_id" IN (%s, %s)',
        'SELECT "intelligence_agent"."id" FROM "intelligence_agent" INNER JOIN "brain_memory" ON '
        '("intelligence_agent"."id" = "brain_memory"."scope_id") WHERE "intelligence_agent"."tenant_id" = %s',
        'INSERT INTO "tickets_ticket" ("external_id", "subject") VALUES (%s, %s)',
    ],
)
def test_a_statement_without_a_tenant_condition_on_a_table_is_noted(sql):
    assert TenantQueryAudit().lacking(sql)


@pytest.mark.parametrize(
    "sql",
    [
        'SELECT "brain_memory"."id" FROM "brain_memory" WHERE ("brain_memory"."tenant_id" = %s AND "id" = %s)',
        "SELECT m.id FROM brain_memory m WHERE m.tenant_id = %s",
        'SELECT 1 FROM "brain_brainedge" T3 JOIN "brain_brainnode" n ON n."tenant_id" = T3."tenant_id" '
        'WHERE T3."tenant_id" IN (%s)',
        'INSERT INTO "tickets_ticket" ("tenant_id", "external_id") VALUES (%s, %s) RETURNING "tickets_ticket"."id"',
        'SELECT "tickets_apikey"."id" FROM "tickets_apikey" WHERE "tickets_apikey"."prefix" = %s',  # a reference
        "SELECT set_config(%s, %s, false)",
        "DELETE FROM brain_memory_tally",
        "SELECT id FROM brain_brainnode WHERE (tenant_id, kind, ref) IN ((%s, %s, %s))",  # a table whose name begins with a tenant table's
        "WITH new AS (INSERT INTO brain_brainnode (tenant_id, kind) VALUES (%s, %s) RETURNING id) SELECT id FROM new",
    ],
)
def test_a_statement_held_to_one_tenant_is_not(sql):
    assert TenantQueryAudit().lacking(sql) == ()


def test_shapes_fold_literals_and_in_lists():
    assert (
        shape("SELECT 1 FROM t WHERE a IN (%s, %s, %s) AND b = 'x'")
        == "SELECT N FROM t WHERE a IN (...) AND b = '?'"
    )


@pytest.mark.django_db
def test_the_audit_sees_the_orm_statements_of_a_test(tenant, tmp_path):
    audit = TenantQueryAudit()
    row = fact(tenant, "We ship to Norway.")
    with connection.execute_wrapper(audit):
        list(Memory.objects.for_tenant(tenant).filter(text__contains="Norway"))
        assert audit.shapes == {}
        row.save(update_fields=["text"])  # Django's save() updates by primary key alone
    [(key, entry)] = audit.shapes.items()
    assert key.startswith('UPDATE "brain_memory" SET') and entry.tables == ("brain_memory",)
    path, summary = audit.report(tmp_path / "audit.txt")
    assert "1 on a distributed tenant table" in summary[0] and key in path.read_text()
