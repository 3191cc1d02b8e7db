"""Webhooks (tickets/webhooks): events become signed deliveries to the tenant's own endpoints, retried after a
failure and recorded; received here by a real HTTP server on loopback (plain http is allowed for 127.0.0.1 by
the test settings only)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from brain.api import memory_set_status
from intelligence.services import agent_memory_add, agent_memory_supersede
from tests.conftest import make_member
from tests.intelligence.factories import add_memory, make_agent
from tickets import services as helpdesk
from tickets.models import LearningAttempt
from tickets.tenancy.models import Role
from tickets.webhooks.models import DeliveryStatus, WebhookDelivery, WebhookEvent
from tickets.webhooks.services import webhook_endpoint_create

pytestmark = pytest.mark.django_db(transaction=True)  # events fire after the commit


class Receiver:
    """A webhook receiver on loopback: records each request; answers the queued statuses, then 200."""

    def __init__(self):
        self.requests: list[dict] = []
        self.answers: list[int] = []

    def __enter__(self) -> Receiver:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.requests.append({"headers": dict(self.headers), "body": body})
                status = outer.answers.pop(0) if outer.answers else 200
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok" if status < 400 else b"boom")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/hook"

    def events(self) -> list[str]:
        return [r["headers"]["X-Brain-Event"] for r in self.requests]


def verify(secret: str, request: dict) -> bool:
    """What a receiver does: recompute the HMAC of "<timestamp>.<body>" and compare in constant time."""
    timestamp = request["headers"]["X-Brain-Timestamp"]
    expected = hmac.new(
        secret.encode(), f"{timestamp}.".encode() + request["body"], hashlib.sha256
    ).hexdigest()
    return hmac.compare_digest(request["headers"]["X-Brain-Signature"], f"v1={expected}")


def endpoint(tenant, receiver, events=tuple(WebhookEvent.values)):
    return webhook_endpoint_create(tenant=tenant, url=receiver.url, events=list(events))


def test_a_learned_memory_is_delivered_signed_to_the_tenants_endpoint(tenant):
    with Receiver() as receiver:
        hook = endpoint(tenant, receiver, [WebhookEvent.MEMORY_LEARNED])
        memory_id = add_memory(make_agent(tenant), "Always greet customers by their first name.")
    [request] = receiver.requests
    assert verify(hook.secret, request)
    assert not verify("whsec_someone_else", request)
    payload = json.loads(request["body"])
    assert payload["event"] == "memory.learned" and payload["tenant"] == tenant.slug
    assert payload["data"]["memory_id"] == memory_id and payload["data"]["tag"] == f"[mem:{memory_id}]"
    assert request["headers"]["X-Brain-Delivery"] == payload["id"]
    delivery = WebhookDelivery.objects.for_tenant(tenant).get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        DeliveryStatus.DELIVERED,
        1,
        200,
    )


def test_without_a_broker_a_delivery_is_tried_once_and_never_retried_inside_the_request(tenant):
    """Issue 29: without a broker a delivery ran in the request that caused it and was retried there (one memory
    write with 15 endpoints took 80.8 s). Now one attempt; the retries are a worker's (below)."""
    with Receiver() as receiver:
        receiver.answers = [500] * 5
        endpoint(tenant, receiver, [WebhookEvent.MEMORY_LEARNED])
        add_memory(make_agent(tenant), "Always greet customers by their first name.")
    assert len(receiver.requests) == 1
    delivery = WebhookDelivery.objects.for_tenant(tenant).get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (DeliveryStatus.FAILED, 1, 500)
    assert delivery.last_error == "HTTP 500"  # the receiver's own answer ("boom") is not kept


def test_nothing_is_delivered_to_another_tenants_endpoint(tenant, other_tenant):
    with Receiver() as mine, Receiver() as theirs:
        endpoint(tenant, mine)
        endpoint(other_tenant, theirs)
        add_memory(make_agent(tenant), "Always greet customers by their first name.")
    assert mine.events() == ["memory.learned"] and theirs.requests == []
    assert not WebhookDelivery.objects.for_tenant(other_tenant).exists()


def test_each_event_of_the_list_is_delivered(tenant):
    agent = make_agent(tenant)
    with Receiver() as receiver:
        endpoint(tenant, receiver)
        first = add_memory(agent, "Always greet customers by their first name.")
        agent_memory_supersede(
            agent=agent, memory_id=first, actor="process:test", text="Greet customers warmly."
        )
        other = add_memory(agent, "Never promise a delivery date before the warehouse confirms it.")
        memory_set_status(tenant_id=tenant.pk, memory_id=other, status="archived", actor="process:test")
        agent_memory_add(
            agent=agent,
            actor="process:test",
            category="instruction",
            strength="preference",
            text="Mention the tracking page when customers ask where a parcel is.",
            source="suggested",
        )
        ticket, _ = helpdesk.ticket_upsert(tenant=tenant, external_id="T-1", subject="Broken pole")
        attempt = LearningAttempt.objects.for_tenant(tenant).create(
            tenant=tenant, ticket=ticket, ticket_external_id="T-1"
        )
        # A worker's try: it holds the attempt's lease when the failure is recorded.
        attempt = helpdesk.learning_attempt_claim(
            tenant_id=tenant.pk, ticket_id=ticket.pk, attempt_id=attempt.pk
        )
        helpdesk.learning_attempt_fail(attempt=attempt, error="provider down")
    events = receiver.events()
    assert events.count("memory.learned") == 3  # the first, its successor, the second
    assert {"memory.superseded", "memory.archived", "suggestion.proposed", "learning.attempt_failed"} <= set(
        events
    )
    failed = next(json.loads(r["body"]) for r in receiver.requests if b"attempt_failed" in r["body"])
    assert failed["data"]["ticket_external_id"] == "T-1" and failed["data"]["error"] == "provider down"


def test_an_endpoint_must_be_https_unless_loopback_is_allowed(tenant, settings):
    with pytest.raises(ValidationError):
        webhook_endpoint_create(tenant=tenant, url="http://hooks.example.com/x", events=["memory.learned"])
    settings.BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK = False
    with pytest.raises(ValidationError):
        webhook_endpoint_create(tenant=tenant, url="http://127.0.0.1:9/x", events=["memory.learned"])
    with pytest.raises(ValidationError):
        webhook_endpoint_create(tenant=tenant, url="https://hooks.example.com/x", events=["memory.bogus"])
    assert webhook_endpoint_create(
        tenant=tenant, url="https://hooks.example.com/x", events=["memory.learned"]
    )


def test_the_tenant_admin_registers_an_endpoint_on_the_webhooks_page(tenant, other_tenant):
    admin = Client()
    admin.force_login(make_member(tenant, Role.ADMIN))
    response = admin.post(
        "/tenant/webhooks/", {"url": "https://hooks.example.com/brain", "events": ["memory.learned"]}
    )
    assert response.status_code == 200
    [hook] = tenant.webhook_endpoints.all()
    assert hook.secret in response.content.decode()  # shown once, on creation
    assert hook.secret not in admin.get("/tenant/webhooks/").content.decode()
    operator = Client()
    operator.force_login(make_member(tenant, Role.OPERATOR))
    assert operator.get("/tenant/webhooks/").status_code == 403
    theirs = webhook_endpoint_create(
        tenant=other_tenant, url="https://x.example.com/", events=["memory.learned"]
    )
    assert admin.post(f"/tenant/webhooks/{theirs.pk}/deactivate/").status_code == 404
    assert admin.post(f"/tenant/webhooks/{hook.pk}/deactivate/").status_code == 302
    hook.refresh_from_db()
    assert hook.is_active is False


@pytest.fixture
def quick_retries(monkeypatch):
    monkeypatch.setenv("BRAIN_WEBHOOK_RETRY_BACKOFF", "1")
    monkeypatch.setenv("BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK", "1")


@pytest.mark.worker
def test_a_real_worker_retries_a_failed_delivery_with_backoff(tenant, quick_retries, celery_worker):
    with Receiver() as receiver:
        receiver.answers = [500]
        hook = endpoint(tenant, receiver, [WebhookEvent.MEMORY_LEARNED])
        add_memory(make_agent(tenant), "Always greet customers by their first name.")
        deadline = time.monotonic() + 60
        while len(receiver.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
    assert len(receiver.requests) == 2 and all(verify(hook.secret, r) for r in receiver.requests)
    delivery = WebhookDelivery.objects.for_tenant(tenant).get()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.DELIVERED, 2)


@pytest.fixture
def two_attempts(monkeypatch):
    monkeypatch.setenv("BRAIN_WEBHOOK_MAX_ATTEMPTS", "2")  # read by the worker the next fixture starts


@pytest.mark.worker
def test_a_real_worker_records_a_delivery_that_keeps_failing_as_failed(
    tenant, quick_retries, two_attempts, celery_worker
):
    with Receiver() as receiver:
        receiver.answers = [500] * 5
        endpoint(tenant, receiver, [WebhookEvent.MEMORY_LEARNED])
        add_memory(make_agent(tenant), "Always greet customers by their first name.")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            delivery = WebhookDelivery.objects.for_tenant(tenant).get()
            if delivery.status == DeliveryStatus.FAILED:
                break
            time.sleep(0.2)
    assert len(receiver.requests) == 2
    assert (delivery.status, delivery.attempts, delivery.last_error) == (DeliveryStatus.FAILED, 2, "HTTP 500")


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",  # the cloud metadata address
        "https://169.254.169.254/",
        "https://10.0.0.5/hook",
        "https://192.168.1.1:6379/",
        "https://172.16.0.1/",
        "https://100.64.0.1/",  # shared address space
        "https://[fd00:ec2::254]/",
        "https://[::ffff:10.0.0.1]/",
        "https://0.0.0.0/",
    ],
)
def test_an_endpoint_inside_a_network_is_refused_at_registration(tenant, url):
    """Issue 29: endpoints on loopback, the metadata address, private ranges were accepted (a port scanner)."""
    with pytest.raises(ValidationError) as refused:
        webhook_endpoint_create(tenant=tenant, url=url, events=["memory.learned"])
    assert "url" in refused.value.message_dict


@pytest.mark.parametrize(
    "url", ["https://127.0.0.1/", "https://[::1]/", "https://localhost/", "http://127.0.0.1:6379/"]
)
def test_loopback_is_refused_unless_the_development_setting_allows_it(tenant, settings, url):
    settings.BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK = False
    with pytest.raises(ValidationError):
        webhook_endpoint_create(tenant=tenant, url=url, events=["memory.learned"])


def test_a_host_that_resolves_inward_at_delivery_is_not_contacted(tenant):
    """DNS rebinding: a name public at registration may resolve inward later; each delivery resolves it again
    and refuses, without a request and without retries. (The row is written directly, as such a name's would
    be.)"""
    from tickets.webhooks.models import WebhookEndpoint
    from tickets.webhooks.services import NOT_PUBLIC

    WebhookEndpoint.objects.create(
        tenant=tenant, url="https://10.255.255.1:9/hook", events=["memory.learned"], secret="whsec_x"
    )
    started = time.monotonic()
    add_memory(make_agent(tenant), "Always greet customers by their first name.")
    assert time.monotonic() - started < 5  # no connection was attempted (it would wait for the timeout)
    delivery = WebhookDelivery.objects.for_tenant(tenant).get()
    assert (delivery.status, delivery.attempts, delivery.last_error) == (DeliveryStatus.FAILED, 1, NOT_PUBLIC)


def test_delivery_errors_do_not_tell_what_listens_on_a_port(tenant):
    """A closed port and a service that is not HTTP give the same error text (no port scanning)."""
    import socket

    from tickets.webhooks.services import UNREACHABLE

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    silent = socket.socket()  # accepts and closes at once, as a non-HTTP service may
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    threading.Thread(target=lambda: [silent.accept()[0].close() for _ in range(3)], daemon=True).start()
    for target in (port, silent.getsockname()[1]):
        webhook_endpoint_create(
            tenant=tenant, url=f"http://127.0.0.1:{target}/hook", events=["memory.learned"]
        )
    add_memory(make_agent(tenant), "Always greet customers by their first name.")
    silent.close()
    errors = {d.last_error for d in WebhookDelivery.objects.for_tenant(tenant)}
    assert errors == {UNREACHABLE}
