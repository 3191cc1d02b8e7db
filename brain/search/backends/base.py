"""The interface every search backend implements."""

from __future__ import annotations

from ..plan import RecallPlan
from ..types import Hit


class SearchBackend:
    """Executes the engine's plans over one storage.

    `search(cursor, plan)`: per tier of the `RecallPlan`, the best `plan.pool` filtered rows with their
    rank and score, merged by memory id (a memory found by two tiers is one hit carrying both ranks), in
    no particular order; ranks are SQL's `rank()` (ties share the first rank of them). With
    `plan.details` each hit carries the memory's columns; otherwise only what ranking needs.
    `contains(plan)`: the first `plan.limit` rows (in the plan's order) whose key or value contains any
    of the plan's terms, case-insensitively (the Client Brain keyword tier).
    Both are read-only and tenant-scoped; `search` runs on the caller's cursor, inside a transaction when
    `in_transaction` (settings it makes local to one), else in the caller's (or autocommit).
    `supports(plan)` says whether the backend can serve a plan at all.
    """

    name = "base"
    in_transaction = False

    def supports(self, plan) -> bool:
        raise NotImplementedError

    def search(self, cursor, plan: RecallPlan) -> list[Hit]:
        raise NotImplementedError

    def contains(self, plan) -> list:
        raise NotImplementedError
