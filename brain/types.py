"""Plain typed values that cross `brain`'s public API (brain/api.py). No querysets leave `brain`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .models import BrainScopeKind, MemorySource, MemoryStatus, WriteSurface

PromoteResult = Literal["added", "reinforced", "superseded", "rejected"]


@dataclass
class MemoryCandidate:
    """A proposed memory from any write surface; `promote()` decides what becomes of it.

    `injected_texts` / `injected_memory_ids` are what the proposing run was given (memories injected into
    its context): the gate rejects a candidate that merely echoes them. `system_prompt` is the agent's
    own system prompt or policy text: a candidate restating it is rejected too.
    """

    tenant_id: int
    type: str
    text: str
    surface: str = WriteSurface.IMPORT
    scope_kind: str = BrainScopeKind.TENANT
    scope_id: str = ""
    key: str = ""
    payload: dict[str, Any] = field(default_factory=dict)
    confidence: float | None = 0.7
    status: str = MemoryStatus.ACTIVE
    strength: str = ""
    category: str = ""
    source: str = MemorySource.DERIVED
    provider: str = ""
    campaign_ids: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    provenance: list[dict[str, Any]] = field(default_factory=list)
    actor: str = "process:unknown"
    # Gate context.
    template: str | None = None
    system_prompt: str = ""
    injected_texts: list[str] = field(default_factory=list)
    injected_memory_ids: list[int] = field(default_factory=list)
    # Untrusted text the candidate was derived from (a ticket's reply and subject): an instruction aimed at the
    # model anywhere in it rejects the candidate, even when the sentence kept looks harmless on its own.
    source_texts: list[str] = field(default_factory=list)
    # Operators' manual memories may skip the judge, never the gate.
    skip_judge: bool = False
    # A newer value for the same key supersedes the old memory (when the judge agrees).
    supersedes_id: int | None = None


@dataclass(frozen=True)
class PromoteOutcome:
    result: PromoteResult
    memory_id: int | None
    reason: str = ""
    # The memory this one superseded, or the one a reinforcement landed on.
    related_memory_id: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def written(self) -> bool:
        return self.result != "rejected"
