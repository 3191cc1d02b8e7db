"""Initial-run recall and continuation for the Client Brain (spec: client_brain.txt, "Initial-run recall").

The pipeline, in the spec's order:
1. Two bounded tiers inside the finite 0.5–1 confidence range. The fallback tier fetches up to 200
   candidates ordered by confidence, newest row, then id. When the ticket subject or latest customer
   message has words of at least three characters, the keyword tier fetches up to 200 candidates whose
   key or value (`text`) contains any of them case-insensitively (a containment plan of the retrieval
   engine, brain.search: the first rows in confidence order are searched in memory, the rest through the
   tenant-led trigram index `memory_tenant_trgm`), so a matching memory is not lost to the fallback window.
2. Merge: the fallback order, then keyword hits not already fetched (deduplicated by id).
3. Voice memories first. Each non-voice memory gets the count of normalized words shared with the
   ticket text; positive overlap ranks first (more shared words first), then higher confidence, then the
   fetched order. Memories with no overlap keep the confidence-ordered fetched order (the fallback).
4. Typed admission (the shared guard), then the caps per family (decision 3); the one voice memory is
   the formality one. Valid rows over a cap are counted per family.
5. The prompt is rendered (optionally under `max_chars`) and activity is counted for what it contains.

Retrieval is not a semantic relevance search: no embeddings are used here. Every call sees live rows:
what is kept between calls, the tenant's first rows in tier order, is cached under the tenant scope's
memory state (brain.memory_state), which any write to a Client Brain row changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from django.conf import settings

from brain.activity import memories_record_activity
from brain.caches import DerivedCache, StateCache
from brain.memory_state import memory_state, states_kept
from brain.models import BrainScopeKind, Memory, MemoryStatus
from brain.search import ContainmentPlan, contained, containment_query, window_rows
from brain.search.scoped import CONTAINMENT_ORDER

from . import typed
from .render import render_context
from .types import CONTEXT_MODES, ClientBrainContext, ContextMemory, Mode
from .words import kept_words, keyword_terms, words

FIELDS = ("id", "type", "key", "text", "payload", "confidence")

# The runtime context call asks for the Client Brain on every call (issue 30, section 0): an answer is kept
# per process for the words it was asked with, under the tenant scope's memory state.
_CONTEXTS = StateCache(
    "client-brain-contexts",
    512,
    keyed_on="(tenant, mode, max_chars, caps, the ticket's words, its keyword terms) and the memory state of"
    " the tenant's scope",
)


@dataclass(slots=True)  # hundreds per call: slots make building and reading them cheaper
class Candidate:
    id: int
    type: str
    key: str
    text: str
    payload: Any
    confidence: float
    words: tuple[str, ...]  # kept_words(key, value): what the overlap count compares against
    typed: bool  # typed.is_typed(type, payload): passes typed admission
    tier: str
    position: int = 0
    overlap: tuple[str, ...] = ()

    def with_overlap(self, overlap: tuple[str, ...]) -> Candidate:
        """A copy sharing these words with the ticket (the fallback tier's candidates are shared between
        calls: never changed in place)."""
        return Candidate(
            self.id, self.type, self.key, self.text, self.payload, self.confidence, self.words, self.typed,
            self.tier, self.position, overlap,
        )  # fmt: skip


def tenant_model():
    # brain refers to the tenant by the Memory.tenant relation, never by importing tickets.
    return Memory._meta.get_field("tenant").related_model


def caps_for(tenant) -> dict[str, int]:
    """The settings caps, overridden per family by Tenant.settings["client_brain_caps"] (ints >= 0)."""
    caps = dict(settings.BRAIN_CLIENT_BRAIN_CAPS)
    tenant_settings = tenant.settings if tenant is not None else None
    override = tenant_settings.get("client_brain_caps") if isinstance(tenant_settings, dict) else None
    if isinstance(override, dict):
        for family, value in override.items():
            if family in caps and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                caps[family] = value
    return caps


def _live_within(queryset, low: float, high: float):
    # PostgreSQL orders NaN above every number and keeps ±infinity outside any finite range, so the two
    # bounds exclude NaN and infinities as well as out-of-range values (decision 4).
    return queryset.filter(
        scope_kind=BrainScopeKind.TENANT,
        status=MemoryStatus.ACTIVE,
        type__in=typed.FAMILIES,
        confidence__gte=low,
        confidence__lte=high,
    )


def client_brain_candidates(*, tenant_id: int, low: float = 0.5, high: float = 1.0):
    """Live Client Brain rows of the tenant whose confidence is finite within [low, high]."""
    return _live_within(Memory.objects.for_tenant(tenant_id), low, high)


class KeywordRow(NamedTuple):
    """A row of the keyword tier, read with FIELDS."""

    id: int
    type: str
    key: str
    text: str
    payload: Any
    confidence: float


def keyword_plan(
    *, tenant_id: int, terms: list[str], low: float = 0.5, high: float = 1.0, prepare=KeywordRow._make
) -> ContainmentPlan:
    """The keyword tier as a containment plan of the retrieval engine (brain.search): the first
    BRAIN_CLIENT_BRAIN_TIER_LIMIT `client_brain_candidates()` whose key or value contains any of `terms`,
    case-insensitively, in the tier order; each row read with FIELDS (and created_at) and returned as
    `prepare` makes it (a `KeywordRow` by default). The state is taken before any row is read."""
    limit = settings.BRAIN_CLIENT_BRAIN_TIER_LIMIT
    return ContainmentPlan(
        tenant_id=int(tenant_id),
        terms=terms,
        limit=limit,
        window_size=max(int(settings.BRAIN_CLIENT_BRAIN_KEYWORD_WINDOW), limit),
        live=lambda rows: _live_within(rows, low, high),
        fields=(*FIELDS, "created_at"),
        prepare=prepare,
        state=memory_state(tenant_id, scope_kind=BrainScopeKind.TENANT),
        # The window is cached per name: rows live within another confidence range are another window.
        name="client-brain" if (low, high) == (0.5, 1.0) else f"client-brain-{low}-{high}",
    )


def keyword_rows(
    *, tenant_id: int, terms: list[str], low: float = 0.5, high: float = 1.0
) -> list[KeywordRow]:
    """The keyword tier's rows (FIELDS), through the engine (`keyword_plan`)."""
    return contained(keyword_plan(tenant_id=tenant_id, terms=terms, low=low, high=high))


def keyword_candidates(*, tenant_id: int, terms: list[str], low: float = 0.5, high: float = 1.0):
    """The statement PostgreSQL runs for the keyword tier's terms, as a queryset of the live rows (for
    EXPLAIN and tests of the statement; `keyword_rows` reads the tier): `ILIKE ANY`, the tenant compared as
    bigint (brain.search.containment_query)."""
    return containment_query(keyword_plan(tenant_id=tenant_id, terms=terms, low=low, high=high))


ORDER = CONTAINMENT_ORDER  # confidence, newest, id, all descending: the order of both tiers


class KeptRow(NamedTuple):
    """A live row as both tiers return it, with what ranking and admission need of it, computed once
    while the row is kept in the window (thousands per tenant: a named tuple)."""

    id: int
    type: str
    key: str
    text: str
    payload: Any
    confidence: float
    words: tuple[str, ...]  # kept_words(key, value): what the overlap count compares against
    typed: bool  # typed.is_typed(type, payload): passes typed admission


def _kept(values: tuple) -> KeptRow:
    """A row read with FIELDS as a `KeptRow`."""
    return KeptRow(*values, kept_words(values[2], values[3]), typed.is_typed(values[1], values[4]))


# The fallback tier is the same for every ticket at a memory state: its candidates are built once per window.
_FALLBACK = DerivedCache(
    "client-brain-fallback-tier",
    bound=64,
    keyed_on="(tenant, window name), rebuilt when the containment window's rows (one tuple per memory state of"
    " the tenant's scope) are another object",
)


def _fallback_tier(window: tuple, plan: ContainmentPlan) -> tuple[tuple[Candidate, ...], frozenset[int]]:
    rows = window[: plan.limit]
    candidates = tuple(Candidate(*row, tier="fallback", position=i) for i, row in enumerate(rows))
    return candidates, frozenset(c.id for c in candidates)


def fetch_tiers(
    *, tenant_id: int, subject: str, latest_customer_message: str
) -> tuple[list[Candidate], dict]:
    """Both tiers, merged: fallback order, then keyword hits not already fetched (deduplicated by id).

    Both are plans of the retrieval engine (brain.search): the fallback tier is the beginning of the
    containment window, the keyword tier a containment plan over the window and the rows after it.
    """
    terms = keyword_terms(subject, latest_customer_message)
    plan = keyword_plan(tenant_id=tenant_id, terms=terms, prepare=_kept)
    window = window_rows(plan)
    fallback, fetched = _FALLBACK.get(
        (plan.tenant_id, plan.name), window, lambda: _fallback_tier(window, plan)
    )
    keyword = contained(plan) if terms else []
    merged = list(fallback)
    added: set[int] = set()  # keyword rows merged so far (the fallback's ids are `fetched`)
    for row in keyword:
        if row.id not in fetched and row.id not in added:
            added.add(row.id)
            merged.append(Candidate(*row, tier="keyword", position=len(merged)))
    stats = {
        "fallback": len(fallback),
        "keyword": len(keyword),
        "merged": len(merged),
        "keyword_terms": terms,
    }
    return merged, stats


def rank(candidates: list[Candidate], query_words: list[str]) -> list[Candidate]:
    """Voice first (fetched order); then non-voice by overlap count, confidence, fetched order; then the
    zero-overlap rest in fetched (confidence) order."""
    wanted = frozenset(query_words)
    disjoint = wanted.isdisjoint
    # shared_in(wanted, candidate.words), inlined: hundreds of rows per call, and most share nothing
    candidates = [
        c if disjoint(c.words) else c.with_overlap(tuple(sorted(wanted.intersection(c.words))))
        for c in candidates
    ]
    voice = [c for c in candidates if c.type == typed.VOICE]
    others = [c for c in candidates if c.type != typed.VOICE]
    overlapping = sorted(
        (c for c in others if c.overlap), key=lambda c: (-len(c.overlap), -c.confidence, c.position)
    )
    rest = [c for c in others if not c.overlap]
    return voice + overlapping + rest


def select(
    ranked: list[Candidate], caps: dict[str, int]
) -> tuple[dict[str, list[Candidate]], dict[str, int], int]:
    """Typed admission, then the caps. Returns the sections, omitted valid rows per family, and how many
    fetched rows failed admission."""
    admitted = [candidate for candidate in ranked if candidate.typed]  # typed.is_typed, computed in _kept
    sections: dict[str, list[Candidate]] = {family: [] for family in typed.PROMPT_ORDER}
    omitted = dict.fromkeys(typed.FAMILIES, 0)
    for candidate in admitted:
        family = candidate.type
        # The one voice memory the prompt takes is the formality one; other voice rows are valid but unused.
        eligible = family != typed.VOICE or "formality" in candidate.payload
        if eligible and len(sections[family]) < caps[family]:
            sections[family].append(candidate)
        else:
            omitted[family] += 1
    return sections, omitted, len(ranked) - len(admitted)


def assemble_context(
    *,
    tenant_id: int,
    subject: str = "",
    latest_customer_message: str = "",
    mode: Mode = "initial",
    max_chars: int | None = None,
    tenant=None,
) -> ClientBrainContext:
    """The read path of `client_brain_context()`: everything but recording activity. No writes.

    Exported as `brain.api.client_brain_context_preview` for read-only previews (e.g. a budget preview);
    a real agent run uses `client_brain_context()`, which counts activity. `tenant`: the tenant's row when
    the caller already holds it (its settings give the caps); read by `tenant_id` otherwise.

    Served from `_CONTEXTS` when the same words were asked at the same memory state of the tenant's scope
    (the result depends on the ticket's text only through its words and keyword terms): a write to any
    Client Brain row changes the state, and the next call is assembled afresh. Treat it as read-only.
    """
    if mode not in CONTEXT_MODES:
        raise ValueError(f"mode must be 'initial' or 'continuation', not {mode!r}")
    if tenant is None:
        tenant = tenant_model().objects.filter(pk=tenant_id).only("id", "settings").first()
    elif tenant.pk != tenant_id:
        raise ValueError(f"tenant {tenant.pk} is not tenant_id {tenant_id}")
    caps = caps_for(tenant)
    query_words = words(subject, latest_customer_message)
    key = (
        int(tenant_id),
        mode,
        max_chars,
        tuple(sorted(caps.items())),
        tuple(query_words),
        tuple(keyword_terms(subject, latest_customer_message)),
        tenant is not None,
    )
    with states_kept(tenant_id, [(BrainScopeKind.TENANT, None)]):
        state = memory_state(tenant_id, scope_kind=BrainScopeKind.TENANT)
        return _CONTEXTS.get(
            key,
            state,
            lambda: _assembled(
                tenant_id, subject, latest_customer_message, mode, max_chars, tenant, caps, query_words
            ),
        )


def _assembled(
    tenant_id: int,
    subject: str,
    latest_customer_message: str,
    mode: Mode,
    max_chars: int | None,
    tenant,
    caps: dict[str, int],
    query_words: list[str],
) -> ClientBrainContext:
    candidates, stats = (
        fetch_tiers(tenant_id=tenant_id, subject=subject, latest_customer_message=latest_customer_message)
        if tenant is not None
        else ([], {"fallback": 0, "keyword": 0, "merged": 0, "keyword_terms": []})
    )
    ranked = rank(candidates, query_words)
    chosen, omitted, not_typed = select(ranked, caps)
    sections = {
        family: [
            ContextMemory(
                id=c.id,
                type=c.type,
                key=c.key,
                text=c.text,
                payload=c.payload,
                confidence=c.confidence,
                tier=c.tier,
                overlap_words=c.overlap,
            )
            for c in items
        ]
        for family, items in chosen.items()
    }
    rendered = render_context(sections, omitted=omitted, max_chars=max_chars)
    in_prompt = set(rendered.memory_ids)
    sections = {family: [m for m in items if m.id in in_prompt] for family, items in sections.items()}
    trace = {
        "query_words": query_words,
        "fetched": {key: stats[key] for key in ("fallback", "keyword", "merged")},
        "not_typed": not_typed,
        "memories": [
            {"id": m.id, "type": m.type, "tier": m.tier, "overlap_words": list(m.overlap_words)}
            for family in typed.PROMPT_ORDER
            for m in sections[family]
        ],
    }
    return ClientBrainContext(
        tenant_id=tenant_id,
        mode=mode,
        sections=sections,
        omitted=omitted,
        omitted_for_budget=rendered.omitted_for_budget,
        caps=caps,
        prompt=rendered.text,
        memory_ids=rendered.memory_ids,
        reloaded=any(chosen.values()),
        trace=trace,
    )


def client_brain_context(
    *,
    tenant_id: int,
    subject: str = "",
    latest_customer_message: str = "",
    mode: Mode = "initial",
    max_chars: int | None = None,
    tenant=None,
) -> ClientBrainContext:
    """The tenant's Client Brain context for a ticket-agent run (initial or continuation).

    Tenant-scoped; sees live rows every call (the module docstring says what is kept between calls).
    Side effect: one recorded activity for each memory in the returned prompt (what was selected), added to
    `MemoryActivity` by the next drain (brain/activity.py). `reloaded` is False when no eligible row was present (the context is
    then empty). Raises ValueError for an unknown mode.
    """
    context = assemble_context(
        tenant_id=tenant_id,
        subject=subject,
        latest_customer_message=latest_customer_message,
        mode=mode,
        max_chars=max_chars,
        tenant=tenant,
    )
    memories_record_activity(tenant_id=tenant_id, memory_ids=context.memory_ids)
    return context


__all__ = [
    "assemble_context",
    "caps_for",
    "client_brain_candidates",
    "client_brain_context",
]
