"""Extraction: ticket replies and chats through the producers and the chat miner — facts kept with their
meaning, fragments, sign-offs and personal data admitted (goal 0 for the last three).

`brain_bench extraction [--limit N] [--json]`. The labelled corpus is brain/benchmarks/data/extraction.jsonl:
hand-written replies and chats with the facts they must yield, and picked rows of the Bitext sample (read from
../shared/datasets/ at run time; missing, the run fails) wrapped in a greeting with a customer's name and a
sign-off. No database.
"""

from __future__ import annotations

from . import trust


def add_arguments(parser) -> None:
    parser.add_argument("--limit", type=int, default=None, help="Only the first N cases of the corpus.")


def run(options, stdout) -> dict:
    figures = trust.extraction_figures(options.get("limit")).as_dict()
    stdout.write(
        f"{figures['cases']} cases: facts kept {figures['facts_kept']}/{figures['expected_facts']} "
        f"({figures['facts_kept_pct']}%); fragments {figures['fragments']}; sign-offs admitted "
        f"{figures['sign_offs_admitted']}; personal data admitted {figures['personal_data_admitted']}"
    )
    for example in figures["examples"]:
        stdout.write(f"  {example}")
    return figures
