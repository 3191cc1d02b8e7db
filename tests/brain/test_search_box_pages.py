"""Issue 28, item 4, on the pages: the Intelligence tab's and the Client Brain page's search boxes find
"parcle" and "waranty", best match first, keep the page's other filters and the query in the box, say when
nothing matches, and show one tenant's rows only."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.brain.factories import fact, issue
from tests.conftest import make_member
from tests.intelligence.factories import add_memory, make_agent
from tickets.tenancy.models import Role

pytestmark = pytest.mark.django_db
DASHBOARD = "/insights/analytics/client-brain/"


def signed_in(tenant, role=Role.OPERATOR, username="olivia") -> Client:
    client = Client()
    client.force_login(make_member(tenant, role, username=username))
    return client


def search_value(html: str) -> str:
    box = re.search(r'<input type="search"[^>]*name="q"[^>]*>', html).group(0)
    return re.search(r'value="([^"]*)"', box).group(1)


@pytest.fixture
def agent(tenant):
    return make_agent(tenant, name="Support assistant")


def test_the_intelligence_tab_finds_misspelt_words_and_keeps_the_query(tenant, agent):
    parcel = add_memory(agent, "Tickets about late parcels resolve once a tracking link is shared.")
    warranty = add_memory(agent, "Tent poles carry a two-year warranty; send a replacement pole.")
    client = signed_in(tenant)
    url = reverse("intelligence-tab", args=[agent.pk])
    html = client.get(url, {"q": "parcle"}).content.decode()
    assert f'data-testid="memory-row-{parcel}"' in html and f"memory-row-{warranty}" not in html
    assert "1 memory matching “parcle”, best match first" in html
    assert search_value(html) == "parcle"
    html = client.get(url, {"q": "waranty"}).content.decode()
    assert f'data-testid="memory-row-{warranty}"' in html and f"memory-row-{parcel}" not in html


def test_the_intelligence_tab_applies_its_filters_to_a_search(tenant, agent):
    active = add_memory(agent, "Tickets about late parcels resolve once a tracking link is shared.")
    draft = add_memory(agent, "A parcel lost in transit is refunded after ten days.", status="draft")
    client = signed_in(tenant)
    url = reverse("intelligence-tab", args=[agent.pk])
    html = client.get(url, {"q": "parcle", "status": "draft"}).content.decode()
    assert f"memory-row-{draft}" in html and f"memory-row-{active}" not in html
    assert "1 memory matching “parcle” with these filters" in html
    assert 'value="draft" selected' in html  # the filter stays chosen
    html = client.get(url, {"q": "parcle", "status": "stale"}).content.decode()
    assert "No memory matches “parcle” with these filters, not even by a similar word or meaning" in html
    assert search_value(html) == "parcle"


def test_the_intelligence_tab_pages_a_search_with_its_query(tenant, agent):
    for n in range(23):
        add_memory(agent, f"Parcel rule {n}: keep tracking page {n} current for region code R{n}.")
    client = signed_in(tenant)
    url = reverse("intelligence-tab", args=[agent.pk])
    first = client.get(url, {"q": "parcle"}).content.decode()
    assert first.count('data-testid="memory-row-') == 20 and "Page 1 of 2 · 23 memories" in first
    assert "q=parcle&amp;page=2" in first
    second = client.get(url, {"q": "parcle", "page": 2}).content.decode()
    assert second.count('data-testid="memory-row-') == 3


def test_the_intelligence_tab_search_shows_one_tenants_memories(tenant, other_tenant, agent):
    mine = add_memory(agent, "Tickets about late parcels resolve once a tracking link is shared.")
    theirs = add_memory(make_agent(other_tenant, name="Support assistant"), "Parcels are tracked by Globex.")
    html = (
        signed_in(tenant).get(reverse("intelligence-tab", args=[agent.pk]), {"q": "parcle"}).content.decode()
    )
    assert f"memory-row-{mine}" in html and f"memory-row-{theirs}" not in html


@pytest.fixture
def rows(tenant):
    return {
        "warranty": fact(tenant, "We offer a two-year warranty on all tent poles and frames."),
        "parcel": issue(
            tenant, "Parcel stuck at the courier's depot", "Escalate the parcel with the courier"
        ),
        "archived": fact(tenant, "Warranty claims went through the old portal.", status="archived"),
    }


def row_ids(html: str) -> set[int]:
    return {int(i) for i in re.findall(r'<tr data-id="(\d+)"', html)}


def test_the_client_brain_page_finds_misspelt_words_and_keeps_the_query(tenant, rows):
    client = signed_in(tenant)
    html = client.get(DASHBOARD, {"q": "waranty"}).content.decode()
    assert row_ids(html) == {rows["warranty"].id}
    assert "1 row matching “waranty” among current rows, best match first" in html
    assert search_value(html) == "waranty"
    assert row_ids(client.get(DASHBOARD, {"q": "parcle"}).content.decode()) == {rows["parcel"].id}


def test_the_client_brain_page_applies_its_filters_to_a_search(tenant, rows):
    client = signed_in(tenant)
    html = client.get(DASHBOARD, {"q": "waranty", "status": "archived"}).content.decode()
    assert row_ids(html) == {rows["archived"].id}
    assert '<input type="hidden" name="status" value="archived">' in html
    html = client.get(DASHBOARD, {"q": "waranty", "status": "all", "type": "issues"}).content.decode()
    assert row_ids(html) == set()
    assert "No row matches “waranty” among issues rows, not even by a similar word or meaning" in html
    assert '<input type="hidden" name="type" value="issues">' in html and search_value(html) == "waranty"
    assert "?q=waranty&amp;status=all" in html  # "search all rows"
    # Choosing another filter keeps the search.
    assert 'href="?q=waranty&amp;type=business"' in html.replace("status=all&amp;", "")
    html = client.get(DASHBOARD, {"q": "waranty", "status": "all", "type": "business"}).content.decode()
    assert row_ids(html) == {rows["warranty"].id, rows["archived"].id}


def test_the_client_brain_page_pages_a_search_with_its_query(tenant, settings):
    settings.BRAIN_CLIENT_BRAIN_PAGE_SIZE = 2
    for n in range(3):
        fact(tenant, f"Warranty rule {n}: poles of model {n} are covered for {n + 1} years.")
    client = signed_in(tenant)
    html = client.get(DASHBOARD, {"q": "waranty"}).content.decode()
    assert len(row_ids(html)) == 2 and "3 rows matching “waranty”" in html
    assert 'id="load-more" href="?q=waranty&amp;offset=2"' in html and "Load more matches" in html
    more = client.get(DASHBOARD, {"q": "waranty", "offset": 2, "partial": "rows"}).content.decode()
    assert len(row_ids(more)) == 1 and not row_ids(more) & row_ids(html)


def test_the_client_brain_page_search_shows_one_tenants_rows(tenant, other_tenant, rows):
    theirs = fact(other_tenant, "Globex gives a one-year warranty.")
    html = signed_in(tenant).get(DASHBOARD, {"q": "waranty"}).content.decode()
    assert rows["warranty"].id in row_ids(html) and theirs.id not in row_ids(html)
