"""A page in Debian's headless Chromium, driven by Playwright's sync API, for the operator UI's browser tests."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager

import pytest
from django.db import connections

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def chromium_page(
    *,
    width: int = 1300,
    height: int = 1000,
    cookies: list[dict] | None = None,
    java_script_enabled: bool = True,
):
    """A fresh browser's page (`java_script_enabled=False`: as a browser with scripts off). Skips when Chromium
    is missing, unless BRAIN_REQUIRE_BROWSER=1 (CI) fails."""
    if not os.path.exists(CHROMIUM):
        message = f"no Chromium at {CHROMIUM}: install Debian's chromium (scripts/ensure_browser.sh) to run this test"
        if os.environ.get("BRAIN_REQUIRE_BROWSER") == "1":
            pytest.fail(message + " (BRAIN_REQUIRE_BROWSER=1 forbids skipping)")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the test's ORM calls stay sequential.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            context = browser.new_context(
                viewport={"width": width, "height": height}, java_script_enabled=java_script_enabled
            )
            if cookies:
                context.add_cookies(cookies)
            page = context.new_page()
            page.set_default_timeout(15_000)
            yield page
            browser.close()
            # The test's ORM calls ran under Playwright's greenlet, whose context holds a database
            # connection of its own: closed here, or it outlives the test and the test database cannot be
            # dropped at the end of the session ("being accessed by other users").
            connections.close_all()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
