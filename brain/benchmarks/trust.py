"""Trust corpora: what the formation gate and the producers admit of attacks, personal data and meaning.

Shared by `brain_bench poisoning`, `brain_bench extraction` and their tests. Pure: no database. Each case
goes through the same code a real write does (the local extractor or chat miner, then `gate_check`), with
the business's published contacts of the corpus (`PUBLISHED` in data/build_corpora.py). The corpora are the
JSON-lines files in brain/benchmarks/data/ (one copy; the tests read them too). The extraction corpus also
reads replies from the Bitext sample in ../shared/datasets/ at run time (the setting `BRAIN_BITEXT_CSV`
overrides the path); it stops with an error naming the path when the file is missing.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from brain.client_brain import typed
from brain.client_brain.producers import TicketEvidence, candidate_from_item, extract_local
from brain.formation.evidence import hold_reason
from brain.formation.gate import GateVerdict, gate_check
from brain.formation.miner import mine_conversation
from brain.formation.text import normalise

from .common import bitext_path

DATA = Path(__file__).parent / "data"
PUBLISHED = ("support@acme.test", "acme.test", "+44 20 7946 0000", "12 Harbour Road")
_SIGN_OFF_WORDS = re.compile(
    r"\b(?:regards|sincerely|cheers|many thanks|have a great day|acme (?:support|crew|team|customer care))\b",
    re.I,
)


def load(name: str) -> list[dict[str, Any]]:
    with (DATA / f"{name}.jsonl").open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


# --- one case through the real write path ---------------------------------------------------------------------


def _evidence(
    *, reply: str = "", subject: str = "Question about my order", classification=None
) -> TicketEvidence:
    return TicketEvidence(
        tenant_id=0,
        ticket_id=0,
        external_id="bench",
        subject=subject,
        status="solved",
        classification=classification or {"category": "orders", "intent": "refund", "labels": []},
        latest_reply={"body": reply} if reply else None,
    )


def ticket_outcomes(evidence: TicketEvidence) -> list[tuple[dict, GateVerdict]]:
    """Each memory the local extractor proposes for `evidence`, with the gate's verdict on its candidate; the
    item also says (`held`) whether, learned into an empty Client Brain, it would wait for evidence as a draft
    (a business fact or process rule that grants: `evidence.hold_reason`) instead of being injected at once."""
    results = []
    for item in extract_local(evidence.payload())["memories"]:
        if not typed.is_typed(item["type"], item["value"]):
            continue
        candidate = candidate_from_item(evidence, item, "local")
        verdict = gate_check(
            text=candidate.text, source_texts=candidate.source_texts, published_contacts=PUBLISHED
        )
        results.append(({**item, "held": hold_reason(candidate, []) is not None}, verdict))
    return results


def chat_outcomes(messages: list[dict]) -> list[tuple[str, GateVerdict]]:
    mined, _miner = mine_conversation(messages=messages)
    return [(m.text, gate_check(text=m.text, published_contacts=PUBLISHED)) for m in mined]


def attack_admitted(case: dict) -> bool:
    """True when anything of the attack would be written as a memory."""
    surface = case["surface"]
    if surface == "text":
        return gate_check(text=case["text"], published_contacts=PUBLISHED).passed
    if surface == "chat":
        return any(v.passed for _t, v in chat_outcomes(case["messages"]))
    benign_reply = "Hello,\n\nWe have sent a replacement by courier.\n\nKind regards,\nAcme Support"
    evidence = _evidence(
        reply=case.get("reply", benign_reply),
        subject=case.get("subject", "Question about my order"),
        classification=case.get("classification"),
    )
    return any(v.passed for _item, v in ticket_outcomes(evidence))


def benign_rejection(case: dict) -> str | None:
    """The reason a benign look-alike was refused, or None when it is learned."""
    if case["surface"] == "text":
        verdict = gate_check(text=case["text"], published_contacts=PUBLISHED)
        return None if verdict.passed else verdict.reason
    facts = [
        item["value"]["fact"]
        for item, verdict in ticket_outcomes(_evidence(reply=case["reply"]))
        if item["type"] == typed.BUSINESS and verdict.passed
    ]
    return None if case["expect_fact"] in facts else "not_learned"


def personal_data_admitted(case: dict) -> bool:
    return gate_check(text=case["text"], published_contacts=case.get("published", PUBLISHED)).passed


# --- poisoning ------------------------------------------------------------------------------------------------


@dataclass
class PoisoningFigures:
    attacks: int = 0
    attacks_admitted: int = 0
    benign: int = 0
    benign_rejected: int = 0
    pii_cases: int = 0
    pii_admitted: int = 0
    clean_cases: int = 0
    clean_rejected: int = 0
    admitted_ids: list[str] = field(default_factory=list)
    rejected_ids: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "attacks": self.attacks,
            "attacks_admitted": self.attacks_admitted,
            "benign": self.benign,
            "benign_rejected": self.benign_rejected,
            "benign_rejected_pct": round(100 * self.benign_rejected / self.benign, 2) if self.benign else 0.0,
            "pii_cases": self.pii_cases,
            "pii_admitted": self.pii_admitted,
            "pii_clean_cases": self.clean_cases,
            "pii_clean_rejected": self.clean_rejected,
            "admitted_ids": self.admitted_ids,
            "rejected_ids": self.rejected_ids,
        }


def poisoning_figures(limit: int | None = None) -> PoisoningFigures:
    figures = PoisoningFigures()
    for case in load("attacks")[:limit]:
        figures.attacks += 1
        if attack_admitted(case):
            figures.attacks_admitted += 1
            figures.admitted_ids.append(case["id"])
    for case in load("benign")[:limit]:
        figures.benign += 1
        if benign_rejection(case):
            figures.benign_rejected += 1
            figures.rejected_ids.append(case["id"])
    for case in load("personal_data")[:limit]:
        admitted = personal_data_admitted(case)
        if case["kind"]:
            figures.pii_cases += 1
            if admitted:
                figures.pii_admitted += 1
                figures.admitted_ids.append(case["id"])
        else:
            figures.clean_cases += 1
            if not admitted:
                figures.clean_rejected += 1
                figures.rejected_ids.append(case["id"])
    return figures


# --- extraction -----------------------------------------------------------------------------------------------


@cache
def bitext_responses() -> tuple[str, ...]:
    with bitext_path().open(encoding="utf-8", newline="") as handle:
        return tuple(row["response"] for row in csv.DictReader(handle))


# Bitext's anonymised slots, filled the way a real reply would read (an order number stays personal data).
_BITEXT_SLOTS = {
    "Purchase ID Anonymized": "order 4587345",
    "Order Number": "order 4587345",
    "Customer Support Phone Number": "+44 20 7946 0000",
    "Customer Support Email": "support@acme.test",
    "Website URL": "acme.test",
    "Website Name": "the Acme website",
    "Person Name": "Bob",
    "Client First Name": "Bob",
}


def bitext_fill(response: str) -> str:
    """A Bitext reply with its anonymised {{slots}} filled the way a real reply would read."""
    return re.sub(
        r"\{\{\s*([^}]+?)\s*\}\}", lambda m: _BITEXT_SLOTS.get(m.group(1), m.group(1).lower()), response
    )


@dataclass
class ExtractionFigures:
    cases: int = 0
    expected_facts: int = 0
    facts_kept: int = 0
    fragments: int = 0
    sign_offs_admitted: int = 0
    personal_data_admitted: int = 0
    examples: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "expected_facts": self.expected_facts,
            "facts_kept": self.facts_kept,
            "facts_kept_pct": round(100 * self.facts_kept / self.expected_facts, 2)
            if self.expected_facts
            else 0.0,
            "fragments": self.fragments,
            "sign_offs_admitted": self.sign_offs_admitted,
            "personal_data_admitted": self.personal_data_admitted,
            "examples": self.examples[:20],
        }


def is_fragment(text: str) -> bool:
    """Not a sentence: fewer than three words, or no capital start and full stop."""
    stripped = text.strip()
    return len(normalise(stripped).split()) < 3 or not stripped[:1].isupper() or stripped[-1:] not in ".!?"


def _admitted_texts(case: dict) -> list[str]:
    if case["kind"] == "chat":
        return [text for text, verdict in chat_outcomes(case["messages"]) if verdict.passed]
    if case["kind"] == "bitext":
        response = bitext_fill(bitext_responses()[case["row"]])
        body = f"{case['greeting']}\n\n{response}\n\n{case['sign_off']}"
    else:
        body = case["body"]
    texts = []
    for item, verdict in ticket_outcomes(_evidence(reply=body)):
        if verdict.passed and item["type"] in (typed.BUSINESS, typed.ISSUES):
            value = item["value"]
            texts += [value["fact"]] if item["type"] == typed.BUSINESS else [value["best_resolution"]]
    return texts


def extraction_figures(limit: int | None = None) -> ExtractionFigures:
    figures = ExtractionFigures()
    for case in load("extraction")[:limit]:
        figures.cases += 1
        admitted = _admitted_texts(case)
        expected = case.get("expect_facts") or case.get("expect_texts") or []
        figures.expected_facts += len(expected)
        figures.facts_kept += sum(1 for text in expected if text in admitted)
        for text in admitted:
            sentences = re.split(r"(?<=[.!?])\s+", text)
            if any(is_fragment(s) for s in sentences):
                figures.fragments += 1
                figures.examples.append(f"{case['id']} fragment: {text}")
            if _SIGN_OFF_WORDS.search(text):
                figures.sign_offs_admitted += 1
                figures.examples.append(f"{case['id']} sign-off: {text}")
            if any(re.search(rf"\b{re.escape(p)}\b", text) for p in case.get("personal", [])):
                figures.personal_data_admitted += 1
                figures.examples.append(f"{case['id']} personal data: {text}")
    return figures
