"""Plain values Client Brain returns through `brain.api` (no querysets leave `brain`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

Mode = Literal["initial", "continuation"]
CONTEXT_MODES: tuple[str, ...] = get_args(Mode)
Tier = Literal["fallback", "keyword"]


@dataclass(frozen=True)
class ContextMemory:
    """One memory selected for the prompt, with why it was selected (its trace)."""

    id: int
    type: str
    key: str
    text: str
    payload: dict[str, Any]
    confidence: float
    # The recall tier that fetched it first (the merge keeps the fallback position of a row both found).
    tier: Tier
    # Shared normalized words between the ticket text and the memory's key or value.
    overlap_words: tuple[str, ...] = ()

    @property
    def tag(self) -> str:
        return f"[mem:{self.id}]"


@dataclass
class ClientBrainContext:
    """The tenant's Client Brain context for one ticket-agent run.

    `sections` holds the selected typed memories per family (voice, business, issues, process), in
    rank order. `omitted` counts valid typed candidates left out by the caps, per family;
    `omitted_for_budget` those left out because the rendered prompt hit `max_chars`. `prompt` is the
    rendered text with a `[mem:ID]` tag per memory; `memory_ids` are exactly the memories in it.
    """

    tenant_id: int
    mode: Mode
    sections: dict[str, list[ContextMemory]]
    omitted: dict[str, int]
    omitted_for_budget: dict[str, int]
    caps: dict[str, int]
    prompt: str
    memory_ids: list[int]
    # Continuation: True when eligible rows were present and fresh context was loaded.
    reloaded: bool
    trace: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for memories in data["sections"].values():
            for item in memories:
                item["tag"] = f"[mem:{item['id']}]"
                item["overlap_words"] = list(item["overlap_words"])
        return data


@dataclass(frozen=True)
class CopilotMemory:
    """A row Copilot's memory tool returns (confidence always finite within 0–1)."""

    id: int
    type: str
    key: str
    text: str
    confidence: float
    typed: bool
    overlap_words: tuple[str, ...] = ()

    @property
    def tag(self) -> str:
        return f"[mem:{self.id}]"
