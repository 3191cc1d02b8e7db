"""Issue 17, first run and staff: the API key page's POST/redirect/GET with the secret once and a ready curl,
the last admin cannot demote themselves, the admin's name and readable read-only pages, offline API docs,
the demo seed's staff account, and `make help`."""

import re
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from brain.models import Memory
from tests.conftest import make_member
from tickets.tenancy.models import ApiKey, Role

from ..intelligence.factories import make_agent

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]


def test_creating_a_key_redirects_and_a_reload_creates_no_second_key(tenant):
    client = Client()
    client.force_login(make_member(tenant, Role.ADMIN))
    agent = make_agent(tenant, name="Support agent")
    response = client.post(reverse("tenant-api-keys"), {"name": "Support bot", "role": "operator"})
    assert response.status_code == 302 and response.url == reverse("tenant-api-keys")
    page = client.get(response.url).content.decode()
    secret = re.search(r'data-testid="new-key" id="new-key">([^<]+)<', page).group(1)
    assert secret.startswith("brn_") and 'data-copy="new-key"' in page
    curl = re.search(r'data-testid="curl" id="new-key-curl">([^<]+)</pre>', page).group(1)
    assert f"/api/v1/agents/{agent.pk}/context" in curl and f"Bearer {secret}" in curl
    # A reload neither creates a key nor shows the secret again.
    again = client.get(reverse("tenant-api-keys")).content.decode()
    assert secret not in again
    assert ApiKey.objects.for_tenant(tenant).count() == 1


def test_the_last_admin_cannot_demote_themselves(tenant):
    admin_user = make_member(tenant, Role.ADMIN, username="only-admin")
    membership = admin_user.memberships.get()
    api = APIClient()
    api.force_login(admin_user)
    response = api.patch(
        reverse("member-detail", kwargs={"pk": membership.pk}), {"role": "viewer"}, format="json"
    )
    assert response.status_code == 409 and response.json()["error"]["code"] == "last_admin"
    client = Client()
    client.force_login(admin_user)
    page = client.post(
        reverse("tenant-member-change", args=[membership.pk]), {"role": "operator"}, follow=True
    )
    assert "at least one admin" in page.content.decode()
    membership.refresh_from_db()
    assert membership.role == Role.ADMIN
    # With a second admin, the demotion goes through.
    make_member(tenant, Role.ADMIN, username="second-admin")
    response = api.patch(
        reverse("member-detail", kwargs={"pk": membership.pk}), {"role": "viewer"}, format="json"
    )
    assert response.status_code == 200
    membership.refresh_from_db()
    assert membership.role == Role.VIEWER


def test_a_viewer_is_not_offered_the_add_memory_form(tenant):
    client = Client()
    client.force_login(make_member(tenant, Role.VIEWER))
    agent = make_agent(tenant)
    response = client.get(reverse("intelligence-memory-add", args=[agent.pk]))
    assert response.status_code == 403
    assert "operator role" in response.content.decode() and "<textarea" not in response.content.decode()


@pytest.fixture
def staff_client(db):
    user = get_user_model().objects.create_superuser("root", password="pw-for-tests-1")
    client = Client()
    client.force_login(user)
    return client


def test_admin_is_named_and_read_only_pages_offer_no_save_and_json_reads_as_tables(staff_client, tenant):
    index = staff_client.get("/admin/").content.decode()
    assert "The Brain administration" in index
    assert ">API keys<" in index and "Api keys" not in index
    memory = Memory.objects.create(
        tenant=tenant, scope_kind="agent", scope_id="1", type="agent_memory", text="Say hello",
        provenance=[{"kind": "ticket", "external_id": "T-5", "memory_id": 0}], payload={"fact": "hello"},
    )  # fmt: skip
    page = staff_client.get(reverse("admin:brain_memory_change", args=[memory.pk])).content.decode()
    assert 'name="_save"' not in page and 'name="_continue"' not in page
    assert "search_vector" not in page and "Search vector" not in page
    assert "<table" in page.split("Learned from")[1] and "<td>T-5</td>" in page


def test_trace_admin_links_memory_ids(staff_client, tenant):
    from intelligence.models import ContextTrace

    agent = make_agent(tenant)
    trace = ContextTrace.objects.create(
        tenant=tenant, agent=agent, injected_memory_ids=[41], omitted={"not_relevant": [42]},
        sections={"hard_rule": {"memory_ids": [41], "chars": 10, "budget": 1500, "truncated": False}},
    )  # fmt: skip
    page = staff_client.get(
        reverse("admin:intelligence_contexttrace_change", args=[trace.pk])
    ).content.decode()
    for memory_id in (41, 42):
        assert (
            f'href="{reverse("admin:brain_memory_change", args=[memory_id])}">[mem:{memory_id}]</a>' in page
        )


def test_staff_of_no_tenant_land_on_the_admin_after_signing_in(db):
    """Issue 28, item 7: not on a page served as 403; the admin says why they are there."""
    get_user_model().objects.create_superuser("root", password="pw-for-tests-1")
    client = Client()
    response = client.post(reverse("login"), {"username": "root", "password": "pw-for-tests-1"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("admin:index") and response.status_code == 200
    page = response.content.decode()
    assert "The Brain administration" in page and "belongs to no tenant" in page


def test_redoc_is_served_without_the_internet(client):
    html = client.get(reverse("api-redoc")).content.decode()
    assert "googleapis" not in html and "gstatic" not in html and "cdn" not in html.lower()
    assert "drf_spectacular_sidecar/redoc" in html


def test_seed_demo_prints_a_staff_account_and_how_to_print_a_key_again(db):
    out = StringIO()
    call_command("seed_demo", stdout=out)
    text = out.getvalue()
    assert re.search(r"Staff \(/admin/\)\s+superuser user staff\s+password staff-demo-pass", text)
    assert "make demo-key" in text
    staff = get_user_model().objects.get(username="staff")
    assert staff.is_staff and staff.is_superuser and staff.check_password("staff-demo-pass")


def test_make_help_lists_targets_and_every_phony_target_has_a_rule():
    makefile = (REPO / "Makefile").read_text()
    phony = re.search(r"^\.PHONY:(.*)$", makefile, re.M).group(1).split()
    rules = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.M))
    assert set(phony) <= rules, set(phony) - rules
    out = subprocess.run(["make", "-s", "help"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for target in ("run", "test", "reset-demo", "demo-key", "stop"):
        assert re.search(rf"^\s+{target}\s+\S", out, re.M), target
    assert "make reset-demo" in (REPO / "README.md").read_text()
