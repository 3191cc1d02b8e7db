"""The shared four-family guard: the Python guard and the SQL guard agree on every shape."""

import itertools

from django.db.models import JSONField, Value

from brain.client_brain.typed import VOICE_FIELDS, is_typed, typed_condition
from brain.models import Memory

TEXTS = [
    "Ships in 2 days",
    "  x ",
    "",
    "   ",
    "\t\n",
    "\u00a0\u3000",
    "\u2003ok",
    5,
    None,
    True,
    [],
    {},
    ["a"],
]
FREQUENCIES = [1, 3, 2.0, 2.5, 0, -1, "3", None, True, [], 10**20]
VOICE_VALUES = ["formal", "casual", "FORMAL", "formal ", "", 1, None, ["formal"], {"v": "formal"}]


def shapes():
    """Many valid and invalid (type, payload) shapes, incl. wrong JSON types, blanks, missing and extra keys."""
    for text in TEXTS:
        yield "business", {"fact": text}
        yield "business", {"fact": text, "source": "ticket"}
        yield "process", {"trigger": text, "action": "Refund"}
        yield "process", {"trigger": "Refund asked", "action": text}
        yield "issues", {"pattern": text, "best_resolution": "Reset", "frequency": 2}
        yield "issues", {"pattern": "Login fails", "best_resolution": text, "frequency": 2}
    for frequency in FREQUENCIES:
        yield "issues", {"pattern": "Login fails", "best_resolution": "Reset", "frequency": frequency}
    yield "issues", {"pattern": "Login fails", "best_resolution": "Reset"}
    for name, value in itertools.product([*VOICE_FIELDS, "signature", "Formality"], VOICE_VALUES):
        yield "voice", {name: value}
        yield "voice", {"formality": "formal", name: value}
    for name, values in VOICE_FIELDS.items():
        for value in values:
            yield "voice", {name: value}
    yield (
        "voice",
        dict.fromkeys(VOICE_FIELDS, "x") | {name: values[0] for name, values in VOICE_FIELDS.items()},
    )
    yield "voice", {}
    for payload in ([], ["fact"], "a fact", 3, None, True, {"text": "a fact"}, {"Fact": "x"}):
        for family in ("business", "voice", "issues", "process"):
            yield family, payload
    for legacy in ("faq", "Business", "brand", "", "tone", "issue"):
        yield legacy, {"fact": "We ship daily", "formality": "formal"}


def test_python_and_sql_guards_agree_on_every_shape(tenant):
    cases = list(shapes())
    rows = [
        # JSON null must be written as a JSON value (a bare None would be SQL NULL).
        Memory.objects.create(
            tenant=tenant,
            scope_kind="tenant",
            type=type,
            payload=Value(None, JSONField()) if payload is None else payload,
            key=f"case {i}",
        )
        for i, (type, payload) in enumerate(cases)
    ]
    sql_typed = set(Memory.objects.for_tenant(tenant).filter(typed_condition()).values_list("id", flat=True))
    expected = {row.id for row, (type, payload) in zip(rows, cases, strict=True) if is_typed(type, payload)}
    disagreements = [
        (type, payload, row.id in expected)
        for row, (type, payload) in zip(rows, cases, strict=True)
        if (row.id in sql_typed) != (row.id in expected)
    ]
    assert not disagreements
    # The set exercises both outcomes in every family, so agreement is not trivially "all false".
    assert 0 < len(expected) < len(cases)
    for family in ("business", "voice", "issues", "process"):
        outcomes = {is_typed(type, payload) for type, payload in cases if type == family}
        assert outcomes == {True, False}


def test_typed_shapes_of_the_four_families():
    assert is_typed("business", {"fact": "We ship from Lyon"})
    assert not is_typed("business", {"fact": "   "})
    assert is_typed("voice", {"formality": "formal", "tone": "warm"})
    assert not is_typed("voice", {"formality": "very formal"})
    assert not is_typed("voice", {"formality": "formal", "catchphrase": "Cheers"})
    assert is_typed("issues", {"pattern": "Login fails", "best_resolution": "Reset password", "frequency": 3})
    assert not is_typed("issues", {"pattern": "Login fails", "best_resolution": "Reset password"})
    assert is_typed("process", {"trigger": "Refund over 100 EUR", "action": "Ask a manager"})
    assert not is_typed("process", {"trigger": "Refund over 100 EUR"})
    assert not is_typed("faq", {"fact": "A legacy type"})
