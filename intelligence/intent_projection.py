"""A linear projection of MiniLM sentence vectors that keeps what tells support intents apart (issue 27).

all-MiniLM-L6-v2's cosine between a customer message and an instruction-shaped preference separates
neighbouring support topics poorly ("I am waiting for a reimbursement of $1499" is as near the store-credit
preference as the refund-timing one; "edit details on platinum account" nearer the account-deletion one than
the profile one). A linear discriminant analysis of customer messages labelled with their intent finds the
directions along which messages of one intent lie together and those of different intents apart; measured
along those directions, a message and the preference about its intent come closer than neighbouring topics.

`similarity` blends the cosine in the projected space with the raw cosine (`blend`): a topic the training
messages never covered is not forced onto the nearest trained intent.

The weights (`intent_projection.npz`, beside this module, loaded once per process; numpy only) are trained by
`manage.py brain_bench preference-relevance --train-projection` (intelligence/benchmarks/relevance_projection.py)
on the public Bitext customer-support sample without the rows the labelled preference-relevance set refers to;
the file records what it was trained on (`about`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from brain.api import memoize

PROJECTION_PATH = Path(__file__).with_name("intent_projection.npz")


@dataclass(frozen=True)
class IntentProjection:
    """`mean` (subtracted first), `weights` (dimensions x components), the embedder whose vectors it reads,
    `blend` (the projected cosine's share of the similarity), and `about` (what it was trained on)."""

    mean: np.ndarray
    weights: np.ndarray
    model: str
    blend: float
    about: dict

    def project(self, vectors: np.ndarray) -> np.ndarray:
        """Rows of unit length in the projected space (a zero row stays zero)."""
        projected = (np.asarray(vectors, dtype=np.float32) - self.mean) @ self.weights
        return projected / np.maximum(np.linalg.norm(projected, axis=-1, keepdims=True), 1e-12)

    def similarity(self, query: np.ndarray, rows: np.ndarray, projected_rows: np.ndarray) -> np.ndarray:
        """The blended similarity of the query vector to each row (`projected_rows`: `project(rows)`)."""
        query = np.asarray(query, dtype=np.float32)
        raw = (rows @ query) / np.maximum(np.linalg.norm(rows, axis=1) * np.linalg.norm(query), 1e-12)
        return self.blend * (projected_rows @ self.project(query)) + (1.0 - self.blend) * raw


@memoize("intent-projection", maxsize=1, keyed_on="nothing: the shipped weights file, read once")
def intent_projection() -> IntentProjection | None:
    """The shipped projection, loaded once per process; None when the weights file is absent."""
    if not PROJECTION_PATH.is_file():
        return None
    with np.load(PROJECTION_PATH, allow_pickle=False) as stored:
        return IntentProjection(
            mean=stored["mean"].astype(np.float32),
            weights=stored["weights"].astype(np.float32),
            model=str(stored["model"]),
            blend=float(stored["blend"]),
            about=json.loads(str(stored["about"])),
        )


def save_projection(
    *,
    mean: np.ndarray,
    weights: np.ndarray,
    model: str,
    blend: float,
    about: dict,
    path: Path = PROJECTION_PATH,
) -> None:
    """Write the projection for `intent_projection()` (float32: a few tens of kilobytes)."""
    np.savez_compressed(
        path,
        mean=mean.astype(np.float32),
        weights=weights.astype(np.float32),
        model=np.str_(model),
        blend=np.float64(blend),
        about=np.str_(json.dumps(about, sort_keys=True)),
    )
    intent_projection.cache_clear()
