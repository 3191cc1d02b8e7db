"""Issue 28, item 8: the Django admin's header and its Memories changelists fit a 1280 px screen, with the
demo's rows and more of their kinds (Client Brain rows, agent memories with scopes), in a real headless
Chromium. Screenshots in var/screenshots/admin-1280/ (and at 390 px for the record: the admin is a desktop tool,
but its header does not break there either)."""

from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from brain.models import Memory
from tests.browser import chromium_page
from tickets.tenancy.models import Tenant

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def demo_rows():
    """The demo (`seed_demo`), and more rows of its kinds and lengths in its tenants: a changelist page full."""
    call_command("seed_demo", stdout=StringIO())
    rows = []
    for tenant in Tenant.objects.all():
        for i in range(8):
            rows.append(
                Memory(tenant=tenant, scope_kind="tenant", type="process", key=f"process:damaged-parcel-{i}",
                       payload={"trigger": "A parcel arrives damaged", "action": "Send a replacement"},
                       text="When a parcel arrives damaged: send a replacement the same day and ask for a photo "
                            "of the box for the carrier's claim form.", confidence=0.82, surface="client_brain")
            )  # fmt: skip
            rows.append(
                Memory(tenant=tenant, scope_kind="agent", scope_id="12", type="agent_memory",
                       category="instruction", strength="hard_rule", status="active", source="manual",
                       provider="meta_ads", campaign_ids=["spring-sale-2026-emea", "summer-launch-2026-na"],
                       text="Never raise a campaign's daily budget by more than 20 percent at once; ask the "
                            "account manager before any change above that.", surface="operator")
            )  # fmt: skip
    Memory.objects.bulk_create(rows)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_admin_header_and_memories_changelists_fit_the_screen(live_server, width):
    shots = SHOTS / f"admin-{width}"
    shots.mkdir(parents=True, exist_ok=True)
    demo_rows()
    get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-tests-1")
    with chromium_page(width=width, height=900) as page:
        page.goto(f"{live_server.url}/admin/login/")
        page.fill("#id_username", "root")
        page.fill("#id_password", "pw-for-tests-1")
        page.click("input[type=submit]")
        page.wait_for_selector("#site-name")
        for name, url in (
            ("01-index", "/admin/"),
            ("02-memories", "/admin/brain/memory/"),
            ("03-agent-memories", "/admin/brain/agentmemory/"),
        ):
            page.goto(live_server.url + url)
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
            page.screenshot(path=str(shots / f"{name}-top.png"))
            header = page.evaluate("document.getElementById('header').scrollWidth")
            assert header <= width + 1, f"{url}: the header is {header}px wide"
            if width == 1280:
                document = page.evaluate("document.documentElement.scrollWidth")
                assert document <= width + 1, f"{url}: the page is {document}px wide"
                assert page.evaluate("document.getElementById('header').offsetHeight") < 70  # one line
                table = page.evaluate(
                    "(() => { const t = document.getElementById('result_list');"
                    " return t ? [t.scrollWidth, t.closest('.results').clientWidth] : null; })()"
                )
                if table:  # the changelist's columns all show, without a scroller of their own
                    assert table[0] <= table[1] + 1, f"{url}: the table is {table[0]}px in {table[1]}px"
