"""What happened to a tenant's memories, told to whoever listens, after the commit.

Events: `memory.learned` (a memory written), `memory.superseded`, `memory.archived`, `suggestion.proposed`
(a memory written as a suggestion, waiting for review). The brain publishes them from the one history writer
(`formation.writes.history_add`) and from verdict archival; listeners (tickets' webhooks) subscribe in their
AppConfig.ready(), so brain imports none of them. A listener runs after the transaction commits, never for a
rolled-back write, and a failing listener is logged, never raised into the write that caused it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction

logger = logging.getLogger(__name__)

MEMORY_LEARNED = "memory.learned"
MEMORY_SUPERSEDED = "memory.superseded"
MEMORY_ARCHIVED = "memory.archived"
SUGGESTION_PROPOSED = "suggestion.proposed"

Listener = Callable[[int, str, dict[str, Any]], None]
Interest = Callable[[int, str], bool]
_listeners: list[tuple[Listener, Interest]] = []


def subscribe(listener: Listener, *, wants: Interest) -> None:
    """`listener(tenant_id, event, data)` is called after the commit of each event that `wants(tenant_id,
    event)` says it cares about (asked at once, inside the write's transaction: keep it cheap). Idempotent."""
    if all(known is not listener for known, _ in _listeners):
        _listeners.append((listener, wants))


def publish(tenant_id: int, event: str, data: dict[str, Any]) -> None:
    """Tell the interested listeners after the current transaction commits (at once outside one); nothing
    is scheduled when no listener wants the event, so a tenant without webhooks pays one cheap question."""
    interested = [listener for listener, wants in _listeners if wants(tenant_id, event)]
    if interested:
        transaction.on_commit(lambda: _notify(interested, tenant_id, event, data))


def _notify(listeners: list[Listener], tenant_id: int, event: str, data: dict[str, Any]) -> None:
    for listener in listeners:
        try:
            listener(tenant_id, event, data)
        except Exception:  # a listener's failure must not undo or fail the write that happened
            logger.exception("brain event listener %r failed on %s", listener, event)


def memory_event(
    action: str, after: dict[str, Any] | None, before: dict[str, Any] | None, *, source: str = ""
) -> str | None:
    """The event a memory history action stands for, or None (reinforcements, edits, rejections...)."""
    if action == "added":
        return SUGGESTION_PROPOSED if source == "suggested" else MEMORY_LEARNED
    if action == "superseded":
        return MEMORY_SUPERSEDED
    if action == "archived" or (
        action == "status_changed"
        and (after or {}).get("status") == "archived"
        and (before or {}).get("status") != "archived"
    ):
        return MEMORY_ARCHIVED
    return None


def memory_data(memory_id: int | None, snapshot: dict[str, Any] | None, reason: str = "") -> dict[str, Any]:
    """The event's data: the memory's id, tag and the fields of its history snapshot."""
    fields = ("type", "text", "status", "strength", "category", "scope_kind", "scope_id", "superseded_by")
    data = {"memory_id": memory_id, "tag": f"[mem:{memory_id}]" if memory_id else None, "reason": reason}
    data.update({name: (snapshot or {}).get(name) for name in fields})
    return data
