"""Secrets a text holds: keys, tokens, passwords with their value, card numbers.

The gate refuses a candidate that holds one (`gate.GateReason.SECRET`) and history keeps it redacted
(`gate.redact`); the intent models do not read a text that holds one (`poisoning.intent_family`).
"""

from __future__ import annotations

import re

from .personal_data import find_card_number

_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("openai_key", re.compile(r"\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_\-]{16,}")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    ("stripe_key", re.compile(r"\b(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    ("private_key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    # "Bearer <token>": a word-like credential of 16+ characters, not the phrase "bearer token(s)".
    ("bearer_token", re.compile(r"\bbearer\s+(?!tokens?\b)[A-Za-z0-9_\-\.=]{16,}", re.IGNORECASE)),
    # "password: hunter2", "pwd=...", "passcode is 1234" — a credential *value* follows the label.
    (
        "password",
        re.compile(
            r"\b(?:password|passwd|pwd|passcode|pin|secret|api[_ ]?key|access[_ ]?token)\b\s*(?:[:=]|\bis\b)\s*"
            r"(?!(?:reset|required|optional|expired|the|a|an|your|their|his|her|not|case|sent|changed)\b)"
            r"[\"']?[^\s\"']{4,}",
            re.IGNORECASE,
        ),
    ),
)


def find_secret(text: str) -> str | None:
    """The kind of the first secret found in `text` ("openai_key", "card_number", ...), or None."""
    for kind, pattern in _SECRET_PATTERNS:
        if pattern.search(text):
            return kind
    if find_card_number(text):
        return "card_number"
    return None


def redact_secrets(text: str) -> str:
    """`text` with every key, token and password value replaced by "[redacted]"."""
    for _kind, pattern in _SECRET_PATTERNS:
        text = pattern.sub("[redacted]", text)
    return text
