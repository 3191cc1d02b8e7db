"""manage.py seed_demo is idempotent and prints credentials and keys once."""

import re
from io import StringIO

import pytest
from django.core.management import call_command

from tickets.tenancy.models import ApiKey, Membership, Tenant


def test_seed_demo_is_idempotent_and_prints_keys_once(db):
    first, second = StringIO(), StringIO()
    call_command("seed_demo", stdout=first)
    counts = (
        Tenant.objects.count(),
        Membership.objects.all_tenants().count(),
        ApiKey.objects.all_tenants().count(),
    )
    call_command("seed_demo", stdout=second)
    assert counts == (
        Tenant.objects.count(),
        Membership.objects.all_tenants().count(),
        ApiKey.objects.all_tenants().count(),
    )
    assert counts[:2] == (2, 6)
    assert len(re.findall(r"brn_[0-9a-f]{8}_\S+", first.getvalue())) == 2
    assert not re.findall(r"brn_[0-9a-f]{8}_\S+", second.getvalue())
    assert "password" in first.getvalue()


def test_seed_demo_prints_a_user_per_role_of_each_tenant_who_can_sign_in(db):
    """Issue 28, item 7: the README promises a user per role (admin, operator, viewer) of each demo tenant."""
    out = StringIO()
    call_command("seed_demo", stdout=out)
    printed = re.findall(
        r"^\s+(.+?)\s+(admin|operator|viewer)\s+user (\S+)\s+password (\S+)$", out.getvalue(), re.M
    )
    assert {(tenant, role) for tenant, role, _, _ in printed} == {
        (name, role)
        for name in ("Acme Outdoor Gear", "Globex Telecom")
        for role in ("admin", "operator", "viewer")
    }
    for tenant_name, role, username, password in printed:
        membership = (
            Membership.objects.all_tenants().select_related("user", "tenant").get(user__username=username)
        )
        assert (membership.tenant.name, membership.role) == (tenant_name, role)
        assert membership.user.check_password(password)


def test_demo_key_prints_only_a_fresh_key_of_the_demo_tenant(db):
    """Issue 28, item 2: `KEY=$(.venv/bin/python manage.py demo_key)` gets a key that works, and nothing else."""
    from django.core.management.base import CommandError
    from rest_framework.test import APIClient

    with pytest.raises(CommandError, match="make run"):
        call_command("demo_key", stdout=StringIO())
    call_command("seed_demo", stdout=StringIO())
    out = StringIO()
    call_command("demo_key", "--tenant", "globex", stdout=out)
    key = out.getvalue().strip()
    assert re.fullmatch(r"brn_[0-9a-f]{8}_\S+", key) and out.getvalue() == key + "\n"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/v1/tenant").json()["slug"] == "globex"
