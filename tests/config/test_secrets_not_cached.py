"""Secrets are not cached, and production refuses a weak secret key (issue 15, finding 9)."""

import os
import secrets
import subprocess
import sys

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tests.conftest import REPO, make_member
from tickets.tenancy.models import Role


def assert_no_store(response):
    assert "no-store" in response["Cache-Control"], response.headers


def test_the_rest_answer_carrying_a_new_key_is_not_stored(tenant):
    client = APIClient()
    client.force_login(make_member(tenant, Role.ADMIN))
    response = client.post(reverse("api-key-list"), {"name": "agent"}, format="json")
    assert response.status_code == 201 and response.json()["key"].startswith("brn_")
    assert_no_store(response)


def test_the_page_showing_a_new_key_is_not_stored(client, tenant):
    client.force_login(make_member(tenant, Role.ADMIN))
    created = client.post(reverse("tenant-api-keys"), {"name": "agent", "role": Role.OPERATOR})
    assert created.status_code == 302  # POST/redirect/GET: a reload never creates a second key
    response = client.get(created["Location"])
    assert response.status_code == 200 and b'data-testid="new-key"' in response.content
    assert_no_store(response)
    assert b'data-testid="new-key"' not in client.get(created["Location"]).content  # shown once


def _load_production_settings(secret_key: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secret_key,
    }
    code = "from django.conf import settings; print(len(settings.SECRET_KEY))"
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("secret_key", ["short", "x" * 49, ""])
def test_production_refuses_a_secret_key_shorter_than_50_characters(secret_key):
    result = _load_production_settings(secret_key)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "at least 50 characters" in result.stderr


def test_production_accepts_a_long_random_secret_key():
    result = _load_production_settings(secrets.token_urlsafe(50))
    assert result.returncode == 0, result.stderr[-2000:]
