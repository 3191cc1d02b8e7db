"""Tenant erasure with a receipt: nothing of the tenant remains, nothing of another tenant moves."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.tenant_rows import fingerprint, plant_every_tenant_table, rows_per_table
from tests.tickets.factories import TenantFactory, UserFactory
from tickets.tenancy.erasure import receipt_digest
from tickets.tenancy.models import Tenant


@pytest.fixture
def planted(db):
    call_command("seed_demo", stdout=StringIO())  # realistic rows: memories with vectors, the graph, tickets
    acme, globex = Tenant.objects.get(slug="acme"), Tenant.objects.get(slug="globex")
    for tenant in (acme, globex):
        plant_every_tenant_table(tenant)  # and one row in every table the demo leaves empty
    empty = [t for t, n in rows_per_table(acme.pk).items() if not n]
    assert empty == [], f"no row planted in {empty}: teach tests/tenant_rows.py the new table"
    return acme, globex


def test_erasure_leaves_nothing_of_the_tenant_and_moves_nothing_of_another(planted):
    acme, globex = planted
    before, others_before = rows_per_table(acme.pk), fingerprint(globex.pk)
    out = StringIO()
    call_command("tenant_erase", "acme", "--yes", "--json", stdout=out)
    receipt = json.loads(out.getvalue())
    assert rows_per_table(acme.pk) == {table: 0 for table in before}
    assert not Tenant.objects.filter(pk=acme.pk).exists()
    assert fingerprint(globex.pk) == others_before
    by_table = {row["table"]: row for row in receipt["tables"]}
    assert {t: by_table[t]["before"] for t in before} == before
    assert all(row["after"] == 0 for row in receipt["tables"])
    assert receipt["rows_deleted"] == sum(before.values()) + 1  # and the tenant's own row
    body = {k: receipt[k] for k in ("tenant_id", "slug", "name", "erased_at", "tables")}
    assert receipt["sha256"] == receipt_digest(body)


def test_erasure_refuses_without_confirmation(planted, monkeypatch):
    acme, _ = planted
    before = rows_per_table(acme.pk)
    monkeypatch.setattr("builtins.input", lambda prompt: "globex")
    with pytest.raises(CommandError, match="Not confirmed"):
        call_command("tenant_erase", "acme", stdout=StringIO())
    assert rows_per_table(acme.pk) == before
    monkeypatch.setattr("builtins.input", lambda prompt: "acme")
    out = StringIO()
    call_command("tenant_erase", "acme", stdout=out)
    assert "sha256:" in out.getvalue() and rows_per_table(acme.pk) == {t: 0 for t in before}


def test_the_admin_erases_through_the_service_after_the_slug_is_typed(db, client):
    staff = UserFactory(username="staff", is_staff=True, is_superuser=True)
    tenant, other = TenantFactory(slug="doomed"), TenantFactory(slug="kept")
    plant_every_tenant_table(tenant)
    plant_every_tenant_table(other)
    kept = fingerprint(other.pk)
    client.force_login(staff)
    url = "/admin/tenancy/tenant/"
    page = client.post(url, {"action": "erase_tenants", "_selected_action": [tenant.pk]})
    assert page.status_code == 200
    assert (
        b"not the admin&#x27;s delete cascade" in page.content
        or b"not the admin's delete cascade" in page.content
    )
    assert Tenant.objects.filter(pk=tenant.pk).exists()
    wrong = client.post(
        url, {"action": "erase_tenants", "_selected_action": [tenant.pk], "confirm_slugs": "kept"}
    )
    assert wrong.status_code == 302 and Tenant.objects.filter(pk=tenant.pk).exists()
    done = client.post(
        url,
        {"action": "erase_tenants", "_selected_action": [tenant.pk], "confirm_slugs": "doomed"},
        follow=True,
    )
    assert b"sha256" in done.content
    assert not Tenant.objects.filter(pk=tenant.pk).exists()
    assert sum(rows_per_table(tenant.pk).values()) == 0
    assert fingerprint(other.pk) == kept
    # The admin's own delete (which would cascade into rows it may not delete) is not offered.
    assert client.get(f"/admin/tenancy/tenant/{other.pk}/delete/").status_code == 403
