"""Personal data beyond the word lists: more identities and names in no list, on the train and dev templates.

`brain_bench pii_stress [--split dev] [--extra 9] [--held-out 0.2] [--json]`. Benchmark only, and never on the
test split (public_pii.py keeps that for the README's figures): the frozen split's train and dev templates
are too few to tune on without learning their sentences by heart, and their names are mostly in the
filter's lists. Two measures:

- more identities: each template of the split filled `--extra` more times (samples past public_pii.SAMPLES,
  other Fake Name Generator identities), the same figures as public_pii's;
- unknown names: a random part (`--held-out`) of Faker's first names and surnames is taken out of the
  filter's Lexicon for the run (pii_model.lexicon_without: every list built from the Lexicon is built again
  without it), and each identity's names are drawn from that part only — names in no list, as a customer's
  may be. Only names that are no English word and no place are drawn (the filter lets those go by design).
"""

from __future__ import annotations

import random
import re
import time
from functools import cache
from typing import Any

from brain.formation import pii_model
from brain.formation.gate import gate_check
from brain.formation.personal_data import find_personal_data

from . import public_pii
from .trust import PUBLISHED

SEED = 2612
EXTRA = 9
HELD_OUT = 0.2
_LATIN = re.compile(r"[A-Za-zÀ-ÖØ-öø-žƀ-ɏ]{3,}(?:-[A-Za-zÀ-ÖØ-öø-ž]{3,})?")


def add_arguments(parser) -> None:
    parser.add_argument(
        "--split", default="dev", choices=("train", "dev"), help="Template split (never test)."
    )
    parser.add_argument("--extra", type=int, default=EXTRA, help="More sentences per template.")
    parser.add_argument("--held-out", type=float, default=HELD_OUT, help="Part of Faker's names held out.")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N templates.")


@cache
def _faker_names() -> dict[str, dict[str, str]]:
    """{"first": {folded: spelling}, "last": {...}}: Faker's names written in the Latin alphabet."""
    out: dict[str, dict[str, str]] = {"first": {}, "last": {}}
    for kind, values in pii_model.faker_lists():
        if kind == "place":
            continue
        for value in sorted(values.keys() if isinstance(values, dict) else values):
            if isinstance(value, str) and _LATIN.fullmatch(value) and value[0].isupper():
                out[kind].setdefault(pii_model._fold(value), value.title() if value.isupper() else value)
    return out


def held_out_names(fraction: float, seed: int = SEED) -> tuple[frozenset[str], list[str], list[str]]:
    """(folded names taken out of the Lexicon, first names and surnames to draw from them): a random part of
    Faker's first names and surnames, those that are no English word and no place."""
    names = _faker_names()
    everything = sorted(set(names["first"]) | set(names["last"]))
    held = frozenset(random.Random(seed).sample(everything, int(len(everything) * fraction)))
    words = pii_model.lexicon()

    def drawable(folded: str) -> bool:
        return words is None or not (words.is_english(folded) or words.is_place(folded))

    firsts = [names["first"][f] for f in sorted(held & set(names["first"])) if drawable(f)]
    lasts = [names["last"][f] for f in sorted(held & set(names["last"])) if drawable(f)]
    return held, firsts, lasts


def unknown_identities(firsts: list[str], lasts: list[str], seed: int = SEED) -> tuple[dict, ...]:
    """The evaluator's identities with a held-out first name and surname each (fixed seed)."""
    rng = random.Random(seed)
    return tuple(
        {**person, "GivenName": rng.choice(firsts), "Surname": rng.choice(lasts)}
        for person in public_pii._raw_data()[1]
    )


def _templates(split: str, limit: int | None) -> list[int]:
    if split not in ("train", "dev"):
        raise ValueError("the stress measures read the train and dev templates only")
    return public_pii.splits()["templates"][split][:limit]


def _count(sentences, figures: dict[str, Any]) -> None:
    for sentence in sentences:
        if sentence.other and not sentence.kinds:
            continue
        if sentence.kinds:
            passed = gate_check(text=sentence.text, published_contacts=PUBLISHED).passed
            figures["cases"] += 1
            figures["admitted"] += passed
            for kind in sentence.kinds:
                counts = figures["by_kind"].setdefault(kind, [0, 0])
                counts[0] += 1
                counts[1] += passed
            if passed:
                figures["admitted_examples"].append(f"{sentence.template_id}: {sentence.text}")
        else:
            refused = find_personal_data(sentence.text, published=PUBLISHED) is not None
            figures["benign"] += 1
            figures["benign_refused"] += refused
            if refused:
                figures["refused_examples"].append(f"{sentence.template_id}: {sentence.text}")


def _empty() -> dict[str, Any]:
    keys = ("cases", "admitted", "benign", "benign_refused")
    return {**dict.fromkeys(keys, 0), "by_kind": {}, "admitted_examples": [], "refused_examples": []}


def stress_figures(
    split: str = "dev", extra: int = EXTRA, held_out: float = HELD_OUT, limit: int | None = None
) -> dict[str, Any]:
    ids = _templates(split, limit)
    samples = range(public_pii.SAMPLES, public_pii.SAMPLES + extra)
    more, unknown = _empty(), _empty()
    started = time.process_time()
    with pii_model.used():
        _count((public_pii.fill(t, s) for t in ids for s in samples), more)
        held, firsts, lasts = held_out_names(held_out)
        identities = unknown_identities(firsts, lasts)
        with pii_model.lexicon_without(held):
            _count(
                (
                    sentence
                    for t in ids
                    for s in range(public_pii.SAMPLES + extra)
                    if "name" in (sentence := public_pii.fill(t, s, identities)).kinds
                ),
                unknown,
            )
    names = unknown["by_kind"].get("name", [0, 0])
    return {
        "split": split,
        "extra_samples": extra,
        "held_out": held_out,
        "more_identities": {**more, "by_kind": {k: v for k, v in sorted(more["by_kind"].items())}},
        "unknown_names": {
            "held_out_names": len(held),
            "drawn_from": [len(firsts), len(lasts)],
            "cases": unknown["cases"],
            "admitted": unknown["admitted"],
            "names_admitted": names[1],
            "name_cases": names[0],
            "admitted_examples": unknown["admitted_examples"],
        },
        "cpu_s": round(time.process_time() - started, 2),
    }


def run(options, stdout) -> dict:
    figures = stress_figures(
        options.get("split") or "dev",
        options.get("extra", EXTRA),
        options.get("held_out", HELD_OUT),
        options.get("limit"),
    )
    more, unknown = figures["more_identities"], figures["unknown_names"]
    stdout.write(
        f"{figures['split']}: more identities admitted {more['admitted']}/{more['cases']}, benign refused "
        f"{more['benign_refused']}/{more['benign']}; names in no list admitted {unknown['admitted']}/"
        f"{unknown['cases']} ({figures['cpu_s']} s CPU)"
    )
    return figures
