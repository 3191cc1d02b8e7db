"""Which rows a plan may return, as values: the caller's filters checked. Each storage compiles them
(PostgreSQL: brain.search.sql.where); a value, so caches are keyed by it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .types import RecallInputError


def finite_range(confidence_range: Sequence[float] | None) -> tuple[float, float] | None:
    if confidence_range is None:
        return None
    try:
        low, high = (float(v) for v in confidence_range)
    except (TypeError, ValueError):
        raise RecallInputError("confidence_range must be two numbers [low, high], e.g. [0.5, 1].") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RecallInputError("confidence_range bounds must be finite numbers (no NaN or infinity).")
    if low > high:
        raise RecallInputError(f"confidence_range low ({low}) is above high ({high}); swap them.")
    return low, high


def string_list(name: str, values: Sequence[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    values = tuple(str(v) for v in values)
    if not values:
        raise RecallInputError(f"{name} is empty: omit it to mean 'any', or list at least one value.")
    return values


@dataclass(frozen=True)
class Filters:
    """The rows of one tenant a plan may return: each of `scope_kind`, `scope_ids`, `types`, `statuses`,
    `strengths`, `categories` None for any; `confidence_range` (low, high), finite, or None for null or
    within 0–1 (never NaN, infinite or out of range)."""

    tenant_id: int
    scope_kind: str | None = None
    scope_ids: tuple[str, ...] | None = None
    types: tuple[str, ...] | None = None
    statuses: tuple[str, ...] | None = None
    strengths: tuple[str, ...] | None = None
    categories: tuple[str, ...] | None = None
    confidence_range: tuple[float, float] | None = None


def filters_for(*, tenant_id: int, scope_kind: str | None, confidence_range, **lists: Any) -> Filters:
    """The filters of `recall`, checked: each list of `scope_ids`, `types`, `statuses`, `strengths`,
    `categories` (None = any) and the confidence range (None = null or within 0–1)."""
    return Filters(
        tenant_id=int(tenant_id),
        scope_kind=scope_kind,
        confidence_range=finite_range(confidence_range),
        **{name: string_list(name, values) for name, values in lists.items()},
    )
