"""The hard backstop of formation: whatever a judge decided, a duplicate of a standing memory reinforces it
instead of becoming a second copy (direct SQL over the scope's rows, no retrieval ranking); and the same rules
asked about a fixed set of rows (`duplicates_among`) or an agent's recent notes (`recent_note_duplicate`)."""

from __future__ import annotations

from dataclasses import asdict

from ..models import MemoryStatus, MemoryType
from ..search import NeighbourPlan, NeighbourRow, neighbours
from .entities import facts_differ
from .judge import (
    ISSUE_KEY_PREFIX,
    LIVE_STATUSES,
    Neighbour,
    _scope_rows,
    _score,
    formation_setting,
    judge_same_fact,
    same_issue_key,
)
from .text import normalise


def duplicate_types(memory_type: str) -> tuple[str, ...]:
    """The memory types a candidate of `memory_type` may duplicate (empty: every type of its scope).

    One rule of duplication across surfaces: a write is swallowed only by a memory its writer's own view
    shows. An operator's agent memory (the Intelligence tab) is therefore a duplicate only of another
    agent memory, never of an agent's `memory_append` note or a mined memory, which the tab never shows
    and the runtime never injects; the new memory is written and linked to that row by the graph.
    """
    return (MemoryType.AGENT_MEMORY,) if memory_type == MemoryType.AGENT_MEMORY else ()


def backstop_duplicate(
    *,
    tenant_id: int,
    scope_kind: str,
    scope_id: str,
    text: str,
    vector=None,
    model: str = "",
    key: str = "",
    types: tuple[str, ...] = (),
    exclude_id: int | None = None,
    issue_key: str = "",
) -> Neighbour | None:
    """The existing memory of the scope that `text` duplicates, or None. Direct SQL, no retrieval ranking.

    A duplicate: the same normalised text, or cosine ≥ BACKSTOP_COSINE, or trigram similarity ≥
    BACKSTOP_TRIGRAM, or content-token overlap ≥ BACKSTOP_TOKEN_OVERLAP — unless the two name different
    entities or numbers (`entities.facts_differ`: another customer, place or amount is another fact).
    Keys are not consulted: a key derived from wording must not let the same fact in twice. `types`
    limits the rows that may count (see `duplicate_types`); empty means every type of the scope.
    `exclude_id`: a memory being edited is no duplicate of itself. `issue_key`: the candidate is an issue of
    that key, which no issue of another key duplicates (an issue's key is its problem, `local_judge`).
    """
    plan = NeighbourPlan(
        tenant_id=tenant_id,
        scope_kind=scope_kind,
        scope_id=scope_id,
        statuses=LIVE_STATUSES,
        text=text,
        limit=20,
        vector=vector,
        model=model,
        max_distance=1.0 - formation_setting("BACKSTOP_COSINE"),
        by_id=True,
        types=types,
    )
    return _best_duplicate(
        text,
        [
            n
            for n in _score(neighbours(plan), text, vector)
            if n.id != exclude_id and not (issue_key and _other_issue(issue_key, n.key))
        ],
    )


def _other_issue(issue_key: str, key: str | None) -> bool:
    return (key or "").startswith(ISSUE_KEY_PREFIX) and not same_issue_key(issue_key, key)


def backstop_match(text: str, n: Neighbour) -> bool:
    """The backstop's rule for one scored neighbour: the same normalised text, or cosine / trigram / token
    overlap at its threshold, unless the two name different entities or numbers (`entities.facts_differ`)."""
    if normalise(n.text) == normalise(text):
        return True
    if facts_differ(text, n.text):
        return False
    return (
        (n.cosine or 0.0) >= formation_setting("BACKSTOP_COSINE")
        or n.lexical >= formation_setting("BACKSTOP_TRIGRAM")
        or n.token_overlap >= formation_setting("BACKSTOP_TOKEN_OVERLAP")
    )


def _best_duplicate(text: str, scored: list[Neighbour]) -> Neighbour | None:
    norm = normalise(text)
    best: Neighbour | None = None
    for n in scored:
        if not backstop_match(text, n):
            continue
        exact = normalise(n.text) == norm
        if best is None or (1.0 if exact else n.closeness) > best.closeness:
            best = n if not exact else Neighbour(**{**asdict(n), "lexical": 1.0})
    return best


def duplicates_among(
    *, tenant_id: int, scope_kind: str, scope_id: str, text: str, ids, vector=None, model: str = ""
) -> list[Neighbour]:
    """The rows among `ids` (of the scope, in any status) that `text` repeats by formation's rules (the backstop's
    or the deterministic judge's "same fact"), closest first: formation asked about a fixed set of rows (e.g.
    dismissed suggestions) rather than the live scope."""
    ids = [int(i) for i in ids]
    if not ids:
        return []
    plan = NeighbourPlan(
        tenant_id=tenant_id,
        scope_kind=scope_kind,
        scope_id=scope_id,
        statuses=tuple(MemoryStatus.values),
        text=text,
        limit=0,
        vector=vector,
        model=model,
        ids=tuple(ids),
        by_id=True,
    )
    wanted = set(ids)
    found = [
        n
        for n in _score(neighbours(plan), text, vector)
        if n.id in wanted
        and (
            backstop_match(text, n)
            or judge_same_fact(text, n.text, cosine=n.cosine, token_overlap=n.token_overlap)
        )
    ]
    return sorted(found, key=lambda n: (-n.closeness, n.id))


def recent_note_duplicate(*, tenant_id: int, scope_kind: str, scope_id: str, text: str) -> Neighbour | None:
    """memory_append's own discipline: the agent's latest notes, with a looser overlap than the backstop."""
    recent = (
        _scope_rows(tenant_id, scope_kind, scope_id)
        .order_by("-created_at", "-id")
        .values_list("id", "key", "text", "status")[: formation_setting("RECENT_NOTES")]
    )
    recent = [NeighbourRow(*values, trgm=None, distance=None) for values in recent]
    threshold = formation_setting("RECENT_NOTE_OVERLAP")
    norm = normalise(text)
    for n in _score(recent, text, None):
        if normalise(n.text) == norm or (n.token_overlap >= threshold and not facts_differ(text, n.text)):
            return n
    return None
