"""How the admin shows JSON fields: as readable tables, memory ids linked to their memory's admin page.

Used by every app's admin (project infrastructure); presentation only.
"""

from __future__ import annotations

from typing import Any

from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

# Keys whose values are memory ids (one or a list): shown as links to the memory.
MEMORY_ID_KEYS = {"memory_id", "memory_ids", "injected_memory_ids", "cited_memory_ids", "duplicate_of"}


def memory_link(memory_id: Any) -> SafeString:
    try:
        url = reverse("admin:brain_memory_change", args=[int(memory_id)])
    except (NoReverseMatch, TypeError, ValueError):
        return format_html("{}", memory_id)
    return format_html('<a href="{}">[mem:{}]</a>', url, memory_id)


def _cell(key: str | None, value: Any) -> SafeString:
    if key in MEMORY_ID_KEYS and value not in (None, "", []):
        ids = value if isinstance(value, list) else [value]
        return mark_safe(", ".join(memory_link(i) for i in ids))
    if isinstance(value, (dict, list)) and value:
        return json_table(value, key=key)
    if value in (None, "", [], {}):
        return mark_safe('<span style="color:#888">—</span>')
    return format_html("{}", value)


def json_table(value: Any, *, key: str | None = None) -> SafeString:
    """A dict as a two-column table, a list of dicts as a table with a column per key, any other list as
    lines; memory ids (by key name, or a list under an omission reason) link to their memory."""
    style = 'style="border-collapse:collapse;margin:0" class="json-table"'
    if isinstance(value, dict):
        if not value:
            return _cell(None, None)
        rows = format_html_join(
            "", "<tr><th style='text-align:left;padding-right:12px'>{}</th><td>{}</td></tr>",
            ((k, _cell(k, v) if key != "omitted" else _cell("memory_ids", v)) for k, v in value.items()),
        )  # fmt: skip
        return format_html("<table {}>{}</table>", mark_safe(style), rows)
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        columns = list(dict.fromkeys(k for item in value for k in item))
        head = format_html_join("", "<th style='text-align:left'>{}</th>", ((c,) for c in columns))
        body = format_html_join(
            "", "<tr>{}</tr>",
            ((format_html_join("", "<td>{}</td>", ((_cell(c, item.get(c)),) for c in columns)),) for item in value),
        )  # fmt: skip
        return format_html("<table {}><tr>{}</tr>{}</table>", mark_safe(style), head, body)
    if isinstance(value, list):
        return format_html_join(mark_safe("<br>"), "{}", ((_cell(key, item),) for item in value))
    return _cell(key, value)
