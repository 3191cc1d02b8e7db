"""Issue 28, item 7: under `make run`'s settings (config.settings.dev, DEBUG on) a 4xx is logged once, not once by
Django's own console handler and again by the root logger's."""

import os
import subprocess
import sys

from django.db import connection

from tests.conftest import REPO

REQUESTS = """
import django
django.setup()
from django.test import Client
client = Client(HTTP_HOST="127.0.0.1")
assert client.get("/no-such-page").status_code == 404
assert client.get("/api/v1/tenant", HTTP_AUTHORIZATION="Bearer not-a-key").status_code == 401
"""


def test_each_4xx_is_logged_once_under_the_development_settings(db):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        "DJANGO_DEBUG": "1",
        "BRAIN_DB_NAME": connection.settings_dict["NAME"],
    }
    result = subprocess.run(
        [sys.executable, "-c", REQUESTS], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines.count("Not Found: /no-such-page") == 1, result.stderr
    assert lines.count("Unauthorized: /api/v1/tenant") == 1, result.stderr
