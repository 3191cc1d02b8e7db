"""The labelled set `brain_bench preference-relevance` calibrates and reports on (issue 27): at least 150
openings × 16 preferences, every pair labelled, split once into two halves, the Bitext rows as labelled."""

import pytest

from brain.benchmarks.common import bitext_path
from intelligence.benchmarks.preference_relevance import (
    HELDOUT_SETS,
    load_heldout,
    load_set,
    precision_recall,
)


def test_the_set_is_large_enough_labelled_and_split():
    openings, preferences, labels = load_set(bitext_path())  # raises when a row's intent is not the label's
    assert len(openings) >= 150 and len(preferences) >= 16
    assert len(labels) == len(openings) * len(preferences)
    halves = {o["split"] for o in openings}
    assert halves == {"calibration", "test"}
    assert abs(sum(o["split"] == "test" for o in openings) - len(openings) / 2) <= 2
    assert all(o["text"].strip() for o in openings)
    # Every preference is relevant to some openings of each half: both halves can measure recall for it.
    for preference in preferences:
        for half in halves:
            assert any(labels[(o["id"], preference["id"])] for o in openings if o["split"] == half)


@pytest.mark.parametrize(
    ("key", "size"), [("heldout_preferences", 26), ("heldout_preferences_two_per_intent", 54)]
)
def test_the_held_out_preferences_are_other_texts_labelled_by_the_intents_they_name(key, size):
    openings, preferences, _ = load_set(bitext_path())
    heldout, labels = load_heldout(openings, key)
    others = [p for other in HELDOUT_SETS if other != key for p in load_heldout(openings, other)[0]]
    assert len(heldout) == size
    assert not {p["id"] for p in heldout} & {p["id"] for p in preferences + others}
    assert not {p["text"] for p in heldout} & {p["text"] for p in preferences + others}
    intents = {o["intent"] for o in openings if o["intent"]}
    for preference in heldout:
        assert set(preference["intents"]) <= intents, preference
        for half in ("calibration", "test"):
            relevant = [o for o in openings if o["split"] == half and labels[(o["id"], preference["id"])]]
            assert relevant and all(o["intent"] in preference["intents"] for o in relevant)
    # The openings written here name no intent: no held-out preference is relevant to them.
    assert not any(labels[(o["id"], p["id"])] for o in openings if not o["intent"] for p in heldout)


def test_precision_and_recall_count_pairs():
    openings = [{"id": "a"}, {"id": "b"}]
    preferences = [{"id": "p"}, {"id": "q"}]
    labels = {("a", "p"): True, ("a", "q"): False, ("b", "p"): False, ("b", "q"): True}
    figures = precision_recall({"a": {"p", "q"}, "b": set()}, openings, preferences, labels)
    assert (figures["precision"], figures["recall"], figures["tp"], figures["fp"], figures["fn"]) == (
        0.5,
        0.5,
        1,
        1,
        1,
    )
