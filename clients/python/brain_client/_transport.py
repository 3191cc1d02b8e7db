"""What the sync and async clients share: building a request, the retry policy and reading the answer.

Retries: 429, 503 and a connection that could not be made (refused, timed out while connecting) are retried
up to `max_retries` times, within one budget. The wait is the answer's `Retry-After` (seconds or an HTTP date)
when it has one, else exponential backoff (`backoff` × 2^attempt, at most `max_backoff`). All three mean the
request was not carried out, so a write is safe to resend; an error after the request was sent (a read
timeout, a dropped connection) is not retried, since the server may have done the work.
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from .errors import ServerError, error_for

RETRY_STATUSES = frozenset({429, 503})
# The request never reached the server: safe to send again, like a 429 or 503.
CONNECT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout)
API_PREFIX = "/api/v1"


@dataclass(frozen=True)
class Call:
    """One HTTP call of the API, relative to /api/v1."""

    method: str
    path: str
    params: dict[str, Any] | None = None
    json: Any = None


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 30.0
    statuses: frozenset[int] = field(default=RETRY_STATUSES)

    def delay(self, attempt: int, response: httpx.Response | None) -> float:
        """Seconds to wait before retry number `attempt` (0-based) of this answer (None: no connection)."""
        hinted = retry_after_seconds(response.headers.get("Retry-After")) if response is not None else None
        if hinted is not None:  # the server knows when it will take the request again
            return hinted
        return min(self.backoff * (2**attempt), self.max_backoff)


def unreachable(error: httpx.TransportError, base_url: httpx.URL) -> ServerError:
    """What a connection that could not be made raises once the retries are spent: status 0, code
    `unreachable` (raised `from` the httpx error)."""
    return ServerError(f"Could not connect to {base_url}: {error}", status=0, code="unreachable")


def retry_after_seconds(value: str | None) -> float | None:
    """`Retry-After` as seconds: either delta-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def clean_params(params: dict[str, Any] | None) -> dict[str, Any] | None:
    """Drop unset query parameters; lists become repeated parameters, booleans lower-case words."""
    if not params:
        return None
    cleaned: dict[str, Any] = {}
    for key, value in params.items():
        if value is None:
            continue
        cleaned[key] = str(value).lower() if isinstance(value, bool) else value
    return cleaned or None


def request_kwargs(call: Call) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"params": clean_params(call.params)}
    if call.json is not None:
        kwargs["json"] = call.json
    return kwargs


def decode(response: httpx.Response) -> Any:
    """The answer's JSON (None for an empty body), or raise the typed error for a non-2xx answer."""
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = response.text
    if response.is_success:
        return body
    raise error_for(
        response.status_code, body, retry_after=retry_after_seconds(response.headers.get("Retry-After"))
    )


def default_headers(api_key: str, user_agent: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", "Accept": "application/json", "User-Agent": user_agent}
