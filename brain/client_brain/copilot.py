"""Copilot's memory tool: the tenant's Client Brain rows for an operator's query.

Rows with confidence outside the finite 0–1 domain (NaN, infinities, < 0, > 1, missing) are excluded in
the query itself, before the 30-row limit, so invalid legacy rows never take a slot (decision 4).
Rows whose key or value contains a query word come first (most shared words, then confidence); the
rest of the 30 slots are filled in confidence order. Read-only: no activity is recorded.
"""

from __future__ import annotations

from django.conf import settings

from . import typed
from .recall import ORDER, client_brain_candidates, keyword_rows
from .types import CopilotMemory
from .words import keyword_terms, shared_words, words

FIELDS = ("id", "type", "key", "text", "payload", "confidence")


def client_brain_copilot(*, tenant_id: int, query: str = "") -> list[CopilotMemory]:
    """At most BRAIN_CLIENT_BRAIN_COPILOT_LIMIT rows, all with finite confidence within [0, 1]. Tenant-scoped."""
    limit = settings.BRAIN_CLIENT_BRAIN_COPILOT_LIMIT
    base = client_brain_candidates(tenant_id=tenant_id, low=0.0, high=1.0)
    query_words = set(words(query))
    terms = keyword_terms(query)
    matches = keyword_rows(tenant_id=tenant_id, terms=terms, low=0.0, high=1.0) if terms else []
    scored = [(row, shared_words(query_words, row[2], row[3])) for row in matches]
    scored.sort(key=lambda item: (-len(item[1]), -item[0][5]))  # stable: fetched order breaks ties
    chosen = scored[:limit]
    if len(chosen) < limit:
        seen = {row[0] for row, _ in chosen}
        fill = base.exclude(id__in=seen).order_by(*ORDER).values_list(*FIELDS)[: limit - len(chosen)]
        chosen += [(row, ()) for row in fill]
    return [
        CopilotMemory(
            id=row[0],
            type=row[1],
            key=row[2],
            text=row[3],
            confidence=row[5],
            typed=typed.is_typed(row[1], row[4]),
            overlap_words=overlap,
        )
        for row, overlap in chosen
    ]
