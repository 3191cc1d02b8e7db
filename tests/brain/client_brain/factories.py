"""Client Brain rows for tests: rows of the one Memory table, scope tenant, written directly (fixtures)."""

from brain.client_brain.typed import render_value
from brain.models import Memory


def memory(tenant, type="business", payload=None, *, key="", text=None, confidence=0.8, **extra) -> Memory:
    if payload is None:
        payload = {"fact": key or "A fact"}
    return Memory.objects.create(
        tenant=tenant,
        scope_kind="tenant",
        type=type,
        key=key,
        payload=payload,
        text=render_value(type, payload) if text is None else text,
        confidence=confidence,
        surface="client_brain",
        **extra,
    )


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
