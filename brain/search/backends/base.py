"""The interface every search backend implements, and what backends share: turning each tier's ranked rows
into hits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..types import Hit, SearchResult

if TYPE_CHECKING:
    from ..plan import RecallPlan
    from ..scoped import ContainmentPlan, NeighbourPlan, NeighbourRow, Window


class SearchBackend:
    """Executes the engine's plans over one storage. A backend generates candidates; every score comes from
    brain.search.scoring, so two backends given the same candidates give the same scores.

    Every method is read-only and tenant-scoped (a row of another tenant is never returned). A backend that
    cannot serve a kind of plan says so in `supports` (the engine then routes the plan to PostgreSQL) and
    raises NotImplementedError, saying why, from the method that would serve it.
    """

    name = "base"
    # Whether `search` must run inside a transaction (settings it makes local to one); otherwise it runs
    # in the caller's transaction, or in autocommit.
    in_transaction = False

    def supports(self, plan: RecallPlan | ContainmentPlan | NeighbourPlan) -> bool:
        """Whether this backend can serve `plan` at all."""
        raise NotImplementedError

    def search(self, cursor, plan: RecallPlan) -> SearchResult:
        """Per tier of the `RecallPlan`, the best `plan.pool` filtered rows with their rank and score, merged
        by memory id (a memory found by two tiers is one hit carrying both ranks), in no particular order;
        ranks as SQL's `rank()` (ties share the first rank of them: brain.search.scoring.tier_ranks). With
        `plan.details` each hit carries the memory's columns; otherwise only what ranking needs. The result
        says how the vector tier was served (`vector_strategy`). Runs on the caller's cursor."""
        raise NotImplementedError

    def window(self, plan: ContainmentPlan) -> Window:
        """The tenant's first `plan.window_size` live rows in the containment order (brain.search.scoped),
        prepared by the plan, and the order key of the last when rows may follow it."""
        raise NotImplementedError

    def contains(self, plan: ContainmentPlan) -> list:
        """The first `plan.limit` live rows (after `plan.after` when set), in the containment order, whose
        key or value contains any of the plan's terms, case-insensitively (the Client Brain keyword tier)."""
        raise NotImplementedError

    def neighbours(self, plan: NeighbourPlan) -> list[NeighbourRow]:
        """The plan's rows, each once, in the order they were found (trigram, vector, key, ids): the
        formation judge's neighbour and backstop queries."""
        raise NotImplementedError


def ranked_hits(tiers: dict[str, dict[int, tuple[int, float]]], known: dict[int, tuple]) -> dict[int, dict]:
    """Each tier's {id: (rank, score)} merged by id into {id: {Hit field: value}} (a memory found by two
    tiers carries both ranks)."""
    fields: dict[int, dict] = {}
    for tier, ranks in tiers.items():
        rank_field, score_field = f"{tier}_rank", f"{tier}_score"
        for memory_id, (rank, score) in ranks.items():
            found = fields.get(memory_id)
            if found is None:
                found = fields[memory_id] = {}
            found[rank_field], found[score_field] = rank, score
    return fields


def scores_only(fields: dict[int, dict], known: dict[int, tuple]) -> list[Hit]:
    """Hits without columns: what ranking needs (`known`: id -> (confidence, created_at))."""
    return [Hit(memory_id, *known[memory_id], **found) for memory_id, found in fields.items()]
