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
"""

from __future__ import annotations

import json
from collections.abc import Callable
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
    """Base class. `run(task, payload)` returns the task's JSON answer as a dict."""

    name = "base"
    needs_key = False

    def __init__(self, **options: Any):
        self.options = options

    @property
    def unusable_reason(self) -> str | None:
        return None

    def is_usable(self) -> bool:
        return self.unusable_reason is None

    def run(self, task: str, payload: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError


class LocalProvider(LLMProvider):
    """Deterministic, offline, needs no key: runs each task's registered local implementation."""

    name = "local"

    def run(self, task: str, payload: dict[str, Any]) -> dict[str, Any]:
        return get_task(task).local(payload)


class OpenAICompatibleProvider(LLMProvider):
    """Chat completions with JSON output against any OpenAI-compatible base URL."""

    name = "openai"
    needs_key = True

    @property
    def base_url(self) -> str:
        return self.options.get("BASE_URL", "https://api.openai.com/v1").rstrip("/")

    @property
    def unusable_reason(self) -> str | None:
        return None if self.options.get("API_KEY") else ProviderKeyMissing.reason

    def run(self, task: str, payload: dict[str, Any]) -> dict[str, Any]:
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
            content = response.json()["choices"][0]["message"]["content"]
            answer = json.loads(content)
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise ProviderError(f"{self.name} provider failed on task {task!r}: {exc}") from exc
        if not isinstance(answer, dict):
            raise ProviderError(f"{self.name} provider answered {type(answer).__name__}, not a JSON object")
        return answer


@memoize("llm-provider", maxsize=8, keyed_on="the BRAIN_LLM_PROVIDER backend and its options (JSON)")
def _load(backend: str, options_json: str) -> LLMProvider:
    return import_string(backend)(**json.loads(options_json))


def get_provider() -> LLMProvider:
    config = dict(settings.BRAIN_LLM_PROVIDER)
    backend = config.pop("BACKEND")
    return _load(backend, json.dumps(config, sort_keys=True))
