"""`Brain` (sync) and `AsyncBrain` (asyncio): the same operations on httpx, with retries and pagination.

from brain_client import Brain
with Brain("https://brain.example.com", api_key="brn_...") as brain:
    agent_id = brain.list_agents(name="Support assistant")["results"][0]["id"]
    context = brain.agent_context(agent_id, conversation="Where is my order?")
    for ticket in brain.iter_tickets(status="solved"):
        ...
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any

import httpx

from ._transport import (
    API_PREFIX,
    CONNECT_ERRORS,
    Call,
    RetryPolicy,
    decode,
    default_headers,
    request_kwargs,
    unreachable,
)
from .operations import Operations

USER_AGENT = "brain-client-python/0.1"
DEFAULT_TIMEOUT = 30.0


def _page_call(call: Call, limit: int, offset: int) -> Call:
    return replace(call, params={**(call.params or {}), "limit": limit, "offset": offset})


def _page_rows(page: Any) -> tuple[list[Any], int | None]:
    if not isinstance(page, dict):
        return [], None
    return list(page.get("results") or []), page.get("count")


def _finished(rows: list[Any], offset: int, count: int | None, page_size: int) -> bool:
    return not rows or (count is not None and offset >= count) or (count is None and len(rows) < page_size)


class Brain(Operations[Any, Iterator[Any]]):
    """The synchronous client. `sleep` is how it waits between retries (replaceable, e.g. in tests)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        http_client: httpx.Client | None = None,
    ):
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._http = http_client or httpx.Client(timeout=timeout)
        self._http.base_url = base_url.rstrip("/") + API_PREFIX
        self._http.headers.update(default_headers(api_key, USER_AGENT))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Brain:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _send(self, call: Call) -> Any:
        attempt = 0
        while True:
            try:
                response = self._http.request(call.method, call.path, **request_kwargs(call))
            except CONNECT_ERRORS as error:  # never reached the server: retried like a 503
                if attempt >= self.retry.max_retries:
                    raise unreachable(error, self._http.base_url) from error
                self._sleep(self.retry.delay(attempt, None))
                attempt += 1
                continue
            if response.status_code in self.retry.statuses and attempt < self.retry.max_retries:
                self._sleep(self.retry.delay(attempt, response))
                attempt += 1
                continue
            return decode(response)

    def _paginate(self, call: Call, page_size: int) -> Iterator[Any]:
        offset = 0
        while True:
            rows, count = _page_rows(self._send(_page_call(call, page_size, offset)))
            yield from rows
            offset += len(rows)
            if _finished(rows, offset, count, page_size):
                return


class AsyncBrain(Operations[Awaitable[Any], AsyncIterator[Any]]):
    """The asyncio client: every operation is awaited; `iter_*` are async iterators."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        http_client: httpx.AsyncClient | None = None,
    ):
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._http.base_url = base_url.rstrip("/") + API_PREFIX
        self._http.headers.update(default_headers(api_key, USER_AGENT))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncBrain:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    async def _send(self, call: Call) -> Any:  # type: ignore[override]
        attempt = 0
        while True:
            try:
                response = await self._http.request(call.method, call.path, **request_kwargs(call))
            except CONNECT_ERRORS as error:  # never reached the server: retried like a 503
                if attempt >= self.retry.max_retries:
                    raise unreachable(error, self._http.base_url) from error
                await self._sleep(self.retry.delay(attempt, None))
                attempt += 1
                continue
            if response.status_code in self.retry.statuses and attempt < self.retry.max_retries:
                await self._sleep(self.retry.delay(attempt, response))
                attempt += 1
                continue
            return decode(response)

    async def _paginate(self, call: Call, page_size: int) -> AsyncIterator[Any]:  # type: ignore[override]
        offset = 0
        while True:
            rows, count = _page_rows(await self._send(_page_call(call, page_size, offset)))
            for row in rows:
                yield row
            offset += len(rows)
            if _finished(rows, offset, count, page_size):
                return
