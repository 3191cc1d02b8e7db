"""Client Brain rows for tests: rows of the one Memory table, scope tenant, written directly (fixtures).

`activity_count=N` gives a row N recorded activity (a MemoryActivity counter row, none when N is 0).
"""

from django.utils import timezone

from brain.activity import activity_counts
from brain.client_brain.typed import render_value
from brain.models import Memory, MemoryActivity


def set_activity(memories, counts) -> None:
    """Give each memory its recorded activity (a counter row; none for 0), as recall would have counted it."""
    now = timezone.now()
    MemoryActivity.objects.bulk_create(
        MemoryActivity(memory_id=m.pk, tenant_id=m.tenant_id, count=n, last_at=now)
        for m, n in zip(memories, counts, strict=True)
        if n
    )


def activity_of(*memories) -> list[int]:
    """The recorded activity of each memory (0 when none was counted)."""
    by_tenant: dict[int, list[int]] = {}
    for m in memories:
        by_tenant.setdefault(m.tenant_id, []).append(m.pk)
    counts = {}
    for tenant_id, ids in by_tenant.items():
        counts |= activity_counts(tenant_id=tenant_id, memory_ids=ids)
    return [counts[m.pk] for m in memories]


def memory(tenant, type="business", payload=None, *, key="", text=None, confidence=0.8, **extra) -> Memory:
    if payload is None:
        payload = {"fact": key or "A fact"}
    activity = extra.pop("activity_count", 0)
    extra.setdefault("surface", "client_brain")
    row = Memory.objects.create(
        tenant=tenant,
        scope_kind="tenant",
        type=type,
        key=key,
        payload=payload,
        text=render_value(type, payload) if text is None else text,
        confidence=confidence,
        **extra,
    )
    set_activity([row], [activity])
    return row


def fact(tenant, text, **kwargs) -> Memory:
    return memory(tenant, "business", {"fact": text}, **kwargs)


def voice(tenant, **fields) -> Memory:
    extra = {name: fields.pop(name) for name in ("confidence", "key") if name in fields}
    return memory(tenant, "voice", fields, **extra)


def issue(tenant, pattern, resolution, frequency=2, **kwargs) -> Memory:
    return memory(
        tenant,
        "issues",
        {"pattern": pattern, "best_resolution": resolution, "frequency": frequency},
        **kwargs,
    )


def process(tenant, trigger, action, **kwargs) -> Memory:
    return memory(tenant, "process", {"trigger": trigger, "action": action}, **kwargs)


def superseded_by(old: Memory, payload: dict) -> Memory:
    """Replace `old` with a newer memory of its type and key, as the formation judge does (through the
    formation service): `old` becomes superseded, pointing at the new row, which is returned."""
    from brain.api import memory_supersede
    from brain.types import MemoryCandidate

    outcome = memory_supersede(
        tenant_id=old.tenant_id,
        old_memory_id=old.pk,
        candidate=MemoryCandidate(
            tenant_id=old.tenant_id,
            type=old.type,
            key=old.key,
            payload=payload,
            text=render_value(old.type, payload),
            surface="client_brain",
        ),
    )
    assert outcome.result == "superseded", outcome
    return Memory.objects.for_tenant(old.tenant_id).get(pk=outcome.memory_id)
