"""Codes on operator pages in the product's words, the code kept on hover for support (issue 28, item 5):

{% load brain_labels %}
{{ memory.strength|coded:"strength" }}   → <span class="coded" title="hard_rule">Rule</span>
{{ memory.status|label:"status" }}       → Active   (text only: inside an attribute or an option)
{{ payload|readable }}                   → "budget: 120; campaign: spring-sale" (never a Python repr)
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from brain.labels import label as _label

register = template.Library()


@register.filter
def label(code, kind: str) -> str:
    """The product's word for a stored code (`brain.labels.label`)."""
    return _label(kind, code)


@register.filter
def coded(code, kind: str) -> str:
    """The label in a span whose title is the code (what support and the API call it)."""
    if code in (None, ""):
        return ""
    return format_html(
        '<span class="coded" title="{}" data-code="{}">{}</span>', code, code, _label(kind, code)
    )


def _readable(value) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{str(k).replace('_', ' ')}: {_readable(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_readable(v) for v in value)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@register.filter
def readable(value) -> str:
    """A JSON value as an operator reads it: `{"daily_budget": 120}` → "daily budget: 120"; lists joined
    with commas, nested objects in turn."""
    return _readable(value)
