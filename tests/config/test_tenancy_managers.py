"""The default manager of every tenant-owned model fails closed without a tenant (tickets/tenancy/managers.py)."""

import pytest

from brain.models import Memory
from tickets import services
from tickets.models import Message, Ticket
from tickets.tenancy.managers import TenantScopeMissing

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "query",
    [
        lambda: list(Ticket.objects.all()),
        lambda: Ticket.objects.filter(subject="Refund").first(),
        lambda: Ticket.objects.get(external_id="T-1"),
        lambda: Ticket.objects.count(),
        lambda: Ticket.objects.exists(),
        lambda: Ticket.objects.filter(external_id="T-1").update(subject="taken over"),
        lambda: Ticket.objects.filter(external_id="T-1").delete(),
        lambda: list(Memory.objects.values_list("text", flat=True)),
        lambda: list(Ticket.objects.filter(tenant__slug="acme")),  # a join is not the row's own tenant
    ],
)
def test_a_query_without_a_tenant_raises_instead_of_reading_every_tenant(tenant, query):
    services.ticket_upsert(tenant=tenant, external_id="T-1", subject="Refund")
    with pytest.raises(TenantScopeMissing, match="for_tenant"):
        query()
    assert Ticket.objects.all_tenants().get().subject == "Refund"


def test_for_tenant_reads_one_tenant_and_all_tenants_reads_every_one(tenant, other_tenant):
    services.ticket_upsert(tenant=tenant, external_id="T-1", subject="Ours")
    services.ticket_upsert(tenant=other_tenant, external_id="T-1", subject="Theirs")
    assert [t.subject for t in Ticket.objects.for_tenant(tenant)] == ["Ours"]
    assert [t.subject for t in Ticket.objects.for_tenant(other_tenant.pk).filter(external_id="T-1")] == [
        "Theirs"
    ]
    assert not Ticket.objects.for_tenant(None).exists()
    assert Ticket.objects.all_tenants().count() == 2


def test_related_managers_creates_and_tenant_pinned_filters_need_no_other_scope(tenant):
    ticket, _ = services.ticket_upsert(tenant=tenant, external_id="T-1", subject="Ours")
    services.message_add(ticket=ticket, direction="inbound", body="Where is my parcel?")
    assert [m.body for m in ticket.messages.all()] == ["Where is my parcel?"]
    assert Ticket.objects.filter(tenant=tenant, external_id="T-1").exists()  # Django's unique checks ask so
    assert Message.objects.for_tenant(tenant).count() == 1
