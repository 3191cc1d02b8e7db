"""Typed errors: every non-2xx answer of the Brain raises one, carrying the API's error code and fields.

The server always answers errors as {"error": {"code", "message", "fields"}} where `fields` maps a field
name to a list of messages; the exception keeps all three plus the HTTP status.
"""

from __future__ import annotations

from typing import Any


class BrainError(Exception):
    """Any error answer of the Brain API (or, as `ServerError` with `status` 0 and code `unreachable`, a
    connection that could not be made once the retries are spent)."""

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str = "error",
        fields: dict[str, list[str]] | None = None,
        body: Any = None,
    ):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.fields: dict[str, list[str]] = fields or {}
        self.body = body

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"


class InvalidRequest(BrainError):
    """400: the request was malformed; `fields` says which fields and why."""


class AuthenticationFailed(BrainError):
    """401: no key, a malformed key, an unknown or a revoked key."""


class PermissionDenied(BrainError):
    """403: the key's role does not allow this (e.g. a viewer key writing)."""


class NotFound(BrainError):
    """404: missing, or another tenant's (the Brain answers both the same way)."""


class Suspended(BrainError):
    """405: the operation is suspended (Client Brain mutations, pruning, bootstrap...)."""


class Conflict(BrainError):
    """409: the object's state forbids the change (e.g. a superseded memory's status)."""


class PayloadTooLarge(BrainError):
    """413: the body is over the server's limit."""


class GateRejected(BrainError):
    """422: the formation gate refused the memory; `fields` carries the reason code."""

    @property
    def reason(self) -> str:
        for messages in self.fields.values():
            if messages:
                return messages[0]
        return ""


class RateLimited(BrainError):
    """429 after the retries: the key's rate is exhausted; `retry_after` is the server's hint in seconds."""

    retry_after: float | None = None


class ServerError(BrainError):
    """5xx other than 503 (or no connection after the retries: status 0, code `unreachable`)."""


class ServiceUnavailable(ServerError):
    """503 after the retries (e.g. the answer provider of `ask` is down)."""


_BY_STATUS: dict[int, type[BrainError]] = {
    400: InvalidRequest,
    401: AuthenticationFailed,
    403: PermissionDenied,
    404: NotFound,
    405: Suspended,
    409: Conflict,
    413: PayloadTooLarge,
    422: GateRejected,
    429: RateLimited,
    503: ServiceUnavailable,
}


def error_for(status: int, body: Any, retry_after: float | None = None) -> BrainError:
    """The typed exception for an error answer (`body` is its decoded JSON, or text)."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        code = str(error.get("code") or "error")
        message = str(error.get("message") or f"HTTP {status}")
        fields = error.get("fields") if isinstance(error.get("fields"), dict) else {}
    else:
        code, message, fields = "error", (body if isinstance(body, str) and body else f"HTTP {status}"), {}
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else BrainError)
    exc = cls(message, status=status, code=code, fields=fields, body=body)
    if isinstance(exc, RateLimited):
        exc.retry_after = retry_after
    return exc
