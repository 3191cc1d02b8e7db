"""The demo tickets are learned into Client Brain memories through the real pipeline, idempotently."""

from io import StringIO

from brain.models import Memory
from tests.tickets.factories import TenantFactory
from tickets.demo import DEMO_TICKETS, seed_demo
from tickets.models import LearningAttempt, Ticket


def test_demo_tickets_are_solved_and_learned_into_every_family(db, django_capture_on_commit_callbacks):
    acme = TenantFactory(name="Acme Outdoor Gear", slug="acme")
    globex = TenantFactory(name="Globex Telecom", slug="globex")
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        seed_demo(tenant=acme, stdout=out)
        seed_demo(tenant=globex, stdout=out)
    for tenant in (acme, globex):
        tickets = Ticket.objects.for_tenant(tenant)
        assert tickets.count() == len(DEMO_TICKETS[tenant.slug])
        assert set(tickets.values_list("status", flat=True)) == {"solved"}
        attempts = LearningAttempt.objects.for_tenant(tenant)
        assert set(attempts.values_list("status", flat=True)) == {"succeeded"}
        memories = Memory.objects.for_tenant(tenant).filter(surface="client_brain")
        assert set(memories.values_list("type", flat=True)) == {"business", "voice", "issues", "process"}
    formality = {
        t.slug: Memory.objects.for_tenant(t).get(type="voice", status="active").payload["formality"]
        for t in (acme, globex)
    }
    assert formality == {"acme": "casual", "globex": "formal"}
    assert "learning attempts succeeded" in out.getvalue()


def test_seeding_the_demo_tickets_again_creates_and_learns_nothing_new(
    db, django_capture_on_commit_callbacks
):
    acme = TenantFactory(name="Acme Outdoor Gear", slug="acme")
    with django_capture_on_commit_callbacks(execute=True):
        seed_demo(tenant=acme, stdout=StringIO())
    counts = (
        Ticket.objects.all_tenants().count(),
        LearningAttempt.objects.all_tenants().count(),
        Memory.objects.all_tenants().count(),
    )
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        seed_demo(tenant=acme, stdout=StringIO())
    assert callbacks == []
    assert counts == (
        Ticket.objects.all_tenants().count(),
        LearningAttempt.objects.all_tenants().count(),
        Memory.objects.all_tenants().count(),
    )
