"""The ONE shared four-family guard for Client Brain memories (spec: "Typed validation prevents
unsupported memory shapes from entering the agent prompt").

A row is *typed* when its `type` is one of the four families and its JSON `payload` has that family's
stored shape:

- business: {"fact": <non-blank string>}
- voice:    one or more supported tone and style fields and nothing else, each a string from its
            allowed values (see VOICE_FIELDS); `formality` is the field recall selects on
- issues:   {"pattern": <non-blank string>, "best_resolution": <non-blank string>,
             "frequency": <integral JSON number >= 1>} (optional "reports": the other ways customers put
             it, gathered by reinforcement: client_brain/issues.py)
- process:  {"trigger": <non-blank string>, "action": <non-blank string>}

Business, issues and process payloads may carry extra keys (producers keep metadata there); they are
ignored. A voice payload is only its fields, so an unknown key makes it untyped. "Non-blank" means the
string has at least one character outside WHITESPACE (a fixed set, so Python and PostgreSQL agree).

The guard exists twice and the two must agree on every shape (tests/brain/client_brain/test_typed.py):
`is_typed()` in Python, and `typed_sql()` / `typed_condition()`, a boolean SQL expression on the row,
so the dashboard counts typed rows without fetching tenant values into the application.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

BUSINESS, VOICE, ISSUES, PROCESS = "business", "voice", "issues", "process"
FAMILIES = (BUSINESS, VOICE, ISSUES, PROCESS)
# Recall keeps voice memories first: the order of the prompt's sections.
PROMPT_ORDER = (VOICE, BUSINESS, ISSUES, PROCESS)

# Supported tone and style fields of a voice memory and their allowed values.
VOICE_FIELDS: dict[str, tuple[str, ...]] = {
    "formality": ("formal", "neutral", "casual"),
    "tone": ("warm", "friendly", "professional", "empathetic", "direct", "playful"),
    "reply_length": ("short", "medium", "long"),
    "emoji": ("none", "sparing", "frequent"),
}

# Whitespace that does not make a string non-blank. Written as \uXXXX escapes, which both Python's `re`
# and PostgreSQL's advanced regular expressions read the same way.
WHITESPACE = r"\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff"
NON_BLANK_PATTERN = f"[^{WHITESPACE}]"
_NON_BLANK = re.compile(NON_BLANK_PATTERN)

REQUIRED_TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    BUSINESS: ("fact",),
    ISSUES: ("pattern", "best_resolution"),
    PROCESS: ("trigger", "action"),
}


def _non_blank(value: Any) -> bool:
    return isinstance(value, str) and _NON_BLANK.search(value) is not None


def _integral_at_least_one(value: Any) -> bool:
    if isinstance(value, bool):  # JSON true/false are not numbers
        return False
    if isinstance(value, int):
        return value >= 1
    if isinstance(value, float):
        return (
            value == value
            and value not in (float("inf"), float("-inf"))
            and value >= 1
            and value.is_integer()
        )
    return False


def is_typed(type: str, payload: Any) -> bool:
    """True when (`type`, `payload`) is one of the four families with its stored shape. Never raises."""
    if not isinstance(payload, Mapping):
        return False
    if type in REQUIRED_TEXT_FIELDS:
        if not all(_non_blank(payload.get(name)) for name in REQUIRED_TEXT_FIELDS[type]):
            return False
        return type != ISSUES or _integral_at_least_one(payload.get("frequency"))
    if type == VOICE:
        return bool(payload) and all(
            isinstance(value, str) and value in VOICE_FIELDS.get(name, ()) for name, value in payload.items()
        )
    return False


def _sql_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def typed_sql(table: str = "brain_memory") -> str:
    """The guard as one boolean SQL expression over `table`.type and `table`.payload (never NULL).

    CASE fixes the evaluation order, so a cast only runs on a value already known to be a JSON number.
    """
    type_col, payload = f'"{table}"."type"', f'"{table}"."payload"'
    non_blank = _sql_literal(NON_BLANK_PATTERN)

    def text_field(name: str) -> str:
        value = f"({payload} -> {_sql_literal(name)})"
        return f"(jsonb_typeof({value}) = 'string' AND ({value} #>> '{{}}') ~ {non_blank})"

    def texts(family: str) -> str:
        return " AND ".join(text_field(name) for name in REQUIRED_TEXT_FIELDS[family])

    frequency = f"({payload} -> 'frequency')"
    voice_entry = " OR ".join(
        f"(e.key = {_sql_literal(name)} AND (e.value #>> '{{}}') IN ({', '.join(_sql_literal(v) for v in values)}))"
        for name, values in VOICE_FIELDS.items()
    )
    return (
        "COALESCE(CASE"
        f" WHEN jsonb_typeof({payload}) IS DISTINCT FROM 'object' THEN false"
        f" WHEN {type_col} = 'business' THEN {texts(BUSINESS)}"
        f" WHEN {type_col} = 'process' THEN {texts(PROCESS)}"
        f" WHEN {type_col} = 'issues' THEN {texts(ISSUES)} AND CASE"
        f" WHEN jsonb_typeof({frequency}) = 'number' THEN ({frequency} #>> '{{}}')::numeric >= 1"
        f" AND ({frequency} #>> '{{}}')::numeric = trunc(({frequency} #>> '{{}}')::numeric) ELSE false END"
        f" WHEN {type_col} = 'voice' THEN (SELECT bool_and(jsonb_typeof(e.value) = 'string' AND ({voice_entry}))"
        f" FROM jsonb_each({payload}) AS e)"
        " ELSE false END, false)"
    )


def typed_condition(table: str = "brain_memory") -> RawSQL:
    """The guard as a Django boolean expression: `.filter(typed_condition())`, `Count(..., filter=...)`."""
    return RawSQL(typed_sql(table), (), output_field=BooleanField())


def seen_times(frequency: int) -> str:
    """ "seen once", "seen twice", "seen 3 times"."""
    return {1: "seen once", 2: "seen twice"}.get(frequency, f"seen {frequency} times")


def render_value(type: str, payload: Any) -> str:
    """The readable value of a typed payload (what `Memory.text` holds for Client Brain rows)."""
    if not is_typed(type, payload):
        return json.dumps(payload, ensure_ascii=False, sort_keys=True) if payload is not None else ""
    if type == BUSINESS:
        return payload["fact"].strip()
    if type == VOICE:
        return "; ".join(f"{name}: {payload[name]}" for name in VOICE_FIELDS if name in payload)
    if type == ISSUES:
        # Without its frequency: reinforcement counts on the row (and in the payload), and a text that
        # changed with every sighting would leave the row's vector stale.
        reports = [r.strip() for r in payload.get("reports") or [] if isinstance(r, str) and r.strip()]
        also = f"; also reported as: {'; '.join(reports)}" if reports else ""
        return f"Issue: {payload['pattern'].strip()}; best resolution: {payload['best_resolution'].strip()}{also}"
    return f"When {payload['trigger'].strip()}: {payload['action'].strip()}"


def display_value(type: str, payload: Any) -> str:
    """What an operator page shows of a typed payload: its value and, for an issue, how often it was seen in
    words ("(seen twice)"), from the payload's frequency, which reinforcement keeps equal to the row's."""
    value = render_value(type, payload)
    if type == ISSUES and is_typed(type, payload):
        value += f" ({seen_times(int(payload['frequency']))})"
    return value
