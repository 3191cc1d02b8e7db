"""Claims that grant, in eleven languages: how many a Client Brain holds for evidence, and how many it should not.

`brain_bench grants [--json]`. Eight labelled sets (brain/benchmarks/data/grants_*.jsonl), each half claims that
grant money, credit, access or data and half ordinary business facts (half of those look-alikes on the same
topics), in English and in Spanish, French, German, Italian, Portuguese, Dutch, Polish, Russian, Chinese and
Japanese, each written by an author who never saw the vocabulary (brain/formation/grants.py,
grants_languages.py), in this order:

- `dev` (400): read while the vocabulary was extended (its misses were looked at);
- `test` (400): written after that, read for the vocabulary as committed, its misses never looked at;
- `dev2` (400): written after the first reading of `test`, in deliberately varied words ("just comp it", "we
  won't bill them"), read like `dev` for a second round;
- `dev3` (700; 50 + 50 English, 30 + 30 in each other language): written for a third round, read like `dev`;
- `test2` (400): written beside `dev3` by another author, read once for the third round's vocabulary, its
  misses never looked at;
- `dev4` (700, shaped as `dev3`, over many industries and away from the scenarios the earlier sets repeat): a
  fourth round, read like `dev`;
- `test3` (400): written beside `dev4` by another author, read once for the fourth round's vocabulary (and for
  the two before it, in the same run), its misses never looked at;
- `test4` (399): written after the fourth round by a fifth author, read once for the fifth (data handed to third
  parties) beside the fourth and the session's first checkout, its misses never looked at; one English grant,
  word for word one of `dev4`'s, was taken out.

Two more sets are in twelve languages the vocabulary does not read at all (Turkish, Korean, Arabic, Swedish,
Indonesian, Vietnamese, Czech, Greek and Ukrainian in both; Hungarian, Romanian and Hebrew in `other_dev`, Hindi,
Finnish and Danish in `other_test`), 10 grants and 10 ordinary facts each, by two authors writing apart:
`other_dev` was read while `reading.READ_SHARE` was chosen, `other_test` only for the figures.

A `form` of "action" is read as a process rule's action, as `evidence.hold_reason` reads one.

A claim counts as held when `evidence.policy_hold` holds it whatever stands beside it: `grant_in` names a grant,
or the claim is in a language the vocabulary does not read (`reading.unread_language`). The control is public
text: the distinct business facts the local producer keeps from the Bitext sample's 4,514 replies (read at run
time from BRAIN_BITEXT_CSV, never copied), which are ordinary support policy — holding one delays it until three
customers' tickets corroborate it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from brain.client_brain.producers import extract_local
from brain.formation.evidence import policy_hold
from brain.models import MemoryType

from .trust import _evidence, bitext_responses

DATA = Path(__file__).parent / "data"
READ_SPLITS = ("dev", "dev2", "dev3", "dev4", "test", "test2", "test3", "test4")
OTHER_SPLITS = ("other_dev", "other_test")
SPLITS = READ_SPLITS + OTHER_SPLITS


def add_arguments(parser) -> None:
    parser.add_argument("--no-bitext", action="store_true", help="Skip the Bitext control (no CSV needed).")


def labelled(split: str) -> list[dict]:
    return [
        json.loads(line) for line in (DATA / f"grants_{split}.jsonl").open(encoding="utf-8") if line.strip()
    ]


def split_figures(rows: list[dict]) -> dict:
    """Per language and over all: grants held of grants, ordinary facts held of ordinary ones."""
    counts: Counter = Counter()
    for row in rows:
        held = held_alone(row["text"], action=row.get("form") == "action")
        for lang in {row["lang"], "all", "other" if row["lang"] != "en" else "en"}:
            counts[(lang, row["label"], "n")] += 1
            counts[(lang, row["label"], "held")] += held
    langs = sorted({lang for lang, _, _ in counts}, key=lambda lang: (lang in ("all", "other"), lang))
    return {
        lang: {
            "grants": counts[(lang, "grant", "n")],
            "grants_held": counts[(lang, "grant", "held")],
            "ordinary": counts[(lang, "ordinary", "n")],
            "ordinary_held": counts[(lang, "ordinary", "held")],
        }
        for lang in langs
    }


def held_alone(text: str, *, action: bool = False) -> bool:
    """Whether a business fact (or a process rule's `action`) waits for corroboration whatever stands beside it."""
    if action:
        return policy_hold(MemoryType.PROCESS, {"action": text}, text) is not None
    return policy_hold(MemoryType.BUSINESS, {}, text) is not None


def bitext_control() -> dict:
    facts = {
        item["value"]["fact"]
        for reply in bitext_responses()
        for item in extract_local(_evidence(reply=reply).payload())["memories"]
        if item["type"] == "business"
    }
    return {"facts": len(facts), "facts_held": sum(held_alone(fact) for fact in facts)}


def _percent(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "0/0"


def run(options, stdout) -> dict:
    figures: dict = {}
    for split in SPLITS:
        figures[split] = split_figures(labelled(split))
        stdout.write(f"{split}: grants held / ordinary facts held, per language")
        for lang, row in figures[split].items():
            stdout.write(
                f"  {lang:>5}  grants {_percent(row['grants_held'], row['grants']):>16}"
                f"  ordinary {_percent(row['ordinary_held'], row['ordinary']):>14}"
            )
    if not options.get("no_bitext"):
        figures["bitext"] = bitext_control()
        stdout.write(
            "Bitext control: business facts the local producer keeps, held as grants: "
            + _percent(figures["bitext"]["facts_held"], figures["bitext"]["facts"])
        )
    return figures
