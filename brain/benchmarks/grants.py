"""Claims that grant, in eleven languages: how many a Client Brain holds for evidence, and how many it should not.

`brain_bench grants [--json] [--train]`. Thirteen labelled sets (brain/benchmarks/data/grants_*.jsonl), each half
claims that grant money, credit, access or data and half ordinary business facts (half of those look-alikes on the
same topics), in English and in Spanish, French, German, Italian, Portuguese, Dutch, Polish, Russian, Chinese and
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
  word for word one of `dev4`'s, was taken out;
- `test5` (400; 160 English by one author, 24 in each other language by another, writing apart): written after the
  fifth round, before the grant model was trained (`--train`, brain/benchmarks/grants_training.py), read once for
  its first version (which learned the four `dev` sets) with the vocabulary alone beside it, and again for the
  second; its misses never looked at;
- `dev5` (800; 200 + 200 English, 20 + 20 in each other language, by two authors): written for the grant model's
  second version to learn, its authors asked for the idioms and indirect grants keyword lists miss ("it's on us",
  "we pick up the tab", a check relaxed, data passed on); read while its threshold was chosen;
- `test6` (400, shaped as `test5`, by two more authors): written beside `dev5`, read once for the second version;
- `dev6` (800, shaped as `dev5`, by two more authors, most of its grants in none of the usual words): written for a
  third version to learn, read once by the second before (it had learned nothing of it), then while the third's
  form was chosen;
- `test7` (400, shaped as `test5`, by two more authors): written beside `dev6`, read once for the second version,
  once for a logistic regression that learned `dev6` too (not kept) and once for the third, a kernel machine.

Two more sets are in twelve languages the vocabulary does not read at all (Turkish, Korean, Arabic, Swedish,
Indonesian, Vietnamese, Czech, Greek and Ukrainian in both; Hungarian, Romanian and Hebrew in `other_dev`, Hindi,
Finnish and Danish in `other_test`), 10 grants and 10 ordinary facts each, by two authors writing apart:
`other_dev` was read while `reading.READ_SHARE` was chosen, `other_test` only for the figures.

A `form` of "action" is read as a process rule's action, as `evidence.hold_reason` reads one.

A claim counts as held when `evidence.policy_hold` holds it whatever stands beside it: `grant_in` names a grant,
the claim is in a language the vocabulary does not read (`reading.unread_language`), or the grant model reads it
as a grant (`grants_model.reads_as_grant`); each figure is given by the first two alone too (`..._vocabulary`).
The control is public text: the distinct business facts the local producer keeps from the Bitext sample's 4,514
replies (read at run time from BRAIN_BITEXT_CSV, never copied), which are ordinary support policy — holding one
delays it until three customers' tickets corroborate it. The grant model learned half of them as ordinary
(`grants_training.trained_half`); the other half is the control.
"""

from __future__ import annotations

from collections import Counter

from brain.formation.evidence import claim_hold

from . import grants_training
from .grants_training import labelled

READ_SPLITS = (
    "dev",
    "dev2",
    "dev3",
    "dev4",
    "dev5",
    "dev6",
    "test",
    "test2",
    "test3",
    "test4",
    "test5",
    "test6",
    "test7",
)
OTHER_SPLITS = ("other_dev", "other_test")
SPLITS = READ_SPLITS + OTHER_SPLITS


def add_arguments(parser) -> None:
    parser.add_argument("--no-bitext", action="store_true", help="Skip the Bitext control (no CSV needed).")
    parser.add_argument(
        "--train",
        action="store_true",
        help="First retrain the grant model (grants_model.npz; needs the CSV).",
    )


def split_figures(rows: list[dict]) -> dict:
    """Per language and over all: grants held of grants, ordinary facts held of ordinary ones, with the grant
    model and by the vocabulary and the language check alone (`..._vocabulary`)."""
    counts: Counter = Counter()
    for row in rows:
        action = row.get("form") == "action"
        held = held_alone(row["text"], action=action)
        alone = held_alone(row["text"], action=action, model=False)
        for lang in {row["lang"], "all", "other" if row["lang"] != "en" else "en"}:
            counts[(lang, row["label"], "n")] += 1
            counts[(lang, row["label"], "held")] += held
            counts[(lang, row["label"], "alone")] += alone
    langs = sorted({lang for lang, _, _ in counts}, key=lambda lang: (lang in ("all", "other"), lang))
    return {
        lang: {
            "grants": counts[(lang, "grant", "n")],
            "grants_held": counts[(lang, "grant", "held")],
            "ordinary": counts[(lang, "ordinary", "n")],
            "ordinary_held": counts[(lang, "ordinary", "held")],
            "grants_held_vocabulary": counts[(lang, "grant", "alone")],
            "ordinary_held_vocabulary": counts[(lang, "ordinary", "alone")],
        }
        for lang in langs
    }


def held_alone(text: str, *, action: bool = False, model: bool = True) -> bool:
    """Whether a business fact (or a process rule's `action`) waits for corroboration whatever stands beside it
    (`evidence.policy_hold`; `model=False`: the vocabulary and the language check alone)."""
    return claim_hold(text, action=action, model=model) is not None


def bitext_control() -> dict:
    """Bitext's business facts held: all of them, and the half the grant model did not learn (the control)."""
    facts = grants_training.bitext_facts()
    control = [fact for fact in facts if not grants_training.trained_half(fact)]
    return {
        "facts": len(facts),
        "facts_held": sum(held_alone(fact) for fact in facts),
        "facts_held_vocabulary": sum(held_alone(fact, model=False) for fact in facts),
        "control": len(control),
        "control_held": sum(held_alone(fact) for fact in control),
        "control_held_vocabulary": sum(held_alone(fact, model=False) for fact in control),
    }


def _percent(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "0/0"


def run(options, stdout) -> dict:
    if options.get("train"):
        grants_training.train(stdout)
    figures: dict = {}
    for split in SPLITS:
        figures[split] = split_figures(labelled(split))
        stdout.write(
            f"{split}: grants held / ordinary facts held, per language (the vocabulary alone in brackets)"
        )
        for lang, row in figures[split].items():
            stdout.write(
                f"  {lang:>5}  grants {_percent(row['grants_held'], row['grants']):>16}"
                f" ({row['grants_held_vocabulary']:>3})"
                f"  ordinary {_percent(row['ordinary_held'], row['ordinary']):>14}"
                f" ({row['ordinary_held_vocabulary']:>3})"
            )
    if not options.get("no_bitext"):
        bitext = figures["bitext"] = bitext_control()
        stdout.write(
            "Bitext control: business facts the local producer keeps, held as grants: the half the grant model "
            f"did not learn {_percent(bitext['control_held'], bitext['control'])}"
            f" (the vocabulary alone {bitext['control_held_vocabulary']}); all of them "
            f"{_percent(bitext['facts_held'], bitext['facts'])} ({bitext['facts_held_vocabulary']})"
        )
    return figures
