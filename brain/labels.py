"""The product's words for the codes a memory row stores (issue 28, item 5): one vocabulary for every operator
page. A page shows the label and keeps the code on hover for support (`brain/templatetags/brain_labels.py`:
`{{ value|coded:"strength" }}` → `<span title="hard_rule">Rule</span>`); the stored values never change.

The labels are the spec's (intelligence_and_learning.txt: Rule, Preference, Pattern, Note; the statuses;
client_brain.txt: Business, Voice, Issues, Process) and the TextChoices' of brain/models.py; a code no map
knows reads as itself with its underscores spaced (a legacy value still shows something).
"""

from __future__ import annotations

from .formation.gate import GATE_REASON_WORDS
from .models import (
    BrainScopeKind,
    MemoryCategory,
    MemorySource,
    MemoryStatus,
    MemoryStrength,
    MemoryType,
    WriteSurface,
)

# The ad platforms an agent memory may be scoped to (brain.agent_memories.PROVIDERS), by their names.
PROVIDER_LABELS = {
    "meta_ads": "Meta Ads",
    "google_ads": "Google Ads",
    "tiktok_ads": "TikTok Ads",
    "dv360": "Display & Video 360",
}

# What formation did with a candidate (PromoteOutcome.result), and what a decision's learning is waiting for.
RESULT_LABELS = {
    "added": "kept as a new memory",
    "reinforced": "confirmed a memory again",
    "superseded": "replaced an older memory",
    "rejected": "not kept",
    "skipped": "not learned",
    "pending": "learning in progress",
}

# Why formation decided as it did (the judge's and the evidence rules' reasons; the gate's are GATE_REASON_WORDS),
# and why a decision was not learned from (intelligence.services.runs).
FORMATION_REASON_WORDS = {
    "new_fact": "nothing like it was known",
    "entities_differ": "it is about something else than the memories like it",
    "same_fact": "a memory already says this",
    "same_text": "a memory already says this, word for word",
    "same_key_same_value": "a memory already says this",
    "same_key_new_value": "it updates what a memory said",
    "newer_value": "it updates what a memory said",
    "evidence_turned": "more tickets now support it than the memory it replaced",
    "manual": "written by an operator",
    "untyped_shape": "its shape is not one the agent's prompt can use",
    "verdict_cited": "the answer cited it",
    "verdict_present": "it was in the prompt, not cited",
    "verdict_confidence_below_floor": "its confidence fell below the floor",
    "verdict_trace_spent": "that call had already moved it",
    "verdict_not_graded": "Client Brain memories are not graded by outcomes",
    "setting_off": "the learning settings leave this kind of decision out",
    "outside_learning_window": "the run is older than the learning window",
    **GATE_REASON_WORDS,
}

_LABELS: dict[str, dict[str, str]] = {
    "category": dict(MemoryCategory.choices),
    "strength": dict(MemoryStrength.choices),
    "status": dict(MemoryStatus.choices),
    "source": dict(MemorySource.choices),
    "surface": dict(WriteSurface.choices),
    "type": dict(MemoryType.choices),
    "scope_kind": dict(BrainScopeKind.choices),
    "provider": PROVIDER_LABELS,
    "result": RESULT_LABELS,
    "reason": FORMATION_REASON_WORDS,
    # An action agent's proposed action types and their payloads' fields are the agent's own words: spaced.
    "action": {},
}
KINDS = tuple(_LABELS)


def label(kind: str, code: str | None) -> str:
    """The product's word for `code` of `kind` (one of KINDS): `label("strength", "hard_rule")` → "Rule".
    An unknown code reads as itself, underscores spaced ("" for an empty one)."""
    code = "" if code is None else str(code)
    return _LABELS[kind].get(code) or code.replace("_", " ")


def choices(kind: str, codes) -> list[tuple[str, str]]:
    """(code, label) pairs for a form's choices, in the order of `codes`."""
    return [(code, label(kind, code)) for code in codes]
