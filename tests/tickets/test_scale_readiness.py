"""Ready to shard by tenant (issue 30, section 3): `manage.py check --tag scale` (tickets/tenancy/scale.py)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import IntegrityError, models, transaction
from django.test.utils import isolate_apps

from brain.models import BrainNode
from tests.brain.factories import fact
from tickets.tenancy import scale
from tickets.tenancy.models import Tenant


def run_check(*tags: str) -> str:
    out, err = StringIO(), StringIO()
    call_command("check", tags=list(tags) or None, stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def test_the_scale_check_lists_every_allowed_key_with_its_reason_and_finds_nothing_else():
    output = run_check(scale.TAG)
    assert "brain.W002" not in output and "brain.W003" not in output, output
    for key, reason in scale.ALLOWED.items():
        assert f"{key}: {reason}." in output
    call_command(
        "check", tags=[scale.TAG], fail_level="WARNING", stdout=StringIO(), stderr=StringIO()
    )  # CI's


def test_the_listing_stays_out_of_the_default_checks():
    assert "brain.I001" not in run_check()


def test_a_graph_node_is_unique_per_memory_within_its_tenant():
    """The old one-to-one key (memory_id alone) was a unique key without the tenant."""
    assert not [f for f in scale.findings() if f.table == "brain_brainnode" and f.kind == "unique"]


@pytest.mark.django_db
def test_a_memory_still_has_one_graph_node(tenant):
    memory = fact(tenant, "We ship to Norway.")
    BrainNode.objects.all_tenants().create(tenant=tenant, kind="memory", ref=str(memory.id), memory=memory)
    with pytest.raises(IntegrityError), transaction.atomic():
        BrainNode.objects.all_tenants().create(
            tenant=tenant, kind="memory", ref=f"{memory.id}b", memory=memory
        )


@isolate_apps("tests")
def test_a_key_without_the_tenant_leading_it_is_a_warning():
    class Voucher(models.Model):
        tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
        code = models.CharField(max_length=20, unique=True)
        batch = models.CharField(max_length=20)
        parent = models.ForeignKey("self", null=True, on_delete=models.CASCADE)

        class Meta:
            app_label = "tests"
            constraints = [models.UniqueConstraint(fields=["batch", "tenant"], name="voucher_batch")]

        def __str__(self) -> str:
            return self.code

    table = Voucher._meta.db_table
    warned = {
        m.msg.split(":")[0] for m in scale.check_scale(models_=[Voucher], allowed={}) if m.id == "brain.W002"
    }
    assert warned == {
        f"{table} primary key id",
        f"{table} unique code",
        f"{table} unique batch, tenant_id",
        f"{table} foreign key parent_id -> {table}",
    }
    allowed = {key: "a reason" for key in warned}
    assert scale.check_scale(models_=[Voucher], allowed=allowed) == []  # listed: passes, quietly by default


def test_an_allowance_that_matches_nothing_is_a_warning():
    messages = scale.check_scale(models_=[], allowed={"gone_table primary key id": "a reason"})
    assert [m.id for m in messages] == ["brain.W003"]
