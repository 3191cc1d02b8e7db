"""Judging by key: when rows of a candidate's own key settle the local judge's answer, they are all it needs.

The local judge (judge.py) looks at the rows of the candidate's key first and, when one of them holds the same
issue or the same value, reinforces it without looking at any other neighbour. So for such a candidate
`promote()` reads, under the scope's lock, only the rows of its key (every live one, scored and ordered as the
direct neighbour query scores and orders them) and shows the judge those: the same answer, without ranking the
whole scope by trigram similarity and by cosine distance, and without asking recall before the lock. Whether
rows of its key will settle it is guessed before the lock from the rows committed then; under the lock they
are read again and decide, or the candidate takes the full path (recall, the direct query) as before.
"""

from __future__ import annotations

from ..models import Memory, WriteSurface
from ..providers import LocalProvider, get_provider
from ..types import MemoryCandidate
from .backstop import duplicate_types
from .judge import LIVE_STATUSES, Neighbour, _direct_neighbours, formation_setting, local_judge


def key_neighbours(
    *,
    tenant_id: int,
    scope_kind: str,
    scope_id: str,
    text: str,
    key: str,
    vector=None,
    model: str = "",
    types: tuple[str, ...] = (),
) -> list[Neighbour] | None:
    """The live rows of the scope with the candidate's `key`, scored and ordered as `find_neighbours` scores
    and orders them (closest first): every row of that key `find_neighbours` would show, and only those.
    None when there may be more of them than its key part reads (NEIGHBOURS): then which ones it shows is
    PostgreSQL's choice, and only `find_neighbours` can say."""
    limit = formation_setting("NEIGHBOURS")
    found = _direct_neighbours(
        tenant_id=tenant_id,
        scope_kind=scope_kind,
        scope_id=scope_id,
        text=text,
        key=key,
        vector=vector,
        model=model,
        limit=limit,
        types=types,
        nearest=False,
    )
    return None if not key or len(found) >= limit else found


# The local judge's reinforcements that rows of the candidate's own key decide (`local_judge`).
KEY_REINFORCE_REASONS = frozenset({"same_issue", "same_key_same_value"})


def reinforced_by_key(*, text: str, key: str, type: str, key_rows: list[Neighbour]) -> bool:
    """Whether the configured judge is the local one and reinforces one of `key_rows` (every live row of the
    candidate's key, `key_neighbours`) on the strength of the key alone: then no other neighbour can change its
    answer (it looks at rows of the key first, in their closeness order, and answers from them), so showing it
    only these rows decides exactly as showing it every neighbour would."""
    if not key or not isinstance(get_provider(), LocalProvider):
        return False
    answer = local_judge(
        {
            "candidate": {"text": text, "key": key, "type": type},
            "neighbours": [n.as_payload() for n in key_rows],
        }
    )
    return answer["decision"] == "reinforce" and answer["reason"] in KEY_REINFORCE_REASONS


def _key_judged(candidate: MemoryCandidate) -> bool:
    """Whether the judge would read `candidate` by its key (`reinforced_by_key`): judged, with a key, no
    proposed supersede, not an agent's note (whose recent twin is looked for first)."""
    return (
        bool(candidate.key)
        and not candidate.skip_judge
        and candidate.supersedes_id is None
        and candidate.surface != WriteSurface.MEMORY_APPEND
    )


def settled_by_key_before_lock(indexed: list[tuple[int, MemoryCandidate]]) -> set[int]:
    """The positions among (position, candidate) whose rows of their own key, as committed now, make the judge
    reinforce one of them (`reinforced_by_key`). Only a guess made before the lock, to spare recall: under the
    lock those rows are read again and decide, or recall and the direct query run (`services._promote_locked`).
    One statement per scope."""
    if not formation_setting("JUDGE_BY_KEY"):
        return set()
    wanted = [(i, c) for i, c in indexed if _key_judged(c)]
    rows: dict[tuple, list[tuple]] = {}
    for tenant_id, scope_kind, scope_id in {(c.tenant_id, c.scope_kind, c.scope_id) for _, c in wanted}:
        for values in (
            Memory.objects.for_tenant(tenant_id)
            .filter(
                scope_kind=scope_kind,
                scope_id=scope_id,
                status__in=LIVE_STATUSES,
                key__in=sorted(
                    {c.key for _, c in wanted if (c.scope_kind, c.scope_id) == (scope_kind, scope_id)}
                ),
            )
            .values_list("id", "key", "text", "status", "type")
        ):
            rows.setdefault((tenant_id, scope_kind, scope_id, values[1]), []).append(values)
    settled = set()
    limit = formation_setting("NEIGHBOURS")
    for i, c in wanted:
        types = duplicate_types(c.type)
        key_rows = [
            Neighbour(id=r[0], key=r[1], text=r[2], status=r[3], cosine=None, lexical=0.0, token_overlap=0.0)
            for r in rows.get((c.tenant_id, c.scope_kind, c.scope_id, c.key), [])
            if not types or r[4] in types
        ]
        if len(key_rows) < limit and reinforced_by_key(
            text=c.text, key=c.key, type=c.type, key_rows=key_rows
        ):
            settled.add(i)
    return settled


def key_rows_deciding(candidate: MemoryCandidate, scope: dict, vector, model: str, types) -> list | None:
    """Under the lock: the rows of the candidate's key when they make the judge reinforce one of them, else None."""
    rows = key_neighbours(
        **scope, text=candidate.text, key=candidate.key, vector=vector, model=model, types=types
    )
    if rows is None or not reinforced_by_key(
        text=candidate.text, key=candidate.key, type=candidate.type, key_rows=rows
    ):
        return None
    return rows


def key_rows(candidates: list[MemoryCandidate]) -> list:
    """The live rows of the candidates' keys, per scope (a queryset each, in id order): those a reinforcement
    by key will count, for `Reinforcements.lock_rows` to lock and read together under the scope's lock."""
    scopes: dict[tuple, set[str]] = {}
    for c in candidates:
        scopes.setdefault((c.tenant_id, c.scope_kind, c.scope_id), set()).add(c.key)
    return [
        Memory.objects.for_tenant(tenant_id)
        .filter(scope_kind=scope_kind, scope_id=scope_id, status__in=LIVE_STATUSES, key__in=sorted(keys))
        .order_by("id")
        for (tenant_id, scope_kind, scope_id), keys in sorted(scopes.items())
    ]
