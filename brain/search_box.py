"""The operators' search boxes — the Intelligence tab's memory search and the Client Brain page's search —
through the retrieval engine (brain.search): typos (the trigram tier: "parcle" finds "parcel"), stems (full
text: "parcels" finds "parcel"), meaning (the vector tier), best match first, under the page's filters.

A box lists what the engine found relevant, ranked; then the rows that only contain the typed text literally
and that the engine does not return (a part of a word such as "arc", a tag, a row whose confidence is
invalid, which recall never returns): a box never finds less than the substring search it replaced did.

Relevant: found by full text or the trigram tier, or by the vector tier alone with a cosine similarity of at
least `BRAIN_SEARCH_BOX["VECTOR_FLOOR"]` — the vector tier ranks every row of the scope by similarity, so
without a floor every query would "find" the whole page.

Read-only and tenant-scoped (the engine filters on the tenant; `rows` is the caller's tenant-scoped
queryset). This is not the Client Brain's recall into prompts (brain.client_brain.recall: word overlap, as
client_brain.txt says), which it leaves as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Q, QuerySet

from brain.embedders import EmbedderError
from brain.search import recall
from brain.search.sql import KEYED_TERM_ROWS, rows_holding_term
from brain.search.types import MAX_LIMIT

# The box shows at most this many of the engine's matches (the engine's own cap) and as many literal ones.
SEARCH_BOX_LIMIT = MAX_LIMIT
# Chosen on all-MiniLM-L6-v2 (the default embedder): related short queries score 0.35-0.6 against the rows
# they mean ("money back" -> a refund rule 0.36, "currency" -> "in euros" 0.37), unrelated ones below 0.2.
DEFAULTS = {"VECTOR_FLOOR": 0.35}


def search_box_settings() -> dict[str, Any]:
    return {**DEFAULTS, **(getattr(settings, "BRAIN_SEARCH_BOX", None) or {})}


@dataclass(frozen=True)
class SearchBoxResult:
    """The ids a box shows, best first: the engine's relevant matches, then the literal-only ones.
    `capped`: more rows may match than are listed. `by_meaning`: False when the embedder was unavailable
    and the box matched words only (typos and stems still)."""

    ids: list[int]
    capped: bool
    by_meaning: bool


def _relevance(memory, floor: float) -> float | None:
    """The memory's score for the box, or None when the box does not list it: a similarity under the floor
    neither lists a memory nor lifts one that the words found (its share of the fused score is taken out)."""
    tiers = memory.explanation.get("tiers") or {}
    vector = tiers.get("vector")
    if vector is None or vector["score"] >= floor:
        return memory.score
    if "fts" in tiers or "trigram" in tiers:
        return memory.score - vector["rrf"]
    return None


def _engine_ids(tenant_id: int, query: str, engine_filters: dict[str, Any]) -> tuple[list[int], bool]:
    """The engine's relevant matches, best first (hybrid; words only when the embedder fails)."""
    floor = float(search_box_settings()["VECTOR_FLOOR"])
    common = {"tenant_id": tenant_id, "query": query, "limit": SEARCH_BOX_LIMIT, "rerank": False}
    try:
        found, by_meaning = recall(mode="hybrid", **common, **engine_filters), True
    except EmbedderError:  # the page still searches words (typos, stems) when the model cannot answer
        found, by_meaning = recall(mode="lexical", **common, **engine_filters), False
    scored = [(score, m.id) for m in found if (score := _relevance(m, floor)) is not None]
    return [memory_id for _, memory_id in sorted(scored, key=lambda item: (-item[0], item[1]))], by_meaning


def literal_in_text(*, tenant_id: int, needle: str) -> Q:
    """`needle` in a row's key or text (ILIKE '%needle%'), narrowed to the rows the tenant's trigram keys say
    may hold it when they are few (`rows_holding_term`, at most KEYED_TERM_ROWS): under the tenant wall ILIKE
    uses no index, so a box's literal search would otherwise read every row of a large tenant (README)."""
    literal = Q(key__icontains=needle) | Q(text__icontains=needle)
    with connection.cursor() as cursor:
        holding = rows_holding_term(cursor, tenant_id=tenant_id, term=needle, limit=KEYED_TERM_ROWS)
    return literal if holding is None else literal & Q(id__in=holding)


def search_box(
    *, tenant_id: int, query: str, rows: QuerySet, literal: Q, literal_order: QuerySet, **engine_filters: Any
) -> SearchBoxResult:
    """What a box finds for `query` among `rows` (the page's rows under all its filters, tenant-scoped).

    `engine_filters` are `recall`'s filters that narrow the engine to the same rows as far as it can
    (scope, types, statuses, strengths, categories); `rows` applies the rest. `literal` is the condition
    the box used to match by (a substring of the text, a tag); `literal_order` is `rows` in the page's own
    order, for the literal-only matches. Three statements plus the engine's.
    """
    query = " ".join(query.split())
    if not query:
        return SearchBoxResult(ids=[], capped=False, by_meaning=True)
    engine_ids, by_meaning = _engine_ids(tenant_id, query, engine_filters)
    allowed = set(rows.filter(id__in=engine_ids).values_list("id", flat=True)) if engine_ids else set()
    ranked = [i for i in engine_ids if i in allowed]
    literal_ids = list(
        literal_order.filter(literal)
        .exclude(id__in=ranked)
        .values_list("id", flat=True)[: SEARCH_BOX_LIMIT + 1]
    )
    capped = len(engine_ids) >= SEARCH_BOX_LIMIT or len(literal_ids) > SEARCH_BOX_LIMIT
    return SearchBoxResult(ids=ranked + literal_ids[:SEARCH_BOX_LIMIT], capped=capped, by_meaning=by_meaning)
