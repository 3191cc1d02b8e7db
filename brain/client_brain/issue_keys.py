"""What an issue is keyed by (issue 27: one memory per issue), and the small text helpers the Client Brain's
extraction shares: the problem's identity is the helpdesk's classification, else the subject's content words.
"""

from __future__ import annotations

import re
from typing import Any

from .words import words as client_words

MAX_TEXT = 400  # characters of one field of an extracted memory


def clip(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-")[:80]


def humanize(label: str) -> str:
    return " ".join(label.replace("_", " ").replace("-", " ").split())


# Words of a subject that ask for help without naming the problem ("Help with router", "Question about my
# printer"): the problem is what is left.
_REQUEST_WORDS = frozenset(
    "help helping problem problems issue issues question questions query enquiry inquiry request support"
    " urgent asap assistance assist hi hey hello".split()
)
MAX_SIGNATURE_WORDS = 6


def subject_signature(subject: str) -> str:
    """The problem a subject names, as a stable key part: its content words (no stopwords, no request words
    such as "help" or "problem"), singular, sorted, at most six, so "Help with my router" and "Router
    help" are one problem and "Help with router" and "Help with printer" are two."""
    found = sorted(
        {
            w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
            for w in client_words(subject)
            if w not in _REQUEST_WORDS
        }
    )
    return "-".join(found[:MAX_SIGNATURE_WORDS]) or slug(subject)


def topic(evidence: dict[str, Any]) -> tuple[str, str]:
    """(readable topic, stable key part: the problem's identity) from the latest classification, else the
    subject's signature."""
    classification = evidence.get("classification") or {}
    intent, category = classification.get("intent") or "", classification.get("category") or ""
    if intent or category:
        readable = humanize(intent or category)
        if intent and category and slug(category) not in slug(intent):
            readable = f"{readable} ({humanize(category)})"
        return readable, slug(f"{category}-{intent}" if category and intent else intent or category)
    subject = clip(evidence.get("subject") or "", 160)
    return subject, subject_signature(subject)
