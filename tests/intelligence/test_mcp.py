"""The MCP server (intelligence/mcp) driven by the `mcp` SDK's own client over both transports: streamable
HTTP inside the product (config/asgi.py served by uvicorn on loopback) and stdio (`manage.py brain_mcp`)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import threading
import time

import httpx
import httpx2
import pytest
import uvicorn
from django.db import connection, connections
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from brain.models import Memory
from tests.conftest import REPO
from tickets.tenancy import services

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = {"get_context", "search", "ask", "remember", "record_lesson", "rate_conversation", "report_verdict"}


@pytest.fixture
def product_url():
    """The product's ASGI application (Django and /mcp) served by uvicorn on a loopback port."""
    from config.asgi import build_application

    # Each request's database connection closes when it ends, so none outlives the test's database.
    connections.settings["default"]["CONN_MAX_AGE"], max_age = (
        0,
        connections.settings["default"]["CONN_MAX_AGE"],
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(build_application(), lifespan="on", log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        threading.Event().wait(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()
    connections.settings["default"]["CONN_MAX_AGE"] = max_age


def key_of(tenant, name="agent") -> str:
    return services.api_key_create(tenant=tenant, name=name)[1]


def http_client(url: str, key: str) -> Client:
    transport = streamable_http_client(
        f"{url}/mcp", http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
    )
    return Client(transport)


def stdio_client(key: str) -> Client:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "BRAIN_DB_NAME": connection.settings_dict["NAME"],
    }
    return Client(
        StdioServerParameters(
            command=sys.executable, args=["manage.py", "brain_mcp", "--key", key], cwd=str(REPO), env=env
        )
    )


def structured(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content.get("result", result.structured_content)


def error_text(result) -> str:
    assert result.is_error, result
    return " ".join(getattr(block, "text", "") for block in result.content)


async def every_tool(client: Client, agent_id: int, memory_id: int) -> None:
    tools = await client.list_tools()
    assert {t.name for t in tools.tools} == TOOLS
    assert all(t.description for t in tools.tools)

    context = structured(
        await client.call_tool(
            "get_context",
            {"agent_id": agent_id, "conversation": "Hi, where is my parcel?", "conversation_id": "chat-1"},
        )
    )
    assert f"[mem:{memory_id}]" in context["prompt"]
    conversation_id = context["conversation"]["id"]
    rated = structured(
        await client.call_tool("rate_conversation", {"conversation_id": conversation_id, "rating": 1})
    )
    assert rated["feedback_rating"] == 1
    verdict = structured(
        await client.call_tool(
            "report_verdict",
            {
                "verdict": "pass",
                "trace_id": context["trace_id"],
                "response_text": f"Hello [mem:{memory_id}].",
            },
        )
    )
    assert verdict["applied"] is True
    found = structured(await client.call_tool("search", {"query": "greet customers first name"}))
    assert memory_id in [r["id"] for r in found["results"]]
    answer = structured(await client.call_tool("ask", {"question": "How do I greet customers?"}))
    assert f"[mem:{memory_id}]" in answer["answer"]
    remembered = structured(
        await client.call_tool("remember", {"agent_id": agent_id, "text": "Bo prefers replies in Swedish."})
    )
    assert remembered["outcome"]["result"] == "added"
    # Issue 28: the note is never in the prompt; the context counts it and the descriptions say how to find it.
    described = {t.name: t.description for t in tools.tools}
    for name in ("get_context", "remember", "search"):
        assert 'scope_kind "agent"' in described[name] and '"note"' in described[name], name
    asked = structured(
        await client.call_tool("get_context", {"agent_id": agent_id, "conversation": "Bo writes in Swedish."})
    )
    assert asked["notes_matching"] == 1 and "Swedish" not in asked["prompt"]
    notes = structured(
        await client.call_tool(
            "search",
            {
                "query": "Swedish",
                "scope_kind": "agent",
                "scope_ids": [str(agent_id)],
                "types": ["note", "chat"],
            },
        )
    )
    assert [r["id"] for r in notes["results"]] == [remembered["outcome"]["memory_id"]]
    lesson = structured(
        await client.call_tool(
            "record_lesson",
            {
                "app_id": "shop",
                "template": "Refunds over {amount} need approval.",
                "values": {"amount": "200"},
            },
        )
    )
    assert lesson["outcome"]["text"] == "Refunds over 200 need approval."
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["brain://agents{?kind}"]
    agents = await client.read_resource("brain://agents")
    assert [a["id"] for a in json.loads(agents.contents[0].text)["results"]] == [agent_id]


async def refusals(client: Client, agent_id: int, other_agent_id: int) -> None:
    # Another tenant's agent: the same "not found" as a missing one, and nothing written.
    assert "Not found" in error_text(
        await client.call_tool("get_context", {"agent_id": other_agent_id, "conversation": "hello"})
    )
    assert "Not found" in error_text(
        await client.call_tool("remember", {"agent_id": other_agent_id, "text": "Bo prefers Swedish."})
    )
    # Bad arguments: a tool error with a message, never a crash.
    assert "agent_id" in error_text(
        await client.call_tool("get_context", {"agent_id": "abc", "conversation": "x"})
    )
    assert "rating" in error_text(
        await client.call_tool("rate_conversation", {"conversation_id": 1, "rating": 5})
    )
    # Issue 26: a rating is the JSON number 1 or -1; the SDK's validation turned true and 1.0 into 1.
    for rating in ("1", 0, 2, 1.0, None, True):
        assert "send the JSON number 1 or -1" in error_text(
            await client.call_tool("rate_conversation", {"conversation_id": 1, "rating": rating})
        )
    assert "question" in error_text(await client.call_tool("ask", {}))
    # The gate refuses: the tool says why.
    refused = error_text(
        await client.call_tool("remember", {"agent_id": agent_id, "text": "https://x.example/a"})
    )
    assert "rejected" in refused and "bare_url" in refused


def setup(tenant, other_tenant):
    agent = make_agent(tenant)
    memory_id = add_memory(agent, "Always greet customers by their first name.")
    return agent, memory_id, make_agent(other_tenant, name="Theirs")


def test_mcp_over_streamable_http_inside_the_product(product_url, tenant, other_tenant):
    agent, memory_id, theirs = setup(tenant, other_tenant)
    key = key_of(tenant)

    async def main():
        async with http_client(product_url, key) as client:
            await every_tool(client, agent.pk, memory_id)
            await refusals(client, agent.pk, theirs.pk)

    asyncio.run(main())
    notes = Memory.objects.for_tenant(other_tenant).filter(text__icontains="Swedish")
    assert not notes.exists()


def test_mcp_over_http_keeps_each_requests_key_and_tenant(product_url, tenant, other_tenant):
    agent, _, theirs = setup(tenant, other_tenant)
    mine, their_key = key_of(tenant), key_of(other_tenant, "theirs")

    async def main():
        async with http_client(product_url, mine) as a, http_client(product_url, their_key) as b:
            seen_a = json.loads((await a.read_resource("brain://agents")).contents[0].text)["results"]
            seen_b = json.loads((await b.read_resource("brain://agents")).contents[0].text)["results"]
            other = error_text(await b.call_tool("get_context", {"agent_id": agent.pk, "conversation": "hi"}))
            return seen_a, seen_b, other

    seen_a, seen_b, other = asyncio.run(main())
    assert ([x["id"] for x in seen_a], [x["id"] for x in seen_b]) == ([agent.pk], [theirs.pk])
    assert "Not found" in other


def test_mcp_over_http_needs_a_valid_bearer_key(product_url, tenant):
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream"}
    anonymous = httpx.post(f"{product_url}/mcp", json=ping, headers=headers)
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "not_authenticated"
    wrong = httpx.post(
        f"{product_url}/mcp", json=ping, headers={**headers, "Authorization": "Bearer brn_x_y"}
    )
    assert wrong.status_code == 401 and wrong.json()["error"]["message"] == "Invalid API key."
    # the REST API still answers beside it
    rest = httpx.get(f"{product_url}/api/v1/tenant", headers={"Authorization": f"Bearer {key_of(tenant)}"})
    assert rest.json()["slug"] == tenant.slug


@pytest.mark.parametrize("token", ["brn_x_y\u00e9", "\uff42\uff52\uff4e_abc_def"])
def test_mcp_over_http_refuses_a_key_with_a_non_ascii_character_as_rest_does(product_url, tenant, token):
    """Issue 29: a Bearer token with a non-ASCII character (an é suffix, a full-width key) answered 500 on /mcp
    (the key is re-sent in-process as a header and failed to encode); REST answers 401 to the same header."""
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}".encode()}
    answer = httpx.post(f"{product_url}/mcp", json=ping, headers=headers)
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "authentication_failed"
    rest = httpx.get(f"{product_url}/api/v1/tenant", headers={"Authorization": f"Bearer {token}".encode()})
    assert rest.status_code == 401 and rest.json()["error"]["code"] == answer.json()["error"]["code"]


def test_mcp_over_stdio_with_the_commands_key(tenant, other_tenant):
    agent, memory_id, theirs = setup(tenant, other_tenant)
    key = key_of(tenant)

    async def main():
        async with stdio_client(key) as client:
            await every_tool(client, agent.pk, memory_id)
            await refusals(client, agent.pk, theirs.pk)

    asyncio.run(main())


def test_the_mcp_search_and_ask_tools_offer_the_limits_the_api_takes():
    """Issue 29: the MCP search tool advertised a limit up to 100 while the API caps it at 50 (ask: 20)."""
    from brain.rest.serializers.search import AskRequestSerializer, SearchRequestSerializer
    from intelligence.mcp.server import build_server

    tools = {tool.name: tool for tool in asyncio.run(build_server().list_tools())}
    for name, serializer in (("search", SearchRequestSerializer), ("ask", AskRequestSerializer)):
        offered = tools[name].input_schema["properties"]["limit"]
        taken = serializer().fields["limit"]
        assert (offered["minimum"], offered["maximum"]) == (taken.min_value, taken.max_value)


def _open_stream(product_url: str, key: str) -> httpx.Response:
    client = httpx.Client(timeout=httpx.Timeout(10.0))
    request = client.build_request(
        "GET", f"{product_url}/mcp", headers={"Accept": "text/event-stream", "Authorization": f"Bearer {key}"}
    )
    return client.send(request, stream=True)


def test_an_idle_mcp_stream_is_closed_after_the_documented_time(product_url, tenant, settings):
    """Issue 29: GET /mcp kept a stream open with no bound."""
    settings.BRAIN_MCP_STREAM_IDLE_SECONDS = 1
    started = time.monotonic()
    stream = _open_stream(product_url, key_of(tenant))
    assert stream.status_code == 200
    stream.read()  # returns once the server ends the stream
    assert time.monotonic() - started < 6
    stream.close()


def test_the_open_mcp_streams_of_one_key_are_bounded(product_url, tenant, settings):
    settings.BRAIN_MCP_STREAM_IDLE_SECONDS = 30
    settings.BRAIN_MCP_STREAMS_PER_KEY = 2
    key = key_of(tenant)
    first, second = _open_stream(product_url, key), _open_stream(product_url, key)
    try:
        third = _open_stream(product_url, key)
        assert third.status_code == 429
        third.read()
        assert "streams" in third.json()["error"]["message"]
        another_key = _open_stream(product_url, key_of(tenant, name="another"))
        assert another_key.status_code == 200  # the bound is per key
        another_key.close()
    finally:
        first.close()
        second.close()
    time.sleep(0.5)
    again = _open_stream(product_url, key)  # a closed stream frees its place
    assert again.status_code == 200
    again.close()
