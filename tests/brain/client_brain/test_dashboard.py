"""Insights → Analytics → Client Brain: the read-only dashboard (spec: "Viewing Stored Memory")."""

import math
import re

import pytest
from django.test import Client
from django.urls import reverse

from brain.models import Memory
from tests.conftest import make_member
from tickets.tenancy.models import Role

from ..factories import fact, memory, process, set_activity, superseded_by, voice

URL = "/insights/analytics/client-brain/"


@pytest.fixture
def operator(tenant):
    client = Client()
    client.force_login(make_member(tenant, Role.VIEWER))
    return client


def row_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'<tr data-id="(\d+)"', html)]


def bulk_facts(tenant, count, **fields):
    """`count` facts; fact i has recorded activity i % 7 and confidence 0.5 + (i % 50) / 100."""
    rows = Memory.objects.bulk_create(
        Memory(tenant=tenant, scope_kind="tenant", type="business", payload={"fact": f"Fact {i}"},
               text=f"Fact {i}", confidence=0.5 + (i % 50) / 100, **fields)
        for i in range(count)
    )  # fmt: skip
    set_activity(rows, [i % 7 for i in range(count)])
    return rows


def test_the_dashboard_is_at_insights_analytics_client_brain(operator):
    assert reverse("client-brain-dashboard") == URL
    response = operator.get(URL)
    assert response.status_code == 200
    assert "Insights → Analytics → Client Brain" in response.content.decode()


def test_initial_page_loads_up_to_100_tenant_wide_rows_by_activity_then_confidence(
    operator, tenant, other_tenant
):
    rows = bulk_facts(tenant, 130)
    fact(other_tenant, "Other tenant's fact", activity_count=99)
    html = operator.get(URL).content.decode()
    ids = row_ids(html)
    assert len(ids) == 100
    expected = [
        m.id for i, m in sorted(enumerate(rows), key=lambda r: (-(r[0] % 7), -r[1].confidence, r[1].id))
    ]
    assert ids == expected[:100]
    assert "Other tenant" not in html


def test_load_more_memories_fetches_the_next_bounded_offset_page(operator, tenant):
    bulk_facts(tenant, 230)
    first = operator.get(URL).content.decode()
    assert 'id="load-more" href="?offset=100"' in first and "Load more memories" in first
    second = operator.get(URL, {"offset": 100}).content.decode()
    third = operator.get(URL, {"offset": 200}).content.decode()
    assert len(row_ids(second)) == 100 and len(row_ids(third)) == 30
    assert not set(row_ids(first)) & set(row_ids(second))
    assert 'href="?offset=200"' in second and "Load more memories" not in third
    partial = operator.get(URL, {"offset": 100, "partial": "rows"}).content.decode()
    assert row_ids(partial) == row_ids(second) and 'data-next-offset="200"' in partial


def test_selecting_a_type_restarts_from_the_first_page(operator, tenant):
    bulk_facts(tenant, 150)
    tone = voice(tenant, formality="formal")
    html = operator.get(URL, {"offset": 100}).content.decode()
    for family in ("business", "voice", "issues", "process"):
        assert f'href="?type={family}"' in html  # filter links carry no offset
    voices = operator.get(URL, {"type": "voice"}).content.decode()
    assert row_ids(voices) == [tone.id]
    business = operator.get(URL, {"type": "business"}).content.decode()
    assert len(row_ids(business)) == 100 and 'href="?type=business&amp;offset=100"' in business


def test_aggregates_are_tenant_wide_even_when_the_row_list_is_filtered(operator, tenant):
    fact(tenant, "Valid one", confidence=0.6, activity_count=3)
    fact(tenant, "Valid two", confidence=1.0, activity_count=2)
    voice(tenant, formality="casual", confidence=0.8)
    process(tenant, "Damaged parcel", "Replace it", confidence=math.nan)
    memory(tenant, "faq", {"q": "legacy"}, text="Legacy", confidence=0.2)
    memory(tenant, "business", {"fact": "   "}, text="blank", confidence=-1.0)
    html = operator.get(URL, {"type": "voice"}).content.decode()

    def stat(name):
        return re.search(rf'data-testid="{name}">([^<]+)<', html).group(1)

    assert stat("stored-rows") == "6"
    assert (
        stat("typed-rows") == "4"
    )  # the faq row and the blank fact fail the guard; NaN still counts as typed
    assert stat("average-confidence") == "0.65"  # (0.6 + 1.0 + 0.8 + 0.2) / 4: NaN and -1 excluded
    assert stat("recorded-activity") == "5"
    counts = dict(re.findall(r'data-type="(\w+)">(?:<span[^>]*>)?\w[\w ]*(?:</span>)? (\d+)<', html))
    assert counts == {"business": "3", "voice": "1", "issues": "0", "process": "1", "legacy": "1"}


def test_invalid_confidence_rows_get_a_separate_warning(operator, tenant):
    fact(tenant, "Fine", confidence=0.7)
    assert "invalid-confidence-warning" not in operator.get(URL).content.decode()
    for value in (math.nan, math.inf, 1.5):
        fact(tenant, "Broken", confidence=value)
    html = operator.get(URL).content.decode()
    warning = re.search(r'data-testid="invalid-confidence-warning">\s*([^<]+)<', html).group(1)
    assert warning.startswith("3 stored rows have invalid confidence")
    assert "3 of them current, excluded from recall too" in warning
    assert "NaN" in html and "∞" in html and "1.5 (out of range)" in html


def test_unsupported_values_are_labelled_legacy_memory_format(operator, tenant):
    legacy_type = memory(tenant, "faq", {"q": "Old"}, text="Old FAQ")
    bad_shape = memory(tenant, "voice", {"formality": "posh"}, text="Posh voice")
    good = fact(tenant, "Fine fact")
    html = operator.get(URL).content.decode()
    rows = dict(re.findall(r'<tr data-id="(\d+)"[^>]*>(.*?)</tr>', html, re.S))
    assert "legacy memory format" in rows[str(legacy_type.id)]
    assert "legacy memory format" in rows[str(bad_shape.id)]
    assert "legacy memory format" not in rows[str(good.id)]


def test_the_dashboard_is_read_only(operator, tenant):
    fact(tenant, "Fact")
    html = operator.get(URL).content.decode()
    main = html.split("<main>")[1].split("</main>")[0]
    # The search box is the one form, and it only reads (GET).
    assert re.findall(r"<form[^>]*>", main) == [
        '<form method="get" class="toolbar" role="search" data-testid="search-form">'
    ]
    assert not re.search(r">\s*(Edit|Delete|Reset)\b", html)
    assert "switched off for now, here and in the API" in html
    assert operator.post(URL).status_code in (403, 405)


def test_empty_state(operator):
    html = operator.get(URL).content.decode()
    assert "No Client Brain memories yet" in html and row_ids(html) == []


def test_the_dashboard_shows_only_the_signed_in_tenants_rows(tenant, other_tenant):
    theirs = fact(other_tenant, "Globex secret")
    client = Client()
    client.force_login(make_member(tenant, Role.VIEWER, username="acme-viewer"))
    html = client.get(URL).content.decode()
    assert "Globex secret" not in html and theirs.id not in row_ids(html)
    assert client.get(URL, {"offset": 0, "partial": "rows"}).content.decode().count("<tr") == 0


def test_the_dashboard_needs_a_signed_in_member(client):
    response = client.get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_navigation_has_a_client_brain_entry(operator, tenant):
    from django.test import RequestFactory

    from brain.client_brain.navigation import home_cards, nav_item

    html = operator.get(URL).content.decode()
    assert f'<a href="{URL}" class="active">Insights · Client Brain</a>' in html
    request = RequestFactory().get(URL)
    request.tenant = None
    assert nav_item(request) is None
    request.tenant = tenant
    assert nav_item(request) == {"label": "Insights · Client Brain", "url": URL, "active": False}
    fact(tenant, "Counted")
    fact(tenant, "Not current", status="archived")
    assert home_cards(tenant) == [{"label": "Client Brain memories in use", "value": 1, "url": URL}]


def test_an_offset_past_the_end_says_so_and_links_to_the_first_page(operator, tenant):
    from ..factories import issue

    issue(tenant, "Login fails", "Reset password")
    html = operator.get(URL, {"type": "issues", "offset": 100}).content.decode()
    assert "No more memories past row 100." in html and 'href="?type=issues">Back to the first page' in html
    assert "No issues memories stored" not in html


def test_the_aggregates_follow_every_write_and_every_recorded_activity(tenant):
    """The row aggregates are kept per process under the tenant scope's memory state: any write to a Client
    Brain row (here a raw UPDATE, as a bulk tool would) shows on the next call; activity is summed afresh."""
    from django.db import connection

    from brain.activity import memories_record_activity
    from brain.client_brain.dashboard import client_brain_stats

    one = fact(tenant, "One", confidence=0.6)
    two = fact(tenant, "Two", confidence=0.8, activity_count=2)
    first = client_brain_stats(tenant_id=tenant.pk)
    assert (first.stored_rows, first.recorded_activity) == (2, 2)
    assert first.average_confidence == pytest.approx(0.7)
    assert client_brain_stats(tenant_id=tenant.pk) == first

    with connection.cursor() as cursor:
        cursor.execute("UPDATE brain_memory SET confidence = 1.0 WHERE id = %s", [one.pk])
    assert client_brain_stats(tenant_id=tenant.pk).average_confidence == pytest.approx(0.9)
    fact(tenant, "Three", confidence=0.5)
    assert client_brain_stats(tenant_id=tenant.pk).stored_rows == 3

    memories_record_activity(tenant_id=tenant.pk, memory_ids=[one.pk, two.pk])
    assert client_brain_stats(tenant_id=tenant.pk).recorded_activity == 4


def stat(html, name):
    return re.search(rf'data-testid="{name}">([^<]+)<', html).group(1)


def test_a_superseded_voice_row_is_not_shown_as_current_but_under_its_status(operator, tenant):
    """Issue 13, finding 6: a tenant showed two voice:formality rows, the superseded one without a status."""
    old = voice(tenant, formality="formal", tone="professional", key="voice:formality")
    new = superseded_by(old, {"formality": "casual", "tone": "friendly"})
    assert Memory.objects.for_tenant(tenant).get(pk=old.pk).status == "superseded"

    html = operator.get(URL).content.decode()
    assert row_ids(html) == [new.id]
    rows = dict(re.findall(r'<tr data-id="(\d+)" data-status="(\w+)">', html))
    assert rows == {str(new.id): "active"}
    assert re.search(r'data-testid="row-status"[^>]*>Active<', html)
    # The spec's figures count both stored rows (issue 28, item 6); the current split says one is in use.
    counts = dict(re.findall(r'data-type="(\w+)">(?:<span[^>]*>)?\w[\w ]*(?:</span>)? (\d+)<', html))
    current_counts = dict(
        re.findall(r'data-current-type="(\w+)">(?:<span[^>]*>)?\w[\w ]*(?:</span>)? (\d+)<', html)
    )
    assert counts["voice"] == "2" and current_counts["voice"] == "1"
    assert stat(html, "current-rows") == "1" and stat(html, "current-typed-rows") == "1"
    assert stat(html, "stored-rows") == "2" and stat(html, "typed-rows") == "2"
    split = re.search(r'data-testid="rows-by-status">(.*?)</span>', html).group(1)
    assert re.sub(r"<[^>]+>", "", split) == "Of which 1 current, 1 superseded, 0 archived."
    assert "Current rows by type" in html and "Stored rows by type" in html

    superseded = operator.get(URL, {"status": "superseded"}).content.decode()
    assert row_ids(superseded) == [old.id]
    row = re.search(rf'<tr data-id="{old.id}".*?</tr>', superseded, re.S).group(0)
    assert ">Superseded<" in row and f"#{new.id}" in row
    everything = operator.get(URL, {"status": "all", "type": "voice"}).content.decode()
    assert sorted(row_ids(everything)) == sorted([old.id, new.id])


def test_archived_rows_are_left_out_of_the_rows_and_of_the_current_split_unless_filtered(operator, tenant):
    from brain.api import memory_set_status

    kept = fact(tenant, "Kept fact", confidence=0.6, activity_count=2)
    gone = fact(tenant, "Archived fact", confidence=1.0, activity_count=5)
    memory_set_status(tenant_id=tenant.pk, memory_id=gone.pk, status="archived", actor="test")
    html = operator.get(URL).content.decode()
    assert row_ids(html) == [kept.id]
    assert stat(html, "current-rows") == "1" and stat(html, "stored-rows") == "2"
    assert stat(html, "current-average-confidence") == "0.60"
    assert stat(html, "current-recorded-activity") == "2"
    # The spec's figures count the archived row too.
    assert stat(html, "average-confidence") == "0.80" and stat(html, "recorded-activity") == "7"
    archived = operator.get(URL, {"status": "archived"}).content.decode()
    assert row_ids(archived) == [gone.id] and ">Archived<" in archived
    assert operator.get(URL, {"status": "superseded"}).content.decode().count("<tr data-id") == 0


def test_the_status_filter_links_keep_the_type_and_restart_from_the_first_page(operator, tenant):
    bulk_facts(tenant, 130, status="archived")
    html = operator.get(URL, {"status": "archived", "type": "business", "offset": 100}).content.decode()
    for status in ("superseded", "all"):
        assert f'href="?status={status}&amp;type=business"' in html
    assert 'href="?type=business"' in html  # current is the default: not in the link
    assert 'href="?status=archived&amp;type=voice"' in html
    first = operator.get(URL, {"status": "archived"}).content.decode()
    assert len(row_ids(first)) == 100 and 'href="?status=archived&amp;offset=100"' in first
    partial = operator.get(URL, {"status": "archived", "offset": 100, "partial": "rows"}).content.decode()
    assert len(row_ids(partial)) == 30
    empty = operator.get(URL).content.decode()
    assert row_ids(empty) == [] and "Superseded and archived rows are left out" in empty
    # An unknown status is the default, current.
    assert row_ids(operator.get(URL, {"status": "bogus"}).content.decode()) == []


def test_the_aggregates_count_stored_rows_as_the_spec_says_with_the_current_split_beside(operator, tenant):
    """Issue 28, item 6: client_brain.txt's aggregates (typed rows, all stored rows, average valid stored
    confidence, invalid-confidence rows, recorded activity, stored counts by type) count stored rows, superseded
    and archived ones included; the current rows' figures stand beside them, labelled as such."""
    fact(tenant, "Ships from Lyon", confidence=0.6, activity_count=3)
    fact(tenant, "Shipped from Paris", confidence=0.2, activity_count=5, status="archived")
    memory(tenant, "voice", {"formality": "formal"}, confidence=0.8, status="superseded")
    process(tenant, "Damaged parcel", "Replace it", confidence=math.nan, status="archived")
    memory(tenant, "faq", {"q": "legacy"}, text="Legacy", confidence=0.2)
    html = operator.get(URL, {"type": "voice"}).content.decode()

    # The spec's figures: every stored row of the tenant, whatever its status.
    assert stat(html, "stored-rows") == "5"
    assert stat(html, "typed-rows") == "4"  # the faq row fails the guard; NaN confidence is still typed
    assert stat(html, "average-confidence") == "0.45"  # (0.6 + 0.2 + 0.8 + 0.2) / 4: NaN excluded
    assert stat(html, "invalid-confidence-rows") == "1"
    assert stat(html, "recorded-activity") == "8"
    by_type = dict(re.findall(r'data-type="(\w+)">(?:<span[^>]*>)?\w[\w ]*(?:</span>)? (\d+)<', html))
    assert by_type == {"business": "2", "voice": "1", "issues": "0", "process": "1", "legacy": "1"}
    warning = re.search(r'data-testid="invalid-confidence-warning">\s*([^<]+)<', html).group(1)
    assert warning.startswith("1 stored row has invalid confidence")

    # The current rows (neither superseded nor archived) beside them.
    assert stat(html, "current-rows") == "2"
    assert stat(html, "current-typed-rows") == "1"
    assert stat(html, "current-average-confidence") == "0.40"
    assert stat(html, "current-invalid-confidence-rows") == "0"
    assert stat(html, "current-recorded-activity") == "3"
    current_by_type = dict(
        re.findall(r'data-current-type="(\w+)">(?:<span[^>]*>)?\w[\w ]*(?:</span>)? (\d+)<', html)
    )
    assert current_by_type == {"business": "1", "voice": "0", "issues": "0", "process": "0", "legacy": "1"}
    split = re.search(r'data-testid="rows-by-status">(.*?)</span>', html).group(1)
    assert re.sub(r"<[^>]+>", "", split) == "Of which 2 current, 1 superseded, 2 archived."
