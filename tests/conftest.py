"""Fixtures shared by every test package: tenants, members, API keys, API clients, a real Celery worker."""

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from rest_framework.test import APIClient

from tickets.tenancy import services
from tickets.tenancy.models import Role

from .tenant_query_audit import pytest_configure  # noqa: F401 - the tenant query audit (BRAIN_AUDIT_TENANT_QUERIES=1)
from .tickets.factories import MembershipFactory, TenantFactory, UserFactory

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _tenant_wall_for_test_code(request):
    """The tenant wall (tickets/tenancy/wall.py) in tests: test code plants rows of several tenants directly, so it runs
    with the audited bypass; a request made through the test client starts as production's do, with no
    tenant and no bypass, so every API and UI test runs under row-level security as the runtime role."""
    needs_db = request.node.get_closest_marker("django_db") or {"db", "transactional_db"} & set(
        request.fixturenames
    )
    if not needs_db:
        yield
        return
    request.getfixturevalue("_django_db_helper")
    from django.core.signals import request_finished, request_started
    from django.db.backends.signals import connection_created

    from tickets.tenancy import wall

    test_thread = threading.get_ident()
    in_request = []

    def bypass_on_driver(wrapper):  # on the driver's connection: not one of a request's queries
        if wrapper.settings_dict.get("BRAIN_REPLICA"):
            return  # a standby cannot lower the wall (a write): test code reads it in a tenant's scope
        wrapper.brain_bypass = True
        wall.session_opened(wrapper, "test code")

    def request_starts(**kwargs):
        if threading.get_ident() == test_thread:
            in_request.append(True)
            wall.session_reset()

    def request_ends(**kwargs):
        from django.db import connection

        if threading.get_ident() == test_thread:
            in_request.clear()
            wall.session_reset()
            if connection.connection is not None:
                bypass_on_driver(connection)
            connection.brain_bypass = True

    def connection_opens(sender, connection, **kwargs):
        # A connection the test thread opens outside a request (a fresh wrapper when an event loop runs in
        # the thread, as Playwright's does) is test code too.
        if threading.get_ident() == test_thread and not in_request:
            bypass_on_driver(connection)

    wall.bypass_set(True, "test code")
    request_started.connect(request_starts, dispatch_uid="tests.tenant_wall.start")
    request_finished.connect(request_ends, dispatch_uid="tests.tenant_wall.end")
    connection_created.connect(connection_opens, dispatch_uid="tests.tenant_wall.open")
    try:
        yield
    finally:
        request_started.disconnect(dispatch_uid="tests.tenant_wall.start")
        request_finished.disconnect(dispatch_uid="tests.tenant_wall.end")
        connection_created.disconnect(dispatch_uid="tests.tenant_wall.open")
        from django.db import connection

        connection.brain_tenant_id, connection.brain_bypass = None, False


@pytest.fixture
def tenant(db):
    return TenantFactory(name="Acme Support", slug="acme")


@pytest.fixture
def other_tenant(db):
    return TenantFactory(name="Globex Retail", slug="globex")


def make_member(tenant, role=Role.OPERATOR, username=None):
    user = UserFactory(username=username or f"{tenant.slug}-{role}")
    MembershipFactory(tenant=tenant, user=user, role=role)
    return user


@pytest.fixture
def member_factory(db):
    return make_member


def api_client_for_key(full_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {full_key}")
    return client


@pytest.fixture
def api_key(tenant):
    key, full_key = services.api_key_create(tenant=tenant, name="agent")
    return full_key


@pytest.fixture
def api(api_key):
    """An API client authenticated with an operator key of `tenant`."""
    return api_client_for_key(api_key)


@pytest.fixture
def other_api(other_tenant):
    _, full_key = services.api_key_create(tenant=other_tenant, name="intruder")
    return api_client_for_key(full_key)


# --- A real Celery worker on a real broker ---------------------------------------------------------

BROKER_URL = os.environ.get("BRAIN_TEST_BROKER_URL", "redis://127.0.0.1:6379/15")


def _broker_reachable(url: str) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 6379), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def require_pgbouncer() -> None:
    """Skip with a visible reason when Debian's pgbouncer is missing; BRAIN_REQUIRE_PGBOUNCER=1 (CI) fails instead."""
    from config import pgbouncer

    if pgbouncer.binary() is not None:
        return
    message = "pgbouncer is not installed (apt-get install pgbouncer; `make test` installs it as root)"
    if os.environ.get("BRAIN_REQUIRE_PGBOUNCER") == "1":
        pytest.fail(message + " (BRAIN_REQUIRE_PGBOUNCER=1 forbids skipping)")
    pytest.skip(message)


def broker_or_skip(url: str = BROKER_URL) -> None:
    """Skip with a visible reason when no broker is reachable; BRAIN_REQUIRE_BROKER=1 (CI) makes it a failure."""
    if _broker_reachable(url):
        return
    message = f"no broker reachable at {url}: start Redis (see README) to run the worker tests"
    if os.environ.get("BRAIN_REQUIRE_BROKER") == "1":
        pytest.fail(message + " (BRAIN_REQUIRE_BROKER=1 forbids skipping)")
    pytest.skip(message)


@pytest.fixture
def celery_worker(transactional_db, settings):
    """Start `celery worker` in a subprocess against the test database; tasks from this test go to it.

    Function-scoped on purpose: the worker sees exactly the rows this test committed.
    """
    from django.db import connection

    from config.celery import app, use_broker

    broker_or_skip()
    subprocess.run(  # a clean queue: nothing left over from an earlier, interrupted run
        [sys.executable, "-c", f"import redis; redis.Redis.from_url('{BROKER_URL}').flushdb()"], check=False
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "CELERY_BROKER_URL": BROKER_URL,
        "CELERY_RESULT_BACKEND": BROKER_URL,
        "BRAIN_DB_NAME": connection.settings_dict["NAME"],
    }
    if connection.settings_dict.get("EMBEDDED_DATA_DIR") is None and os.environ.get("DATABASE_URL"):
        url = urlparse(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = url._replace(path="/" + connection.settings_dict["NAME"]).geturl()
    log_path = REPO / "var" / f"test-worker-{os.getpid()}.log"
    log_path.parent.mkdir(exist_ok=True)
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "--loglevel=info",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"test-{os.getpid()}@%h",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    previous = (None if app.conf.task_always_eager else app.conf.broker_url, app.conf.result_backend)
    use_broker(BROKER_URL, BROKER_URL)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"the Celery worker exited early; see {log_path}:\n{log_path.read_text()[-3000:]}"
                )
            if app.control.ping(timeout=0.5):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not answer within 60 s; see {log_path}")
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        use_broker(*previous)
