"""Training the intent classifier (`brain/formation/intent.py`): `brain_bench poisoning --train`.

Fits a logistic regression (scikit-learn, the `dev` extra; the product itself only reads the weights with
numpy) on the train split of the public corpora plus the in-house corpora and a small hand-written set of
ordinary non-English customer messages (the packages hold few benign texts outside English, and a model that
saw non-English text only in attacks would refuse every German customer). The regularisation and the
threshold are chosen on the dev split; the test split is never read here.

The threshold is the lowest score at which the gate (rules, then the classifier) refuses at most
`BENIGN_BUDGET` of the dev split's benign texts and none of the in-house benign texts.
"""

from __future__ import annotations

import itertools
import json

import numpy as np

from brain.client_brain import typed
from brain.formation.intent import BUCKETS, SIGNALS, feature_columns, intent_model, save_model
from brain.formation.poisoning import classified, rule_family

from . import public_corpora, trust

BENIGN_BUDGET = 0.01
C_GRID = (1.0, 4.0, 16.0, 64.0)
MULTILINGUAL_BENIGN = trust.DATA / "intent_benign_multilingual.jsonl"


def _matrix(texts: list[str]):
    from scipy.sparse import csr_matrix

    rows, cols, vals = [], [], []
    for i, text in enumerate(texts):
        columns = feature_columns(text)
        rows += [i] * len(columns)
        cols += columns.tolist()
        vals += [1.0 / np.sqrt(max(1, len(columns)))] * len(columns)
    return csr_matrix((vals, (rows, cols)), shape=(len(texts), BUCKETS + len(SIGNALS)))


def in_house_texts() -> tuple[list[str], list[str]]:
    """(attacks, benign): every free text of the in-house corpora, whatever surface it arrives by."""

    def texts(case: dict) -> list[str]:
        found = [case.get(key) for key in ("text", "reply", "subject")]
        found += [m["content"] for m in case.get("messages", [])]
        return [t for t in found if t]

    attacks = [t for case in trust.load("attacks") for t in texts(case)]
    # Every in-house text that is not an attack: look-alikes, facts with and without personal data, replies.
    benign = [t for name in ("benign", "personal_data") for case in trust.load(name) for t in texts(case)]
    for case in trust.load("extraction"):
        benign += [*texts({**case, "reply": case.get("body")}), *case.get("expect_facts", [])]
    with MULTILINGUAL_BENIGN.open(encoding="utf-8") as lines:
        benign += [json.loads(line)["text"] for line in lines if line.strip()]
    return attacks, benign + _rendered_memories()


def _rendered_memories() -> list[str]:
    """Texts the product itself renders for typed Client Brain rows (an operator may edit one): every voice,
    and the extraction corpus's resolutions as issues."""
    fields = list(typed.VOICE_FIELDS.items())
    renders = [
        typed.render_value(typed.VOICE, dict(zip([name for name, _ in fields], values, strict=True)))
        for values in itertools.product(*[choices for _, choices in fields])
    ]
    renders += [
        typed.render_value(typed.VOICE, {name: value}) for name, choices in fields for value in choices
    ]
    for case in trust.load("extraction"):
        if case.get("expect_resolution"):
            issue = {"pattern": "refund (orders): Question about my order", "frequency": 2}
            issue["best_resolution"] = case["expect_resolution"]
            renders.append(typed.render_value(typed.ISSUES, issue))
    return renders


def _training_set() -> tuple[list[str], np.ndarray, np.ndarray]:
    cases = public_corpora.cases_in("train")
    # The in-house attacks are the rules' regression corpus (refunds widened "on every order"): learning them
    # taught the model that "refund" is an attack. Their benign texts stay: they are the business's own voice.
    _attacks, benign = in_house_texts()
    texts = [c.text for c in cases] + benign
    labels = np.array([c.label == public_corpora.ATTACK for c in cases] + [False] * len(benign))
    # Bitext outnumbers every look-alike a hundred to one: weigh the rare benign texts up so that "act as a
    # friendly tutor" counts, and balance the two classes.
    rare = np.array([not c.source.startswith("bitext") for c in cases] + [True] * len(benign))
    weights = np.where(rare & ~labels, 20.0, 1.0)
    weights[labels] *= weights[~labels].sum() / weights[labels].sum()
    return texts, labels, weights


def _refused(scores: np.ndarray, rules: np.ndarray, threshold: float) -> np.ndarray:
    return rules | (scores >= threshold)


def _choose_threshold(scores, rules, labels, in_house_scores) -> float:
    benign = ~labels
    floor = float(in_house_scores.max()) + 1e-6 if len(in_house_scores) else 0.0
    for threshold in np.unique(np.concatenate([scores, [floor, 1.0]])):
        if threshold < floor:
            continue
        if _refused(scores, rules, threshold)[benign].mean() <= BENIGN_BUDGET:
            return float(threshold)
    return 1.0


def _scores(weights: np.ndarray, bias: float, texts: list[str]) -> np.ndarray:
    """The classifier's score of each text as the gate sees it (0 for a text too short to be classified)."""
    matrix = _matrix(texts)
    scores = 1.0 / (1.0 + np.exp(-(matrix @ weights + bias)))
    return np.where([classified(t) for t in texts], scores, 0.0)


def train(stdout) -> dict:
    from sklearn.linear_model import LogisticRegression

    texts, labels, sample_weight = _training_set()
    matrix = _matrix(texts)
    dev = public_corpora.cases_in("dev")
    dev_texts = [c.text for c in dev]
    dev_labels = np.array([c.label == public_corpora.ATTACK for c in dev])
    dev_rules = np.array([rule_family(t) is not None for t in dev_texts])
    _attacks, in_house_benign = in_house_texts()
    best = None
    for c in C_GRID:
        fitted = LogisticRegression(C=c, max_iter=2000, solver="liblinear", random_state=0).fit(
            matrix, labels, sample_weight=sample_weight
        )
        # The shipped resolution: float16, as save_model() stores it.
        weights = fitted.coef_[0].astype(np.float16).astype(np.float64)
        bias = float(fitted.intercept_[0])
        scores = _scores(weights, bias, dev_texts)
        threshold = _choose_threshold(scores, dev_rules, dev_labels, _scores(weights, bias, in_house_benign))
        refused = _refused(scores, dev_rules, threshold)
        admitted = float((~refused[dev_labels]).mean())
        stdout.write(f"C={c}: threshold {threshold:.4f}, dev attacks admitted {admitted:.3%}")
        if best is None or admitted < best[0]:
            best = (admitted, c, weights, bias, threshold)
    admitted, c, weights, bias, threshold = best
    save_model(weights=weights, bias=bias, threshold=threshold)
    assert intent_model() is not None
    return {"C": c, "threshold": round(threshold, 6), "dev_attacks_admitted_pct": round(100 * admitted, 2)}
