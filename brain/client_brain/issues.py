"""One memory per issue (issue 27): what an issue is keyed by, and the reports it gathers; with the small text
helpers the Client Brain's extraction shares.

- Key: the problem's identity is the helpdesk's classification, else the subject's content words
  (`topic`); formation reinforces the one row of a key (brain.formation.judge).
- Reports: every ticket that reinforces an issue and puts it in words the row does not hold adds its subject
  to the row's `reports` (at most MAX_REPORTS), rendered into the row's text ("also reported as: ..."), so
  the spec's word-overlap recall finds the issue however customers put it; the text is re-embedded after
  commit. What an issue is reported as is untrusted text that passed the gate with its ticket's candidate.
- The best resolution: the first ticket's stays, until one says what was done where it only walked the
  customer through steps (`resolved_by`: "action" beats "steps").
- The customer's identifiers are not the problem: a subject's order number, phone, e-mail or name is taken out
  before it keys, names or reports an issue (`issue_subject`), so that "Cancel purchase 113542617735902"
  reinforces the cancellation issue instead of being refused by the gate for its personal data.
"""

from __future__ import annotations

import re
from typing import Any

from brain.formation.personal_data import find_personal_data
from brain.formation.personal_words import PersonalDataKind
from brain.formation.writes import enqueue_embedding
from brain.models import Memory

from . import typed
from .words import words as client_words

MAX_TEXT = 400  # characters of one field of an extracted memory


def clip(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


_MAX_IDENTIFIERS = 4  # a subject with more is no report of a problem: it is dropped
_NUMBERS = (PersonalDataKind.ORDER_NUMBER, PersonalDataKind.PHONE, PersonalDataKind.CARD_NUMBER)
_LEFT_BEHIND = re.compile(r"(?:\s*(?:#|no\.?|nr\.?|number)\s*)+(?=[\s,.;:!?)]|$)", re.I)


def issue_subject(subject: str) -> str:
    """`subject` without the customer's identifiers the gate refuses (order numbers, phones, e-mails, card
    numbers, names: `find_personal_data`, as the learning worker runs it), or "" when it holds more than a
    few. What remains is how the customer put the problem."""
    text = " ".join((subject or "").split())
    for _ in range(_MAX_IDENTIFIERS):
        hit = find_personal_data(text)
        if hit is None:
            return clip(" ".join(_LEFT_BEHIND.sub("", text).split()).strip(" ,;:-"), 160)
        # Only the identifier goes, not the word that announced it: "order 7322013" leaves "order".
        found = re.search(r"[#\d]", hit.value) if hit.kind in _NUMBERS else None
        value = hit.value[found.start() :] if found else hit.value
        text = " ".join(text.replace(value, " ").split())
    return ""


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
    such as "help" or "problem", no numbers: "Order 4471 late" is "order 5512 late"'s problem), singular,
    sorted, at most six, so "Help with my router" and "Router help" are one problem and "Help with router"
    and "Help with printer" are two."""
    found = sorted(
        {
            w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
            for w in client_words(subject)
            if w not in _REQUEST_WORDS and not any(ch.isdigit() for ch in w)
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


MAX_REPORTS = 12


def reports_gather(payload: dict, key: str, text: str, reports: list[str]) -> None:
    """Add to an issue payload's `reports` each report that brings a word its key, its text and the reports
    kept so far do not hold, while fewer than MAX_REPORTS are kept (in place; unchanged when none does)."""
    kept = [r for r in payload.get("reports") or [] if isinstance(r, str)]
    held = set(client_words(key, text))
    for report in reports:
        words = set(client_words(report))
        if report and len(kept) < MAX_REPORTS and words - held:
            kept.append(report)
            held |= words
    if kept:
        payload["reports"] = kept


def issues_reinforced(tenant_id: int, reinforced: list[tuple[int, str, dict]]) -> list[int]:
    """What each issue row a ticket reinforced learns from it — (row id, the ticket's subject, the candidate's
    payload): the subject, when it brings a word the row's key and text do not hold, joins the row's reports;
    a resolution that says what was done ("resolved_by": "action") replaces one that only walked the customer
    through steps. Returns the ids of the rows changed. Runs in the transaction that reinforced them (the rows
    are locked there); the changed rows are re-embedded after commit."""
    seen: dict[int, list[tuple[str, dict]]] = {}
    for memory_id, report, payload in reinforced:
        seen.setdefault(memory_id, []).append((clip(report or "", 160), payload or {}))
    changed = []
    rows = Memory.objects.for_tenant(tenant_id).filter(pk__in=list(seen), type=typed.ISSUES)
    for row in rows.select_for_update().only("id", "key", "text", "payload", "frequency"):
        payload = dict(row.payload) if isinstance(row.payload, dict) else None
        if payload is None or not typed.is_typed(typed.ISSUES, payload):
            continue
        before = dict(payload)
        reports_gather(payload, row.key, row.text, [report for report, _ in seen[row.pk]])
        for _, candidate in seen[row.pk]:
            if candidate.get("resolved_by") == "action" and payload.get("resolved_by") != "action":
                payload.update(best_resolution=candidate["best_resolution"], resolved_by="action")
        if payload == before:
            continue
        payload["frequency"] = row.frequency
        row.payload, row.text = payload, typed.render_value(typed.ISSUES, payload)
        row.save(update_fields=["payload", "text"])
        changed.append(row.pk)
    if changed:
        enqueue_embedding(tenant_id, changed)
    return changed
