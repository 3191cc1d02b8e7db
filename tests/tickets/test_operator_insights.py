"""Issue 17, the Client Brain dashboard and home as operators read them: server-side SVG charts, each row's
tickets, a search box, the Learning page, the overview's week and setup checklist, the empty Client Brain's
directions, and the page for a signed-in user with no tenant."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from brain.models import Memory
from tests.conftest import make_member
from tickets import services
from tickets.models import LearningAttempt
from tickets.tenancy.models import Role
from tickets.tenancy.services import api_key_create

from ..intelligence.factories import add_memory, make_agent
from .learning_helpers import ticket_with_evidence

pytestmark = pytest.mark.django_db
DASHBOARD = "/insights/analytics/client-brain/"


def signed_in(tenant, role=Role.OPERATOR, username="olivia") -> Client:
    client = Client()
    client.force_login(make_member(tenant, role, username=username))
    return client


def learn(tenant, external_id, django_capture_on_commit_callbacks):
    ticket = ticket_with_evidence(tenant, external_id)
    with django_capture_on_commit_callbacks(execute=True):
        services.ticket_transition(ticket=ticket, status="solved")
    return LearningAttempt.objects.for_tenant(tenant).get(ticket_external_id=external_id)


def test_learned_rows_link_to_their_tickets_and_the_learning_page_says_what_each_taught(
    tenant, django_capture_on_commit_callbacks
):
    attempt = learn(tenant, "T-771", django_capture_on_commit_callbacks)
    assert attempt.added > 0
    client = signed_in(tenant)
    html = client.get(DASHBOARD).content.decode()
    learned = Memory.objects.for_tenant(tenant).filter(scope_kind="tenant").first()
    row = html.split(f'<tr data-id="{learned.id}"')[1].split("</tr>")[0]
    assert '<a class="mono" href="/insights/learning/?ticket=T-771">T-771</a>' in row
    page = client.get("/insights/learning/?ticket=T-771").content.decode()
    assert f'data-testid="attempt-{attempt.pk}"' in page and "new memory" in page
    assert page.count('data-testid="attempt-') == 1


def test_dashboard_charts_are_server_side_svg(tenant, django_capture_on_commit_callbacks):
    learn(tenant, "T-1", django_capture_on_commit_callbacks)
    Memory.objects.create(tenant=tenant, scope_kind="tenant", type="business", payload={"fact": "x"},
                          text="Legacy NaN", confidence=float("nan"))  # fmt: skip
    html = signed_in(tenant).get(DASHBOARD).content.decode()
    for testid in ("chart-by-type", "chart-confidence", "chart-learned"):
        figure = html.split(f'data-testid="{testid}"')[1].split("</figure>")[0]
        assert "<svg" in figure and "<rect" in figure, testid
    confidence = html.split('data-testid="chart-confidence"')[1].split("</figure>")[0]
    assert "<title>invalid: 1 row</title>" in confidence
    learned = html.split('data-testid="chart-learned"')[1].split("</figure>")[0]
    assert re.search(r"<title>\d\d \w+: \d+ added</title>", learned)
    assert "<script" not in html.split('data-testid="chart-by-type"')[1].split("</figure>")[0]
    assert "four-family" not in html and "shape guard" not in html


def test_dashboard_search_box_finds_rows_by_key_or_value(tenant, other_tenant):
    for t, text in (
        (tenant, "Ships to Norway"),
        (tenant, "Open on Sundays"),
        (other_tenant, "Ships to Peru"),
    ):
        Memory.objects.create(
            tenant=t, scope_kind="tenant", type="business", payload={"fact": text}, text=text
        )
    html = signed_in(tenant).get(DASHBOARD, {"q": "ships"}).content.decode()
    assert "Ships to Norway" in html and "Open on Sundays" not in html and "Peru" not in html
    assert "1 row matching “ships”" in html
    html = signed_in(tenant, username="o2").get(DASHBOARD, {"q": "nothing-like-this"}).content.decode()
    assert "No row matches" in html


def test_empty_client_brain_says_how_to_connect_a_helpdesk(tenant):
    html = signed_in(tenant, Role.ADMIN).get(DASHBOARD).content.decode()
    assert 'data-testid="connect-helpdesk"' in html and "POST /api/v1/tickets" in html
    assert reverse("tenant-api-keys") in html


def test_home_checklist_for_an_empty_tenant_and_this_weeks_changes(
    tenant, django_capture_on_commit_callbacks
):
    client = signed_in(tenant, Role.ADMIN)
    html = client.get("/").content.decode()
    steps = re.findall(r'data-testid="step-\d" data-done="(\w+)"', html)
    assert steps == ["no", "no", "no", "no"]
    assert "Create an agent" in html and "Create an API key" in html and "first resolved ticket" in html
    assert "Nothing changed in the last 7 days" in html

    agent = make_agent(tenant)
    add_memory(agent, "Never promise a refund before the order is checked.")
    api_key_create(tenant=tenant, name="agent")
    learn(tenant, "T-9", django_capture_on_commit_callbacks)
    html = client.get("/").content.decode()
    assert 'data-testid="setup-checklist"' not in html  # every step done: the checklist steps aside
    week = html.split('data-testid="week-changes"')[1].split("</div>")[0]
    assert "Agent memories: 1 added" in week and "Learning read 1 ticket" in week


def test_a_user_without_a_tenant_gets_a_page_that_says_so_and_staff_the_admin(db):
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.create_user("no-tenant", password="x"))
    response = client.get("/")
    assert response.status_code == 403
    html = response.content.decode()
    assert "You are not in a tenant yet" in html and reverse("invitations") in html
    # Staff work in the admin: the home page sends them there (issue 28, item 7), not to a 403.
    client.force_login(get_user_model().objects.create_user("root-like", password="x", is_staff=True))
    response = client.get("/")
    assert response.status_code == 302 and response["Location"] == reverse("admin:index")


def test_error_pages_are_in_the_products_layout(tenant):
    client = signed_in(tenant, Role.VIEWER)
    missing = client.get("/agents/999999/")
    assert missing.status_code == 404 and 'data-testid="error-404"' in missing.content.decode()
    assert 'class="brand"' in missing.content.decode()
    denied = client.get(reverse("tenant-api-keys"))
    assert denied.status_code == 403 and 'data-testid="error-403"' in denied.content.decode()
