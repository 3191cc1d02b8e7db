"""Training the intent projection (`intelligence/intent_projection.py`): `brain_bench preference-relevance
--train-projection`.

A linear discriminant analysis (scikit-learn, the `dev` extra; the product reads the weights with numpy) of
the Bitext customer messages (`instruction`) labelled with their `intent`, embedded with the float32
all-MiniLM-L6-v2 (the stored rows' encoder). Every row the labelled preference-relevance set refers to is left
out, whichever half it is in, and nothing else: the set's openings are never seen in training, so its
calibration and test figures are held out. The eigen solver has no randomness: the same CSV and model give
the same weights. Shrinkage and the blend were chosen on the calibration half (README, "Relevance of
preferences").

The same messages train the intent classifier the file also holds: a multinomial logistic regression over the
unit-length vectors (lbfgs from zero, no randomness). `CLASSIFIER_C` and `INTENT_SHARE` were chosen by
cross-validation within the calibration half (README). Since 2026-12-07 the classifier also learns preferences as
operators write them (`OPERATOR_PREFERENCES`: 809 written by two authors who saw neither the labelled set nor the
code, 15 or so for each intent, labelled by it), each read as the runtime reads a preference (`clauses`): it learned
customers' messages only, and an operator's "When a customer asks where their refund is, prefer ..." lands nearer
the intent its other words name. None of them is in the labelled set.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import numpy as np

SHRINKAGE = 0.3
BLEND = 0.5
CLASSIFIER_C = 3.0
INTENT_SHARE = 0.5
OPERATOR_PREFERENCES = (
    Path(__file__).resolve().parent / "data" / "preference_relevance_training_preferences.jsonl"
)


def training_rows(bitext_csv: Path, openings: list[dict]) -> tuple[list[str], list[str], int]:
    """(messages, their intents, how many rows were left out): every row but the labelled set's."""
    held_out = {o["bitext_row"] for o in openings if "bitext_row" in o}
    rows = list(csv.DictReader(bitext_csv.open(encoding="utf-8")))
    kept = [row for number, row in enumerate(rows) if number not in held_out]
    return [row["instruction"] for row in kept], [row["intent"] for row in kept], len(rows) - len(kept)


def operator_rows() -> tuple[list[str], list[str], int]:
    """(texts, their intents, how many preferences): each operator preference's clauses (`clauses`: the whole text,
    its parts and each in the customer's voice), labelled with the preference's intent."""
    from intelligence.intent_projection import clauses

    preferences = [json.loads(line) for line in OPERATOR_PREFERENCES.open(encoding="utf-8") if line.strip()]
    rows = [(clause, item["intent"]) for item in preferences for clause in clauses(item["text"])]
    return [text for text, _ in rows], [intent for _, intent in rows], len(preferences)


def fit(vectors: np.ndarray, intents: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(mean, weights): the discriminant directions (one fewer than the intents), the mean of the messages."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    lda = LinearDiscriminantAnalysis(solver="eigen", shrinkage=SHRINKAGE).fit(vectors, intents)
    components = len(lda.classes_) - 1
    return vectors.mean(axis=0), lda.scalings_[:, :components]


def fit_classifier(vectors: np.ndarray, intents: list[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(weights: dimensions x intents, bias, intent names) of the logistic regression over unit vectors."""
    from sklearn.linear_model import LogisticRegression

    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    model = LogisticRegression(C=CLASSIFIER_C, max_iter=3000).fit(unit, intents)
    return model.coef_.T, model.intercept_, [str(name) for name in model.classes_]


def train(bitext_csv: Path, openings: list[dict], stdout) -> dict:
    from brain.onnx_minilm import OnnxMiniLMEmbedder
    from intelligence.intent_projection import intent_projection, save_projection

    messages, intents, held_out = training_rows(bitext_csv, openings)
    embedder = OnnxMiniLMEmbedder()  # float32: the vectors the rows are stored with
    vectors = np.asarray(embedder.embed(messages), dtype=np.float32)
    mean, weights = fit(vectors, intents)
    operator_texts, operator_intents, operator_count = operator_rows()
    operator_vectors = np.asarray(embedder.embed(operator_texts), dtype=np.float32)
    classifier_weights, classifier_bias, names = fit_classifier(
        np.vstack([vectors, operator_vectors]), intents + operator_intents
    )
    about = {
        "data": f"{bitext_csv.name} (sha256 {hashlib.sha256(bitext_csv.read_bytes()).hexdigest()[:16]})",
        "rows": len(messages),
        "held_out_rows": held_out,
        "held_out": "every Bitext row of intelligence/benchmarks/data/preference_relevance_openings.jsonl",
        "intents": len(set(intents)),
        "method": f"LinearDiscriminantAnalysis(solver='eigen', shrinkage={SHRINKAGE}) on the messages",
        "classifier": f"LogisticRegression(C={CLASSIFIER_C}) on the messages' unit vectors and the operator"
        f" preferences' clauses' ({operator_count} preferences, {len(operator_texts)} clauses,"
        f" {OPERATOR_PREFERENCES.name})",
        "operator_preferences": operator_count,
        "model": embedder.name,
    }
    save_projection(
        mean=mean,
        weights=weights,
        model=embedder.name,
        blend=BLEND,
        about=about,
        classifier_weights=classifier_weights,
        classifier_bias=classifier_bias,
        intents=names,
        intent_share=INTENT_SHARE,
    )
    assert intent_projection() is not None
    stdout.write(f"trained the intent projection: {weights.shape[0]} -> {weights.shape[1]}, {about}")
    return about
