"""The dashboard's in-place "Load more memories" in a real headless Chromium (no mocks)."""

import re

import pytest
from django.conf import settings
from django.test import Client

from brain.models import Memory, MemoryActivity
from tests.browser import chromium_page
from tests.conftest import make_member
from tickets.tenancy.models import Role

from ..factories import set_activity

pytestmark = pytest.mark.browser


def viewer_cookies(live_server, tenant) -> list[dict]:
    """The session cookie of a viewer of `tenant`, for a browser on the live server."""
    client = Client()
    client.force_login(make_member(tenant, Role.VIEWER))
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    return [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}]


@pytest.fixture
def browser_page(live_server, tenant):
    with chromium_page(width=1300, height=900, cookies=viewer_cookies(live_server, tenant)) as page:
        yield page


def shown_ids(page) -> list[int]:
    return [
        int(i) for i in page.eval_on_selector_all("#rows tr[data-id]", "rows => rows.map(r => r.dataset.id)")
    ]


def test_load_more_appends_in_place_and_removes_duplicate_row_ids(browser_page, live_server, tenant):
    rows = Memory.objects.bulk_create(
        Memory(tenant=tenant, scope_kind="tenant", type="business", payload={"fact": f"Fact {i}"},
               text=f"Fact {i}", confidence=0.9)
        for i in range(150)
    )  # fmt: skip
    set_activity(rows, [1000 - i for i in range(150)])
    page = browser_page
    page.goto(f"{live_server.url}/insights/analytics/client-brain/")
    assert shown_ids(page) == [r.id for r in rows[:100]]
    # Concurrent activity shifts the offset window: the first row drops to the second page.
    MemoryActivity.objects.all_tenants().filter(memory_id=rows[0].pk).update(count=0)
    page.click("#load-more")
    page.wait_for_function("document.querySelectorAll('#rows tr[data-id]').length > 100")
    ids = shown_ids(page)
    assert len(ids) == len(set(ids)) == 149  # rows[0] came back on page 2 and was not appended twice
    assert ids[:100] == [r.id for r in rows[:100]]
    assert page.locator("#load-more").count() == 0  # no further page
    assert re.search(r"/insights/analytics/client-brain/$", page.url)  # in place, no navigation


def test_the_status_filter_labels_rows_and_load_more_keeps_it(browser_page, live_server, tenant, tmp_path):
    from ..factories import fact, superseded_by, voice

    old = voice(tenant, formality="formal", tone="professional", key="voice:formality")
    new = superseded_by(old, {"formality": "casual", "tone": "friendly"}).pk
    fact(tenant, "Orders ship from Lyon within two days", activity_count=3)
    archived = Memory.objects.bulk_create(
        Memory(tenant=tenant, scope_kind="tenant", type="business", payload={"fact": f"Old fact {i}"},
               text=f"Old fact {i}", confidence=0.9, status="archived")
        for i in range(120)
    )  # fmt: skip
    page = browser_page
    page.goto(f"{live_server.url}/insights/analytics/client-brain/")
    assert new in shown_ids(page) and old.pk not in shown_ids(page) and len(shown_ids(page)) == 2
    assert page.locator('[data-testid="current-rows"]').inner_text() == "2"
    assert (
        page.locator('[data-testid="rows-by-status"]')
        .inner_text()
        .endswith("2 current, 1 superseded, 120 archived.")
    )
    page.screenshot(path=str(tmp_path / "client-brain-current.png"), full_page=True)

    page.click('[data-testid="status-filter"] >> text=Superseded')
    page.wait_for_url(re.compile(r"status=superseded"))
    assert shown_ids(page) == [old.pk]
    assert page.locator(f'tr[data-id="{old.pk}"] [data-testid="row-status"]').inner_text() == "Superseded"
    page.screenshot(path=str(tmp_path / "client-brain-superseded.png"), full_page=True)

    page.click('[data-testid="status-filter"] >> text=Archived')
    page.wait_for_url(re.compile(r"status=archived"))
    assert len(shown_ids(page)) == 100
    page.click("#load-more")
    page.wait_for_function("document.querySelectorAll('#rows tr[data-id]').length > 100")
    assert sorted(shown_ids(page)) == sorted(r.pk for r in archived)
    print("screenshots:", tmp_path)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_aggregates_count_stored_rows_with_the_current_split_beside(live_server, tenant, width):
    """Issue 28, item 6, as an operator sees it at 1280 and 390 px: the spec's aggregates over every stored row,
    each with its current rows' figure labelled beside it, and nothing wider than the screen. Screenshots in
    var/screenshots/client-brain-<width>/."""
    from pathlib import Path

    from ..factories import fact, memory, process, voice

    shots = Path(__file__).resolve().parents[3] / "var" / "screenshots" / f"client-brain-{width}"
    shots.mkdir(parents=True, exist_ok=True)
    fact(tenant, "Orders ship from Lyon within two days", confidence=0.9, activity_count=4)
    fact(tenant, "Orders shipped from Paris", confidence=0.5, activity_count=2, status="archived")
    voice(tenant, formality="casual", tone="friendly", confidence=0.8)
    memory(tenant, "voice", {"formality": "formal"}, confidence=0.7, status="superseded")
    process(
        tenant, "A parcel arrives damaged", "Send a replacement", confidence=float("nan"), status="archived"
    )
    with chromium_page(width=width, height=900, cookies=viewer_cookies(live_server, tenant)) as page:
        page.goto(f"{live_server.url}/insights/analytics/client-brain/")
        page.wait_for_selector("[data-testid=aggregates]")
        page.screenshot(path=str(shots / "01-dashboard.png"), full_page=True)
        page.locator("[data-testid=aggregates]").screenshot(path=str(shots / "02-aggregates.png"))

        def text(testid):
            return page.inner_text(f"[data-testid={testid}]").strip()

        assert (text("stored-rows"), text("typed-rows"), text("invalid-confidence-rows")) == ("5", "5", "1")
        assert (text("average-confidence"), text("recorded-activity")) == (
            "0.73",
            "6",
        )  # (0.9 + 0.5 + 0.8 + 0.7) / 4
        assert (text("current-rows"), text("current-typed-rows")) == ("2", "2")
        assert (text("current-average-confidence"), text("current-recorded-activity")) == ("0.85", "4")
        assert text("current-invalid-confidence-rows") == "0"
        assert "Current rows by type" in text("current-by-type")
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1


@pytest.mark.parametrize("width", [1280, 390])
def test_the_rows_waiting_for_evidence_say_why_each_waits(settings, live_server, tenant, width):
    """Issue 26, section 2, as an operator sees it: a grant the vocabulary names, one only the grant model reads,
    and one in a language the grant check does not read, each a draft with its reason and its count.
    Screenshots in var/screenshots/client-brain-waiting-<width>/."""
    from pathlib import Path

    from .test_held_policies import PLAIN_GRANT, UNLISTED_GRANTS, UNREAD_GRANT, provider_learns

    shots = Path(__file__).resolve().parents[3] / "var" / "screenshots" / f"client-brain-waiting-{width}"
    shots.mkdir(parents=True, exist_ok=True)
    provider_learns(settings, tenant, [PLAIN_GRANT, UNLISTED_GRANTS[2], UNREAD_GRANT])
    with chromium_page(width=width, height=900, cookies=viewer_cookies(live_server, tenant)) as page:
        page.goto(f"{live_server.url}/insights/analytics/client-brain/")
        section = page.locator("[data-testid=waiting-for-evidence]")
        section.wait_for()
        page.screenshot(path=str(shots / "01-dashboard.png"), full_page=True)
        section.screenshot(path=str(shots / "02-waiting.png"))
        whys = dict(
            zip(
                page.eval_on_selector_all(
                    "[data-testid=waiting-row] td:nth-child(3)", "c => c.map(e => e.innerText)"
                ),
                page.eval_on_selector_all("[data-testid=waiting-why]", "c => c.map(e => e.innerText)"),
                strict=True,
            )
        )
        assert whys[PLAIN_GRANT] == "gives money: Refunds (unlimited)"
        assert whys[UNLISTED_GRANTS[2]].startswith("reads as a grant of money, credit, access or data")
        assert whys[UNREAD_GRANT] == "written in Turkish, which the grant check does not read"
        counts = page.eval_on_selector_all("[data-testid=waiting-count]", "c => c.map(e => e.innerText)")
        assert counts == ["1 of 3 customers (1 ticket)"] * 3
        assert page.evaluate("document.documentElement.scrollWidth") <= width
