"""manage.py seed_demo is idempotent and prints credentials and keys once."""

import re
from io import StringIO

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
    assert counts[:2] == (2, 4)
    assert len(re.findall(r"brn_[0-9a-f]{8}_\S+", first.getvalue())) == 2
    assert not re.findall(r"brn_[0-9a-f]{8}_\S+", second.getvalue())
    assert "password" in first.getvalue()
