"""Parent objects a URL or a body names by id (an agent, a ticket), resolved inside the request's tenant:
the one way an app reaches another app's objects.

The app that owns the model registers its one lookup by name in AppConfig.ready(); the tenancy base
(DRF views: drf.py; operator UI views: ui.mixins.TenantViewMixin) resolves `url_parents` before the
handler runs. So this layer imports no app, brain resolves agents without importing intelligence, and
reads a ticket's text for recall ("ticket_recall_text", a lookup that answers a value) without importing
tickets.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import Http404


@dataclass(frozen=True)
class ParentResolver:
    """`lookup(tenant, value)` returns the tenant's object or None; `convert` turns a URL or body value
    into what `lookup` takes (a value it cannot convert is a missing object)."""

    lookup: Callable[[Any, Any], Any]
    convert: Callable[[Any], Any] = str


_PARENT_RESOLVERS: dict[str, ParentResolver] = {}


def register_parent(
    name: str, lookup: Callable[[Any, Any], Any], convert: Callable[[Any], Any] = str
) -> None:
    """Register how to find the tenant's `name` (e.g. "agent") by its id. Called from AppConfig.ready()."""
    _PARENT_RESOLVERS[name] = ParentResolver(lookup, convert)


def parent_get(name: str, tenant, value):
    """The tenant's `name` object with id `value`; Http404 when it is missing or another tenant's."""
    resolver = _PARENT_RESOLVERS[name]
    try:
        key = resolver.convert(value)
    except (TypeError, ValueError):
        raise Http404 from None
    found = resolver.lookup(tenant, key)
    if found is None:
        raise Http404
    return found
