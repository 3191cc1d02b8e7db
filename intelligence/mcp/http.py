"""The MCP server over streamable HTTP inside the product (mounted at /mcp by config/asgi.py).

Each HTTP request must carry `Authorization: Bearer brn_...`; the key is checked against the REST API
(`GET /api/v1/tenant`, the same authentication as every endpoint) before the MCP layer sees the request, so
a missing, unknown or revoked key is a 401 in the API's error shape. The server is stateless (one JSON answer
per POST): nothing of one agent's session lives in a web process for another request to find, and any
web process can answer any request. Host and Origin are checked against ALLOWED_HOSTS (DNS rebinding).
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from mcp.server.transport_security import TransportSecuritySettings

from .rest_client import ApiError, api_call
from .server import REQUEST_KEY, build_server

PATH = "/mcp"


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
                await inner(scope, receive, send)
            finally:
                REQUEST_KEY.reset(token)
            return
        await inner(scope, receive, send)

    return app
