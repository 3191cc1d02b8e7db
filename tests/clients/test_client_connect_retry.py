"""Issue 28, item 7: the Python client retries a refused connection within its retry budget, like a 429 or
503 (the request never reached the server), against a real loopback port that refuses, then serves the app."""

from __future__ import annotations

import asyncio
import socket
import threading

import brain_client
import pytest
from brain_client import AsyncBrain, Brain
from django.core.handlers.wsgi import WSGIHandler
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

from tickets.tenancy import services

pytestmark = pytest.mark.django_db(transaction=True)


def refusing_port() -> int:
    """A loopback port nothing listens on (bound once to pick it, then closed): connecting is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LateServer:
    """The Brain (this project's WSGI application) on `port`, from `start()` on; until then the port refuses."""

    def __init__(self, port: int):
        self.port = port
        self.httpd: ThreadedWSGIServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.httpd = ThreadedWSGIServer(
            ("127.0.0.1", self.port), WSGIRequestHandler, allow_reuse_address=True
        )
        self.httpd.set_app(WSGIHandler())
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def __enter__(self) -> LateServer:
        return self

    def __exit__(self, *exc_info) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()


def test_a_refused_connection_is_retried_until_the_server_answers(tenant):
    _, key = services.api_key_create(tenant=tenant, name="agent")
    waits: list[float] = []
    with LateServer(refusing_port()) as server:

        def sleep(seconds: float) -> None:  # the server comes up during the second wait
            waits.append(seconds)
            if len(waits) == 2:
                server.start()

        with Brain(server.url, key, sleep=sleep) as brain:
            assert brain.tenant()["slug"] == tenant.slug
    assert waits == [0.5, 1.0]  # the default policy's backoff: two refusals, then the answer


def test_a_server_that_never_listens_raises_unreachable_once_the_budget_is_spent():
    url = f"http://127.0.0.1:{refusing_port()}"
    waits: list[float] = []
    with Brain(url, "brn_x_y", sleep=waits.append, retry=brain_client.RetryPolicy(max_retries=2)) as brain:
        with pytest.raises(brain_client.ServerError) as failed:
            brain.tenant()
    assert waits == [0.5, 1.0]
    assert failed.value.status == 0 and failed.value.code == "unreachable" and url in failed.value.message


def test_the_async_client_retries_a_refused_connection_too():
    url = f"http://127.0.0.1:{refusing_port()}"
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def main():
        policy = brain_client.RetryPolicy(max_retries=3, backoff=0.25)
        async with AsyncBrain(url, "brn_x_y", sleep=sleep, retry=policy) as brain:
            with pytest.raises(brain_client.ServerError) as failed:
                await brain.tenant()
        return failed.value

    error = asyncio.run(main())
    assert waits == [0.25, 0.5, 1.0] and error.code == "unreachable"
