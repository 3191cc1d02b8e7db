"""The formation admin: gate rejection counts per surface × reason, memory filters, status actions via the service."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from brain.api import promote
from brain.models import Memory, MemoryHistory
from brain.types import MemoryCandidate

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    client.force_login(
        get_user_model().objects.create_superuser("staff-b", "b@example.com", "pw-for-tests-1")
    )
    return client


def _promote(tenant, text, surface):
    return promote(MemoryCandidate(tenant_id=tenant.pk, type="fact", text=text, surface=surface))


def test_the_history_changelist_shows_gate_rejection_counts_per_surface_and_reason(staff, tenant):
    _promote(tenant, "https://acme.example.com/a", "chat")
    _promote(tenant, "https://acme.example.com/b", "chat")
    _promote(tenant, "I will now call the tool.", "memory_append")
    _promote(tenant, "Acme ships orders within two business days.", "chat")
    response = staff.get(reverse("admin:brain_memoryhistory_changelist"), {"action__exact": "rejected"})
    assert response.status_code == 200
    counts = {(r["surface"], r["reason"]): r["count"] for r in response.context["rejection_counts"]}
    assert counts == {("chat", "bare_url"): 2, ("memory_append", "process_narration"): 1}
    html = response.content.decode()
    assert "Gate rejections by surface and reason (3 in this view)" in html
    filtered = staff.get(
        reverse("admin:brain_memoryhistory_changelist"),
        {"action__exact": "rejected", "surface__exact": "chat"},
    )
    assert {(r["surface"], r["reason"]) for r in filtered.context["rejection_counts"]} == {
        ("chat", "bare_url")
    }


def test_the_memory_changelist_filters_and_archives_through_the_service(staff, tenant):
    outcome = _promote(tenant, "Acme ships orders within two business days.", "chat")
    url = reverse("admin:brain_memory_changelist")
    for params in (
        {"surface__exact": "chat"},
        {"scope_kind__exact": "tenant", "status__exact": "active"},
        {"q": "ships"},
    ):
        response = staff.get(url, params)
        assert response.status_code == 200 and response.context["cl"].result_count == 1, params
    staff.post(url, {"action": "archive", "_selected_action": [outcome.memory_id]})
    assert Memory.objects.for_tenant(tenant).get().status == "archived"
    assert (
        MemoryHistory.objects.for_tenant(tenant).filter(action="archived", actor__startswith="user:").exists()
    )


def test_graph_admin_pages_render(staff, tenant):
    promote(
        MemoryCandidate(
            tenant_id=tenant.pk,
            type="fact",
            text="Acme ships orders fast.",
            provenance=[{"kind": "ticket", "id": 5}],
        )
    )
    assert staff.get(reverse("admin:brain_brainnode_changelist")).status_code == 200
    response = staff.get(reverse("admin:brain_brainedge_changelist"), {"relation__exact": "derived_from"})
    assert response.status_code == 200 and response.context["cl"].result_count == 1
