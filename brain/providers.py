"""The LLM provider interface (decision 5): extraction, the formation judge, chat mining, suggestions, Brain-ask.

Every LLM-shaped job is a named *task* with a JSON-in/JSON-out contract. A module that needs one registers
it once with `register_task(name, system_prompt=..., local=fn)`: `local` is the deterministic
implementation the default `LocalProvider` runs (no key, no network), `system_prompt` is what the
OpenAI-compatible provider sends. Callers do `get_provider().run(task, payload)` and get a dict back.

Chosen in settings like every pluggable part (CONVENTIONS.md):
    BRAIN_LLM_PROVIDER = {"BACKEND": "brain.providers.LocalProvider"}
    BRAIN_LLM_PROVIDER = {"BACKEND": "brain.providers.OpenAICompatibleProvider",
                          "BASE_URL": "https://api.openai.com/v1", "MODEL": "gpt-4o-mini", "API_KEY": "..."}
When the configured provider needs a key that is missing, `is_usable()` is False and `unusable_reason`
is "provider_key_missing": learning records a skip with that reason rather than failing.

Spend (issue 15): a metered provider (one that costs money: the OpenAI-compatible one) called inside
`spend_scope(tenant_id=...)` checks the tenant's daily limits before the call (`BudgetExhausted` past
them) and counts the call and its tokens in `ProviderSpend` after it. Limits: `BRAIN_LLM_DAILY_LIMITS`
({"CALLS": n, "TOKENS": n}, None = no limit), overridden per tenant by Tenant.settings["llm_daily_limits"]
({"calls": n, "tokens": n}). Learning and suggestions open the scope.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings
from django.utils.module_loading import import_string

from .caches import memoize


class ProviderError(Exception):
    """The provider could not answer (network, HTTP error, malformed JSON). Callers may retry."""


class ProviderKeyMissing(ProviderError):
    reason = "provider_key_missing"


class BudgetExhausted(ProviderError):
    """The tenant's daily LLM calls or tokens are spent: the call was not made. Not worth a retry today."""

    reason = "budget_exhausted"


# The tenant whose spend the provider calls of this context count against (None: not metered).
_spend_tenant: ContextVar[int | None] = ContextVar("brain_spend_tenant", default=None)


@contextmanager
def spend_scope(*, tenant_id: int) -> Iterator[None]:
    """Count (and limit) the metered provider calls made inside against `tenant_id`'s daily spend."""
    token = _spend_tenant.set(tenant_id)
    try:
        yield
    finally:
        _spend_tenant.reset(token)


@dataclass(frozen=True)
class DailyLimits:
    calls: int | None
    tokens: int | None


def _limit(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def daily_limits(tenant_id: int) -> DailyLimits:
    """The settings' daily limits, overridden by the tenant's own (`llm_daily_limits`); None = no limit."""
    from .models import ProviderSpend

    defaults = dict(getattr(settings, "BRAIN_LLM_DAILY_LIMITS", {}) or {})
    limits = {"calls": _limit(defaults.get("CALLS")), "tokens": _limit(defaults.get("TOKENS"))}
    tenant_model = ProviderSpend._meta.get_field("tenant").related_model
    tenant_settings = tenant_model.objects.filter(pk=tenant_id).values_list("settings", flat=True).first()
    override = tenant_settings.get("llm_daily_limits") if isinstance(tenant_settings, dict) else None
    if isinstance(override, dict):
        for name in ("calls", "tokens"):
            if name in override:
                limits[name] = _limit(override[name])
    return DailyLimits(**limits)


def _today():
    from django.utils import timezone

    return timezone.localdate()


def spend_today(tenant_id: int) -> tuple[int, int]:
    """(calls, tokens) the tenant has spent today."""
    from .models import ProviderSpend

    row = (
        ProviderSpend.objects.for_tenant(tenant_id)
        .filter(day=_today())
        .values_list("calls", "tokens")
        .first()
    )
    return row or (0, 0)


def budget_exhausted(tenant_id: int) -> str | None:
    """Why the tenant may make no more metered calls today, or None while it may."""
    limits = daily_limits(tenant_id)
    if limits.calls is None and limits.tokens is None:
        return None
    calls, tokens = spend_today(tenant_id)
    if limits.calls is not None and calls >= limits.calls:
        return f"budget_exhausted: {calls} of {limits.calls} LLM calls spent today"
    if limits.tokens is not None and tokens >= limits.tokens:
        return f"budget_exhausted: {tokens} of {limits.tokens} LLM tokens spent today"
    return None


def spend_record(*, tenant_id: int, calls: int, tokens: int) -> None:
    """Add to the tenant's spend today: one upsert, atomic under concurrent workers."""
    from django.db import connection

    from .models import ProviderSpend

    table = ProviderSpend._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (tenant_id, day, calls, tokens, updated_at) VALUES (%s, %s, %s, %s, now()) "
            "ON CONFLICT (tenant_id, day) DO UPDATE SET calls = {t}.calls + EXCLUDED.calls, "
            "tokens = {t}.tokens + EXCLUDED.tokens, updated_at = now()".replace("{t}", table),
            [tenant_id, _today(), calls, tokens],
        )


@dataclass(frozen=True)
class Task:
    name: str
    system_prompt: str
    local: Callable[[dict[str, Any]], dict[str, Any]]


_TASKS: dict[str, Task] = {}


def register_task(
    name: str, *, system_prompt: str, local: Callable[[dict[str, Any]], dict[str, Any]]
) -> Task:
    task = Task(name=name, system_prompt=system_prompt, local=local)
    _TASKS[name] = task
    return task


def get_task(name: str) -> Task:
    try:
        return _TASKS[name]
    except KeyError:
        raise ProviderError(f"no provider task named {name!r} is registered") from None


class LLMProvider:
    """Base class. `run(task, payload)` returns the task's JSON answer as a dict.

    A metered provider implements `complete(task, payload) -> (answer, tokens)`; `run` checks and counts the
    spend around it. An unmetered one (costs nothing) overrides `run` itself.
    """

    name = "base"

    def __init__(self, **options: Any):
        self.options = options

    @property
    def unusable_reason(self) -> str | None:
        return None

    def is_usable(self) -> bool:
        return self.unusable_reason is None

    def run(self, task: str, payload: dict[str, Any]) -> dict[str, Any]:
        tenant_id = _spend_tenant.get()
        if tenant_id is not None:  # checked before the call: past the limit, the call is not made
            exhausted = budget_exhausted(tenant_id)
            if exhausted:
                raise BudgetExhausted(exhausted)
        answer, tokens = self.complete(task, payload)
        if tenant_id is not None:
            spend_record(tenant_id=tenant_id, calls=1, tokens=tokens)
        return answer

    def complete(self, task: str, payload: dict[str, Any]) -> tuple[dict[str, Any], int]:
        raise NotImplementedError


class LocalProvider(LLMProvider):
    """Deterministic, offline, needs no key: runs each task's registered local implementation."""

    name = "local"

    def run(self, task: str, payload: dict[str, Any]) -> dict[str, Any]:
        return get_task(task).local(payload)


class OpenAICompatibleProvider(LLMProvider):
    """Chat completions with JSON output against any OpenAI-compatible base URL."""

    name = "openai"

    @property
    def base_url(self) -> str:
        return self.options.get("BASE_URL", "https://api.openai.com/v1").rstrip("/")

    @property
    def unusable_reason(self) -> str | None:
        return None if self.options.get("API_KEY") else ProviderKeyMissing.reason

    def complete(self, task: str, payload: dict[str, Any]) -> tuple[dict[str, Any], int]:
        if not self.is_usable():
            raise ProviderKeyMissing("BRAIN_LLM_API_KEY is not set")
        spec = get_task(task)
        body = {
            "model": self.options.get("MODEL", "gpt-4o-mini"),
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": spec.system_prompt + "\nAnswer with one JSON object only."},
                # Payloads carry untrusted text (tickets, memories): sent as data, never as instructions.
                {"role": "user", "content": json.dumps(payload, ensure_ascii=False, default=str)},
            ],
        }
        try:
            response = httpx.post(
                f"{self.base_url}/chat/completions",
                json=body,
                headers={"Authorization": f"Bearer {self.options['API_KEY']}"},
                timeout=float(self.options.get("TIMEOUT", 30)),
            )
            response.raise_for_status()
            data = response.json()
            content = data["choices"][0]["message"]["content"]
            answer = json.loads(content)
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise ProviderError(f"{self.name} provider failed on task {task!r}: {exc}") from exc
        if not isinstance(answer, dict):
            raise ProviderError(f"{self.name} provider answered {type(answer).__name__}, not a JSON object")
        return answer, _tokens_used(data, body, content)


def _tokens_used(data: dict[str, Any], body: dict[str, Any], content: str) -> int:
    """The tokens the endpoint reports (`usage.total_tokens`), else an estimate: 4 characters a token."""
    usage = data.get("usage") if isinstance(data, dict) else None
    total = usage.get("total_tokens") if isinstance(usage, dict) else None
    if isinstance(total, int) and not isinstance(total, bool) and total >= 0:
        return total
    return (len(json.dumps(body["messages"], ensure_ascii=False)) + len(content)) // 4


@memoize("llm-provider", maxsize=8, keyed_on="the BRAIN_LLM_PROVIDER backend and its options (JSON)")
def _load(backend: str, options_json: str) -> LLMProvider:
    return import_string(backend)(**json.loads(options_json))


def get_provider() -> LLMProvider:
    config = dict(settings.BRAIN_LLM_PROVIDER)
    backend = config.pop("BACKEND")
    return _load(backend, json.dumps(config, sort_keys=True))
