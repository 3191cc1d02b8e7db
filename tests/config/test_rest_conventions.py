"""REST conventions: JSON errors, bounded pagination, body size limit, per-key throttling, the schema."""

import re
import subprocess
import sys

from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from tests.conftest import REPO, make_member
from tickets.tenancy import services
from tickets.tenancy.models import Role


def admin_client(tenant):
    client = APIClient()
    client.force_login(make_member(tenant, Role.ADMIN))
    return client


def test_errors_are_json_with_a_message_and_fields(tenant):
    response = admin_client(tenant).post(reverse("api-key-list"), {"role": "operator"}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "name" in error["fields"]
    assert "name" in error["message"]


def test_lists_are_paginated_with_a_maximum_page_size(tenant, settings):
    settings.API_MAX_PAGE_SIZE = 3
    for i in range(5):
        services.api_key_create(tenant=tenant, name=f"k{i}")
    page = admin_client(tenant).get(reverse("api-key-list"), {"limit": 1000}).json()
    assert page["count"] == 5
    assert len(page["results"]) == 3
    assert page["next"]


def test_oversized_bodies_answer_413(tenant, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = admin_client(tenant).post(reverse("api-key-list"), {"name": "x" * 5000}, format="json")
    assert response.status_code == 413
    assert "larger than 1000 bytes" in response.json()["error"]["message"]


def test_malformed_json_is_a_400_with_a_message(tenant):
    response = admin_client(tenant).post(
        reverse("api-key-list"), "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert "JSON" in response.json()["error"]["message"]


def test_requests_are_throttled_per_key(tenant, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"api_key": "3/min"}}
    from rest_framework.settings import api_settings

    from tickets.tenancy.authentication import ApiKeyRateThrottle

    api_settings.reload()
    ApiKeyRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    cache.clear()
    try:
        _, first = services.api_key_create(tenant=tenant, name="a")
        _, second = services.api_key_create(tenant=tenant, name="b")
        a, b = APIClient(), APIClient()
        a.credentials(HTTP_AUTHORIZATION=f"Bearer {first}")
        b.credentials(HTTP_AUTHORIZATION=f"Bearer {second}")
        codes = [a.get(reverse("current-tenant")).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        assert b.get(reverse("current-tenant")).status_code == 200  # another key has its own budget
    finally:
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {"api_key": "100000/min"},
        }
        api_settings.reload()
        ApiKeyRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
        cache.clear()


def test_openapi_schema_generates_without_warnings(db):
    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Warning" not in result.stderr and "Error" not in result.stderr, result.stderr[-3000:]


def test_interactive_docs_are_served_without_internet(client):
    page = client.get(reverse("api-docs"))
    assert page.status_code == 200
    html = page.content.decode()
    assert "drf_spectacular_sidecar" in html or "/static/" in html
    assert "cdn" not in html.lower()
    assert client.get(reverse("schema")).status_code == 200


def _wsgi_post_chunked(application, path: str, body: bytes, key: str) -> tuple[str, bytes]:
    """POST `body` as a WSGI server hands over a chunked request (gunicorn decodes the chunks): no
    CONTENT_LENGTH, Transfer-Encoding: chunked, the body readable from wsgi.input until its end."""
    import io
    from wsgiref.util import setup_testing_defaults

    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "CONTENT_TYPE": "application/json",
        "HTTP_TRANSFER_ENCODING": "chunked",
        "HTTP_AUTHORIZATION": f"Bearer {key}",
        "wsgi.input": io.BytesIO(body),
    }
    setup_testing_defaults(environ)
    environ.pop("CONTENT_LENGTH", None)
    status = {}
    # As Django's test client does: the test's transaction keeps its connection across the request.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        chunks = application(environ, lambda line, headers, exc_info=None: status.setdefault("line", line))
        content = b"".join(chunks)
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)
    return status["line"], content


def test_a_chunked_body_without_content_length_is_read_up_to_the_size_limit(tenant, api_key, settings):
    """Issue 29: a request body sent chunked (no Content-Length) was read as empty (a 400)."""
    import json

    from django.core.handlers.wsgi import WSGIHandler

    from config.parsers import chunked_bodies

    path = reverse("brain-search")
    body = json.dumps({"query": "refund policy"}).encode()
    # Django alone reads no byte of a body without a length: the request looks empty.
    line, content = _wsgi_post_chunked(WSGIHandler(), path, body, api_key)
    assert line.startswith("400"), content

    application = chunked_bodies(WSGIHandler())
    line, content = _wsgi_post_chunked(
        application, path, json.dumps({"query": "refund policy"}).encode(), api_key
    )
    assert line.startswith("200"), content
    assert "results" in json.loads(content)

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    line, content = _wsgi_post_chunked(application, path, json.dumps({"query": "x" * 5000}).encode(), api_key)
    assert line.startswith("413"), content


def test_app_serializers_hold_json_types_strictly():
    """Serializers come from config.serializers, whose string, boolean, integer and number fields refuse other
    JSON types (issue 29, item 4); DRF's own would take 0 for a string and "yes" for a boolean again."""
    direct = re.compile(
        r"^from rest_framework(\.serializers| import .*\bserializers\b|\.fields import)", re.M
    )
    offenders = [
        str(path.relative_to(REPO))
        for app in ("brain", "intelligence", "tickets", "config")
        for path in (REPO / app).rglob("*.py")
        if path != REPO / "config" / "serializers.py" and direct.search(path.read_text())
    ]
    assert offenders == []
