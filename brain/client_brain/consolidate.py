"""Consolidate a tenant's stored issues into one memory per problem (issue 27): `manage.py client_brain_consolidate`.

Rows learned before issues were keyed by their problem (client_brain/issues.py) pile up: every ticket of one
classified intent made a row of the same key, and an unclassified ticket's key was its whole subject. This
re-keys each live issue row (an unclassified one by its subject's signature: its old key is the slug of its
pattern) and folds every group of one key into its survivor — the active row seen most often, else the oldest
— which takes the others' frequency, provenance (the newest PROVENANCE_MAX entries) and their subjects as
reports; the others become `superseded` by it, each with its history and a `supersedes` edge. One transaction
per tenant, under the tenant scope's formation lock. Idempotent: a second run finds one row per key. A dry
run reports what it would do and writes nothing.

In the same transaction the business facts learned before facts.py are read again: a learned row whose fact is
not a statement about the business ("Look for the help section.", "They are available at ...") is archived,
with its history (reason `not_a_business_fact`) and provenance kept. A row an operator wrote, or touched since
(any history row of a user), is theirs and stays.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction

from brain import graph
from brain.formation.judge import formation_setting
from brain.formation.writes import enqueue_embedding, histories_add, history_row, scope_lock, snapshot
from brain.models import BrainScopeKind, GraphRelation, Memory, MemoryHistory, MemoryStatus, WriteSurface

from . import typed
from .facts import business_fact
from .issues import clip, reports_gather, slug, subject_signature

ACTOR = "process:client_brain_consolidate"
REASON = "consolidated"
NOT_A_FACT = "not_a_business_fact"
_FOLDED_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.DRAFT, MemoryStatus.STALE)


@dataclass
class Consolidation:
    """What one tenant's consolidation did (or, dry, would do)."""

    tenant_id: int
    rows: int = 0  # live issue rows read
    groups: int = 0  # keys with more than one row, or whose row is re-keyed
    folded: int = 0  # rows superseded by their group's survivor
    rekeyed: int = 0  # survivors given their problem's key
    facts: int = 0  # live learned business facts read
    facts_archived: int = 0  # of those, archived: not statements about the business


def problem_key(key: str, payload: dict) -> str:
    """The key an issue row has under the current rule: an unclassified row's old key was the slug of its
    pattern (its ticket's subject), now the subject's signature; a classified row's key is already its
    problem's."""
    pattern = str(payload.get("pattern") or "")
    if key == f"issue:{slug(clip(pattern, 160))}":
        return f"issue:{subject_signature(pattern)}"
    return key


def _subject(pattern: str) -> str:
    """What customers wrote: the part of a classified pattern after its topic ("Damaged item: tent pole")."""
    return pattern.split(": ", 1)[1] if ": " in pattern else pattern


def consolidate_issues(tenant_id: int, *, dry_run: bool = False) -> Consolidation:
    result = Consolidation(tenant_id=tenant_id)
    with transaction.atomic():
        scope_lock(tenant_id, BrainScopeKind.TENANT, "")
        rows = list(
            Memory.objects.for_tenant(tenant_id)
            .filter(scope_kind=BrainScopeKind.TENANT, type=typed.ISSUES, status__in=_FOLDED_STATUSES)
            .select_for_update()
            .order_by("id")
        )
        result.rows = len(rows)
        groups: dict[str, list[Memory]] = defaultdict(list)
        for row in rows:
            if isinstance(row.payload, dict) and typed.is_typed(typed.ISSUES, row.payload):
                groups[problem_key(row.key, row.payload)].append(row)
        changed: list[int] = []
        for key, members in groups.items():
            if len(members) == 1 and members[0].key == key:
                continue
            result.groups += 1
            survivor = min(members, key=lambda m: (m.status != MemoryStatus.ACTIVE, -m.frequency, m.pk))
            others = [m for m in members if m.pk != survivor.pk]
            result.folded += len(others)
            result.rekeyed += survivor.key != key
            if not dry_run:
                _fold(tenant_id, key, survivor, others)
                changed.append(survivor.pk)
        if changed:
            enqueue_embedding(tenant_id, changed)
        _retire_non_facts(tenant_id, result, dry_run=dry_run)
        if dry_run:
            transaction.set_rollback(True)
    return result


def _fold(tenant_id: int, key: str, survivor: Memory, others: list[Memory]) -> None:
    before = snapshot(survivor)
    payload = dict(survivor.payload)
    reports_gather(
        payload,
        key,
        survivor.text,
        [clip(_subject(str(o.payload.get("pattern") or "")), 160) for o in others],
    )
    provenance = list(survivor.provenance or [])
    for other in others:
        provenance += list(other.provenance or [])
    survivor.frequency += sum(o.frequency for o in others)
    payload["frequency"] = survivor.frequency
    survivor.key, survivor.payload = key, payload
    survivor.text = typed.render_value(typed.ISSUES, payload)
    survivor.provenance = provenance[-formation_setting("PROVENANCE_MAX") :]
    survivor.save(update_fields=["key", "payload", "text", "frequency", "provenance", "updated_at"])
    history = [
        history_row(
            tenant_id=tenant_id, memory=survivor, action=MemoryHistory.Action.UPDATED, actor=ACTOR,
            reason=f"{REASON}:{len(others)}", before=before, after=snapshot(survivor),
        )
    ]  # fmt: skip
    node = graph.node_for_memory(survivor)
    for other in others:
        other_before = snapshot(other)
        other.status, other.superseded_by = MemoryStatus.SUPERSEDED, survivor
        other.save(update_fields=["status", "superseded_by", "updated_at"])
        history.append(
            history_row(
                tenant_id=tenant_id, memory=other, action=MemoryHistory.Action.SUPERSEDED, actor=ACTOR,
                reason=REASON, before=other_before, after=snapshot(other),
            )
        )  # fmt: skip
        graph.edge_add(source=node, target=graph.node_for_memory(other), relation=GraphRelation.SUPERSEDES)
    histories_add(history)


def _retire_non_facts(tenant_id: int, result: Consolidation, *, dry_run: bool) -> None:
    """Archive the live learned business rows that are not statements about the business (facts.py)."""
    operators_rows = (
        MemoryHistory.objects.for_tenant(tenant_id).filter(actor__startswith="user:").values("memory_id")
    )
    rows = list(
        Memory.objects.for_tenant(tenant_id)
        .filter(
            scope_kind=BrainScopeKind.TENANT,
            type=typed.BUSINESS,
            status__in=_FOLDED_STATUSES,
            surface=WriteSurface.CLIENT_BRAIN,
        )
        .exclude(pk__in=operators_rows)
        .select_for_update()
        .order_by("id")
    )
    result.facts = len(rows)
    retired = [
        row
        for row in rows
        if isinstance(row.payload, dict) and business_fact(str(row.payload.get("fact") or "")) is None
    ]
    result.facts_archived = len(retired)
    if dry_run or not retired:
        return
    history = []
    for row in retired:
        before = snapshot(row)
        row.status = MemoryStatus.ARCHIVED
        row.save(update_fields=["status", "updated_at"])
        history.append(
            history_row(
                tenant_id=tenant_id, memory=row, action=MemoryHistory.Action.ARCHIVED, actor=ACTOR,
                reason=NOT_A_FACT, before=before, after=snapshot(row),
            )
        )  # fmt: skip
    histories_add(history)
