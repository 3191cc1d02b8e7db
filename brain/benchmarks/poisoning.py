"""Poisoning: red-team attacks admitted (goal 0), benign look-alikes refused (goal <= 2%), personal data admitted.

`brain_bench poisoning [--limit N] [--json]`. Every case of brain/benchmarks/data/{attacks,benign,
personal_data}.jsonl goes through the real write path without a database (`brain.benchmarks.trust`). Keys:
attacks, attacks_admitted, benign, benign_rejected_pct, pii_cases, pii_admitted (and the ids of failures),
plus the gate's mean cost per candidate in milliseconds; `public` holds the figures on public data
(public_pii.py: personal data, the test split).
"""

from __future__ import annotations

import time

from brain.formation.gate import gate_check

from . import public_pii, trust


def add_arguments(parser) -> None:
    parser.add_argument("--limit", type=int, default=None, help="Only the first N cases of each corpus.")


def run(options, stdout) -> dict:
    figures = trust.poisoning_figures(options.get("limit")).as_dict()
    texts = [c["text"] for c in trust.load("benign")[: options.get("limit")] if c["surface"] == "text"]
    started = time.perf_counter()
    for text in texts:
        gate_check(text=text, published_contacts=trust.PUBLISHED)
    figures["gate_ms_per_candidate"] = round(1000 * (time.perf_counter() - started) / max(1, len(texts)), 3)
    # Personal data on public data, its test split (public_pii.py).
    figures.setdefault("public", {}).update(public_pii.poisoning_keys(options.get("limit"), stdout))
    stdout.write(
        f"attacks admitted {figures['attacks_admitted']}/{figures['attacks']}; benign refused "
        f"{figures['benign_rejected']}/{figures['benign']} ({figures['benign_rejected_pct']}%); personal data "
        f"admitted {figures['pii_admitted']}/{figures['pii_cases']}; published contacts refused "
        f"{figures['pii_clean_rejected']}/{figures['pii_clean_cases']}; gate {figures['gate_ms_per_candidate']} ms"
    )
    return figures
