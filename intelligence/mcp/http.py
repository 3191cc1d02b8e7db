"""The MCP server over streamable HTTP inside the product (mounted at /mcp by config/asgi.py).

Each HTTP request must carry `Authorization: Bearer brn_...`; the key is checked against the REST API
(`GET /api/v1/tenant`, the same authentication as every endpoint) before the MCP layer sees the request, so
a missing, unknown or revoked key is a 401 in the API's error shape. The server is stateless (one JSON answer
per POST): nothing of one agent's session lives in a web process for another request to find, and any
web process can answer any request. Host and Origin are checked against ALLOWED_HOSTS (DNS rebinding).
A GET opens a stream for messages from the server: one that sends nothing for BRAIN_MCP_STREAM_IDLE_SECONDS is
closed, and a key holds at most BRAIN_MCP_STREAMS_PER_KEY of them open in one web process (429 past that).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from typing import Any

from django.conf import settings
from mcp.server.transport_security import TransportSecuritySettings

from .rest_client import ApiError, api_call
from .server import REQUEST_KEY, build_server

PATH = "/mcp"
# Open GET streams per key (its SHA-256: no key is kept), in this process.
_OPEN_STREAMS: Counter[str] = Counter()


def _transport_security() -> TransportSecuritySettings:
    hosts = [h.lstrip(".") for h in settings.ALLOWED_HOSTS if h]
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(
        allowed_hosts=[*hosts, *(f"{h}:*" for h in hosts)],
        allowed_origins=[*origins, *(f"{o}:*" for o in origins), *settings.CSRF_TRUSTED_ORIGINS],
    )


def _key(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers") or []:
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


async def _refuse(send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message, "fields": {}}}).encode()
    headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _closed_when_idle(app, scope, receive, send, idle: float) -> None:
    """Run `app` for one streamed response, ending the response once it has sent nothing for `idle` seconds."""
    loop = asyncio.get_running_loop()
    state = {"last": loop.time(), "started": False, "ended": False}

    async def sending(message) -> None:
        state["last"] = loop.time()
        state["started"] |= message["type"] == "http.response.start"
        state["ended"] |= message["type"] == "http.response.body" and not message.get("more_body", False)
        await send(message)

    task = asyncio.ensure_future(app(scope, receive, sending))
    while not task.done():
        await asyncio.wait({task}, timeout=max(0.0, state["last"] + idle - loop.time()))
        if not task.done() and loop.time() - state["last"] >= idle:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
            if not state["started"]:
                await _refuse(send, 408, "stream_idle", f"Nothing to send for {idle:g} seconds.")
            elif not state["ended"]:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            return


async def _stream(app, scope, receive, send, key: str) -> None:
    """A GET's stream, bounded in number per key and closed when idle."""
    holder, limit = hashlib.sha256(key.encode()).hexdigest(), settings.BRAIN_MCP_STREAMS_PER_KEY
    if _OPEN_STREAMS[holder] >= limit:
        message = f"This key has {limit} MCP streams open already (the most it may); close one first."
        await _refuse(send, 429, "too_many_streams", message)
        return
    _OPEN_STREAMS[holder] += 1
    try:
        await _closed_when_idle(app, scope, receive, send, settings.BRAIN_MCP_STREAM_IDLE_SECONDS)
    finally:
        _OPEN_STREAMS[holder] -= 1
        if _OPEN_STREAMS[holder] <= 0:
            del _OPEN_STREAMS[holder]


def mcp_http_app():
    """The ASGI app serving MCP at /mcp; it also answers the lifespan events the MCP session manager needs."""
    inner = build_server().streamable_http_app(
        streamable_http_path=PATH,
        stateless_http=True,
        json_response=True,
        transport_security=_transport_security(),
    )

    async def app(scope, receive, send):
        if scope["type"] == "http":
            key = _key(scope)
            if key is None:
                await _refuse(
                    send, 401, "not_authenticated", "Send the key as 'Authorization: Bearer <key>'."
                )
                return
            if not key.isascii():
                # No key holds such a character; re-sent as a header it could not even be encoded.
                await _refuse(send, 401, "authentication_failed", "Invalid API key.")
                return
            try:
                await api_call(key, "GET", "/tenant")
            except ApiError as exc:
                await _refuse(send, exc.status, exc.code, exc.message)
                return
            token = REQUEST_KEY.set(key)  # the tasks serving this request inherit it
            try:
                if scope.get("method") == "GET":
                    await _stream(inner, scope, receive, send, key)
                else:
                    await inner(scope, receive, send)
            finally:
                REQUEST_KEY.reset(token)
            return
        await inner(scope, receive, send)

    return app
