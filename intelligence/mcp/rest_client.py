"""Calls of /api/v1 made in-process, through Django's ASGI handler, with a given API key."""

from __future__ import annotations

from typing import Any

import httpx
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler


class ApiError(Exception):
    """An error answer of the REST API: its HTTP status and its {"code", "message", "fields"}."""

    def __init__(self, status: int, error: dict[str, Any]):
        self.status = status
        self.code = str(error.get("code", "error"))
        self.message = str(error.get("message", f"HTTP {status}"))
        self.fields = error.get("fields") or {}
        super().__init__(self.describe())

    def describe(self) -> str:
        text = f"{self.message} ({self.status} {self.code})"
        if self.fields:
            text += " " + "; ".join(
                f"{name}: {' '.join(map(str, msgs))}" for name, msgs in self.fields.items()
            )
        return text


_handler: ASGIHandler | None = None


def _django() -> ASGIHandler:
    global _handler
    if _handler is None:
        _handler = ASGIHandler()
    return _handler


def _host() -> str:
    """A host name the product accepts (ALLOWED_HOSTS), so the in-process request passes Django's check."""
    for host in settings.ALLOWED_HOSTS:
        if host and host != "*":
            return host.lstrip(".")
    return "localhost"


async def api_call(key: str, method: str, path: str, *, json: Any = None, params: dict | None = None) -> Any:
    """The decoded JSON answer of `method /api/v1{path}` made with `key`, or ApiError for a 4xx/5xx.

    The request is HTTPS from the handler's point of view (no network is involved), so production's SSL
    redirect does not apply to it.
    """
    transport = httpx.ASGITransport(app=_django())
    async with httpx.AsyncClient(transport=transport, base_url=f"https://{_host()}/api/v1") as client:
        response = await client.request(
            method, path, json=json, params=params, headers={"Authorization": f"Bearer {key}"}
        )
    body = response.json() if response.content else None
    if response.is_success:
        return body
    error = body.get("error") if isinstance(body, dict) else None
    raise ApiError(response.status_code, error if isinstance(error, dict) else {"message": str(body)})
