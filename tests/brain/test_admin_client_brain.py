"""Suspended means suspended in the Django admin too (issue 13, finding 7; DESIGN.md decision 10).

A superuser could delete, archive and activate Client Brain rows in the admin, and a delete left no history
entry. Through the admin's own HTTP pages: every add, change, delete (single and bulk) and status action on a
Client Brain row is refused and nothing changes; agent memories keep their actions.
"""

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.urls import reverse

from brain.models import Memory, MemoryHistory

from .factories import fact

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(client):
    client.force_login(
        get_user_model().objects.create_superuser("root-cb", "root@example.com", "pw-for-tests-1")
    )
    return client


@pytest.fixture
def row(tenant):
    return fact(tenant, "Orders ship from Lyon within two days", confidence=0.8)


def agent_memory(tenant, text="Always greet the customer by name.", status="active"):
    return Memory.objects.create(
        tenant=tenant,
        scope_kind="agent",
        scope_id="1",
        type="agent_memory",
        text=text,
        status=status,
        strength="preference",
        category="preference",
    )


def unchanged(row) -> bool:
    stored = Memory.objects.all_tenants().filter(pk=row.pk).values("status", "text", "updated_at").first()
    return stored == {"status": row.status, "text": row.text, "updated_at": row.updated_at}


def test_the_admin_cannot_add_a_memory(superuser, tenant):
    url = reverse("admin:brain_memory_add")
    assert superuser.get(url).status_code == 403
    response = superuser.post(
        url, {"tenant": tenant.pk, "scope_kind": "tenant", "type": "business", "text": "Injected by hand"}
    )
    assert response.status_code == 403
    assert not Memory.objects.all_tenants().exists()


def test_a_client_brain_row_has_a_view_page_without_save_and_a_change_post_is_refused(superuser, row):
    url = reverse("admin:brain_memory_change", args=[row.pk])
    page = superuser.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="_save"' not in html and 'name="_continue"' not in html
    assert "deletelink" not in html  # no Delete link either
    response = superuser.post(url, {"status": "archived", "text": "Changed by hand", "_save": "Save"})
    assert response.status_code == 403
    assert unchanged(row)
    assert not MemoryHistory.objects.all_tenants().filter(memory_id=row.pk).exclude(action="added").exists()


def test_a_client_brain_row_cannot_be_deleted_and_stays(superuser, row):
    url = reverse("admin:brain_memory_delete", args=[row.pk])
    assert superuser.get(url).status_code == 403
    assert superuser.post(url, {"post": "yes"}).status_code == 403
    assert unchanged(row)
    assert not LogEntry.objects.filter(object_id=str(row.pk)).exists()


def test_the_bulk_delete_refuses_a_selection_with_a_client_brain_row(superuser, tenant, row):
    other = agent_memory(tenant)
    response = superuser.post(
        reverse("admin:brain_memory_changelist"),
        {"action": "delete_selected", "_selected_action": [row.pk, other.pk], "post": "yes"},
    )
    assert response.status_code == 403
    assert unchanged(row) and Memory.objects.all_tenants().filter(pk=other.pk).exists()


@pytest.mark.parametrize(("action", "start"), [("archive", "active"), ("activate", "archived")])
def test_status_actions_leave_client_brain_rows_as_they_are_and_say_so(superuser, tenant, action, start):
    row = fact(tenant, "Refunds take five working days", status=start)
    mine = agent_memory(tenant, status=start)
    response = superuser.post(
        reverse("admin:brain_memory_changelist"),
        {"action": action, "_selected_action": [row.pk, mine.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert (
        "1 Client Brain memory left unchanged: Client Brain mutation is suspended."
        in response.content.decode()
    )
    assert unchanged(row)
    assert not MemoryHistory.objects.all_tenants().filter(memory_id=row.pk).exists()
    # An agent memory in the same selection keeps its action.
    mine.refresh_from_db()
    assert mine.status == ("archived" if action == "archive" else "active")


def test_agent_memories_keep_their_change_page_actions_and_delete(superuser, tenant):
    mine = agent_memory(tenant)
    page = superuser.get(reverse("admin:brain_agentmemory_change", args=[mine.pk])).content.decode()
    # Every field is read-only (edits go through the Intelligence tab's services): no Save that saves nothing.
    assert 'name="_save"' not in page and "Always greet the customer by name." in page
    superuser.post(
        reverse("admin:brain_agentmemory_changelist"), {"action": "mark_stale", "_selected_action": [mine.pk]}
    )
    mine.refresh_from_db()
    assert mine.status == "stale"
    response = superuser.post(reverse("admin:brain_agentmemory_delete", args=[mine.pk]), {"post": "yes"})
    assert response.status_code == 302 and not Memory.objects.all_tenants().filter(pk=mine.pk).exists()
