"""What the audit trail keeps of a refused write: enough to tell what was refused, nothing to reuse.

A refusal keeps its history row (who, which surface, the reason code and the gate's detail) and, of the text,
only a keyed hash and a redacted excerpt: the refused text may hold a customer's personal data or an attack
payload, and the history is read by staff, exported and kept for long. The hash (HMAC-SHA256 keyed by the
project's secret key) lets a support engineer match a refusal to the text they hold
(`refused_text_hash(text)`) without anyone reading it back from the row; the excerpt shows the shape of the
text: its first few words, with every capitalised word (names, places, brands), every word of a script
without case, every digit run, e-mail address, URL and long token masked, and secrets, card numbers and
contact details redacted first. Lower-case personal data in the first words (a name typed in lower case) is
the one thing it does not see.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.crypto import salted_hmac

from .gate import redact

EXCERPT_WORDS = 8
EXCERPT_CHARS = 80
DETAIL_CHARS = 120

_EMAIL = re.compile(r"\S+@\S+")
_URL = re.compile(r"(?:[a-z][a-z0-9+.-]*://|www\.)\S+|\S+\.(?:com|net|org|io|dev|app|co|de|fr|uk)\b\S*", re.I)
_LONG_TOKEN = re.compile(r"[^\s]{24,}|[A-Za-z0-9_\-+/=]{16,}")
_DIGITS = re.compile(r"\d+")
_PRONOUN_I = re.compile(r"\W*I(?:'[a-z]+)?\W*")  # "I", "I'm", "I've": capitalised, and nobody's name


def refused_text_hash(text: str) -> str:
    """The keyed hash a refusal stores of its text (hex)."""
    return salted_hmac("brain.formation.refusal", text or "", algorithm="sha256").hexdigest()


def _masked_word(word: str, *, digits: bool) -> str:
    if _EMAIL.search(word):
        return "[email]"
    if _URL.search(word):
        return "[url]"
    if _LONG_TOKEN.search(word):
        return "[token]"
    letters = [c for c in word if c.isalpha()]
    capitalised = bool(letters) and letters[0].isupper() and not _PRONOUN_I.fullmatch(word)
    caseless = any(not (c.isupper() or c.islower()) for c in letters)
    if capitalised or caseless:
        return "[…]"
    return _DIGITS.sub("#", word) if digits else word


def masked(text: str, *, digits: bool = True) -> str:
    """`text` (secrets and contacts redacted) with every word that may name someone masked."""
    return " ".join(_masked_word(word, digits=digits) for word in redact(text or "").split())


def refused_excerpt(text: str) -> str:
    """The first EXCERPT_WORDS words of `text`, masked (`masked()`), at most EXCERPT_CHARS characters; never
    more than two thirds of the text's words, so a short payload is not kept whole either."""
    words = masked(text).split()
    keep = min(EXCERPT_WORDS, max(1, (2 * len(words)) // 3))
    excerpt = " ".join(words[:keep])
    if len(excerpt) > EXCERPT_CHARS:
        excerpt = excerpt[: EXCERPT_CHARS - 1].rstrip()
    return excerpt + ("…" if keep < len(words) or len(" ".join(words[:keep])) > EXCERPT_CHARS else "")


def refusal_record(
    text: str, *, detail: str = "", memory_type: str = "", key: str = "", scope_kind: str = "", scope_id=""
) -> dict[str, Any]:
    """A refusal's `after` in the memory history: the text's keyed hash, its length and redacted excerpt,
    the gate's detail (masked, without touching its digits), the memory type, the key's family only
    ("fact" of "fact:<words of the text>") and the scope."""
    return {
        "excerpt": refused_excerpt(text),
        "text_hash": refused_text_hash(text),
        "chars": len(text or ""),
        "detail": masked(detail, digits=False)[:DETAIL_CHARS],
        "type": memory_type,
        "key": (key or "").split(":", 1)[0][:40],
        "scope_kind": scope_kind,
        "scope_id": scope_id,
    }
