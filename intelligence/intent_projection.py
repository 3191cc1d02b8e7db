"""A linear projection of MiniLM sentence vectors that keeps what tells support intents apart (issue 27).

all-MiniLM-L6-v2's cosine between a customer message and an instruction-shaped preference separates
neighbouring support topics poorly ("I am waiting for a reimbursement of $1499" is as near the store-credit
preference as the refund-timing one; "edit details on platinum account" nearer the account-deletion one than
the profile one). A linear discriminant analysis of customer messages labelled with their intent finds the
directions along which messages of one intent lie together and those of different intents apart; measured
along those directions, a message and the preference about its intent come closer than neighbouring topics.

`similarity` blends the cosine in the projected space with the raw cosine (`blend`): a topic the training
messages never covered is not forced onto the nearest trained intent.

An operator writes a preference about the customer ("... when a customer asks where their refund is"), not
as a customer writes; measured against messages, such a text lands nearer the intent its other words name
(the refund policy). So the file also holds a logistic regression over the same messages' intents
(`classifier_weights`, `classifier_bias`, `intents`), which has also learned 809 preferences as operators write
them, each labelled by its intent and read by its clauses (since 2026-12-07; with messages alone it read the
refund-timing preference as the refund policy): a preference's affinity to each intent is the highest
probability the classifier gives any of its clauses, read as a customer would say them (`clauses`: "I asks where
my refund is"); the conversation's probabilities weigh those affinities (`intent_share` of the similarity, the
projection's blend the rest). A file without the classifier measures by the projection alone.

The weights (`intent_projection.npz`, beside this module, loaded once per process; numpy only) are trained by
`manage.py brain_bench preference-relevance --train-projection` (intelligence/benchmarks/relevance_projection.py)
on the public Bitext customer-support sample without the rows the labelled preference-relevance set refers to;
the file records what it was trained on (`about`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from brain.api import memoize

PROJECTION_PATH = Path(__file__).with_name("intent_projection.npz")


# Where a preference splits into the situations it names: "Prefer X when Y", "... before Z", "... rather than W".
_CLAUSE_BREAK = re.compile(
    r"\s*(?:[,;:]|\b(?:when(?:ever)?|if|before|after|rather than|instead of|who|unless|that)\b)\s*",
    re.IGNORECASE,
)
# The operator's words for the customer, in the customer's own voice.
_CUSTOMER_VOICE = (
    (re.compile(r"\b(?:a|the|any|each|every) (?:customer|client|user|buyer|shopper)\b", re.IGNORECASE), "I"),
    (re.compile(r"\b(?:customers|clients|users|buyers|shoppers)\b", re.IGNORECASE), "I"),
    (re.compile(r"\b(?:customer|client|user)'s\b", re.IGNORECASE), "my"),
    (re.compile(r"\btheir\b", re.IGNORECASE), "my"),
    (re.compile(r"\bthey\b", re.IGNORECASE), "I"),
    (re.compile(r"\bthem\b", re.IGNORECASE), "me"),
    (re.compile(r"\bthemselves\b", re.IGNORECASE), "myself"),
    (re.compile(r"^prefer(?:ring)?\s+", re.IGNORECASE), ""),
)


def clauses(text: str) -> list[str]:
    """The texts a preference's intent affinity is read from: the whole text, each clause of at least two words,
    and each of those in the customer's voice ("a customer asks where their refund is" -> "I asks where my refund
    is"; verbs are left as written), without repeats."""
    text = text.strip()
    parts = [part.strip(" .") for part in _CLAUSE_BREAK.split(text)]
    found = [text] + [part for part in parts if len(part.split()) >= 2 and part != text]
    voiced = []
    for part in found:
        for pattern, replacement in _CUSTOMER_VOICE:
            part = pattern.sub(replacement, part)
        voiced.append(part.strip())
    return list(dict.fromkeys(part for part in found + voiced if part))


@dataclass(frozen=True)
class IntentProjection:
    """`mean` (subtracted first), `weights` (dimensions x components), the embedder whose vectors it reads,
    `blend` (the projected cosine's share of the projection's similarity), `about` (what it was trained on), and
    the intent classifier: `classifier_weights` (dimensions x intents), `classifier_bias`, `intents` (their
    names), `intent_share` (the affinities' share of `similarity`; 0 without a classifier)."""

    mean: np.ndarray
    weights: np.ndarray
    model: str
    blend: float
    about: dict
    classifier_weights: np.ndarray | None = None
    classifier_bias: np.ndarray | None = None
    intents: tuple[str, ...] = ()
    intent_share: float = 0.0

    def project(self, vectors: np.ndarray) -> np.ndarray:
        """Rows of unit length in the projected space (a zero row stays zero)."""
        projected = (np.asarray(vectors, dtype=np.float32) - self.mean) @ self.weights
        return projected / np.maximum(np.linalg.norm(projected, axis=-1, keepdims=True), 1e-12)

    def posteriors(self, vectors: np.ndarray) -> np.ndarray:
        """Each row's probability of each intent (rows: vectors of `model`, any length)."""
        vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        logits = unit @ self.classifier_weights + self.classifier_bias
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return odds / odds.sum(axis=1, keepdims=True)

    def affinity(self, clause_vectors: np.ndarray) -> np.ndarray:
        """A preference's affinity to each intent: the highest probability any of its clauses (`clauses`,
        embedded) is given."""
        return self.posteriors(clause_vectors).max(axis=0)

    def similarity(
        self,
        query: np.ndarray,
        rows: np.ndarray,
        projected_rows: np.ndarray,
        affinities: np.ndarray | None = None,
    ) -> np.ndarray:
        """The blended similarity of the query vector to each row (`projected_rows`: `project(rows)`;
        `affinities`: each row's `affinity`, one row per row, when the file holds the classifier)."""
        query = np.asarray(query, dtype=np.float32)
        raw = (rows @ query) / np.maximum(np.linalg.norm(rows, axis=1) * np.linalg.norm(query), 1e-12)
        projected = self.blend * (projected_rows @ self.project(query)) + (1.0 - self.blend) * raw
        if affinities is None or not self.intent_share:
            return projected
        by_intent = affinities @ self.posteriors(query)[0]
        return self.intent_share * by_intent + (1.0 - self.intent_share) * projected


@memoize("intent-projection", maxsize=1, keyed_on="nothing: the shipped weights file, read once")
def intent_projection() -> IntentProjection | None:
    """The shipped projection, loaded once per process; None when the weights file is absent."""
    if not PROJECTION_PATH.is_file():
        return None
    with np.load(PROJECTION_PATH, allow_pickle=False) as stored:
        classifier = {}
        if "classifier_weights" in stored.files:
            classifier = {
                "classifier_weights": stored["classifier_weights"].astype(np.float32),
                "classifier_bias": stored["classifier_bias"].astype(np.float32),
                "intents": tuple(str(name) for name in stored["intents"]),
                "intent_share": float(stored["intent_share"]),
            }
        return IntentProjection(
            mean=stored["mean"].astype(np.float32),
            weights=stored["weights"].astype(np.float32),
            model=str(stored["model"]),
            blend=float(stored["blend"]),
            about=json.loads(str(stored["about"])),
            **classifier,
        )


def save_projection(
    *,
    mean: np.ndarray,
    weights: np.ndarray,
    model: str,
    blend: float,
    about: dict,
    classifier_weights: np.ndarray,
    classifier_bias: np.ndarray,
    intents: list[str],
    intent_share: float,
    path: Path = PROJECTION_PATH,
) -> None:
    """Write the projection and the intent classifier for `intent_projection()` (float32: about 80 kB)."""
    np.savez_compressed(
        path,
        mean=mean.astype(np.float32),
        weights=weights.astype(np.float32),
        model=np.str_(model),
        blend=np.float64(blend),
        about=np.str_(json.dumps(about, sort_keys=True)),
        classifier_weights=classifier_weights.astype(np.float32),
        classifier_bias=classifier_bias.astype(np.float32),
        intents=np.array(intents, dtype=np.str_),
        intent_share=np.float64(intent_share),
    )
    intent_projection.cache_clear()
