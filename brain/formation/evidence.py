"""Evidence before change: a new value replaces a standing one only when it carries as much evidence.

A memory's evidence is how often formation saw it (`frequency`) times how sure it is (`confidence`,
finite in [0, 1]; an ungraded or invalid one counts 0.5). When the judge would supersede a memory
whose evidence is greater than the candidate's (one sighting at the candidate's confidence), the
candidate is kept instead as a competing value: a draft row with the same key, linked to the standing
one by a `contradicts` edge, never injected (recall admits active rows only). Each later sighting of
the competing value reinforces it; when its evidence exceeds the standing memory's, the evidence has
turned: the competitor becomes active and supersedes it. A genuine change of policy, seen repeatedly,
therefore wins; one ticket's "neutral; warm" does not flip a voice seen eight times at confidence 1.0.
"""

from __future__ import annotations

import math

from ..models import Memory, MemoryStatus
from ..types import MemoryCandidate

COMPETING_REASON = "competing_value"


def evidence(frequency: int, confidence: float | None) -> float:
    sure = (
        confidence if confidence is not None and math.isfinite(confidence) and 0 <= confidence <= 1 else 0.5
    )
    return max(frequency, 1) * sure


def outweighs(memory_id: int, candidate: MemoryCandidate) -> bool:
    """True when the standing memory `memory_id` carries more evidence than `candidate`, seen once."""
    row = (
        Memory.objects.for_tenant(candidate.tenant_id)
        .filter(pk=memory_id)
        .values_list("frequency", "confidence")
    )
    standing = row.first()
    return standing is not None and evidence(*standing) > evidence(1, candidate.confidence)


def turned_against(competitor: Memory) -> Memory | None:
    """The standing memory a competing value now outweighs, or None (not a competitor, or not yet).

    `competitor` is locked by the caller; the standing memory is the active row of its scope with its
    key, locked here.
    """
    if competitor.status != MemoryStatus.DRAFT or not competitor.key:
        return None
    if not competitor.history.filter(reason=COMPETING_REASON).exists():
        return None
    standing = (
        Memory.objects.for_tenant(competitor.tenant_id)
        .select_for_update()
        .filter(
            scope_kind=competitor.scope_kind,
            scope_id=competitor.scope_id,
            key=competitor.key,
            status=MemoryStatus.ACTIVE,
        )
        .exclude(pk=competitor.pk)
        .order_by("-frequency", "id")
        .first()
    )
    if standing is None:
        return None
    if evidence(competitor.frequency, competitor.confidence) > evidence(
        standing.frequency, standing.confidence
    ):
        return standing
    return None
