"""`brain_bench grants`: the labelled sets as described (eleven in the 11 languages the vocabulary reads, two in
twelve it does not; half grants), and the figures computed per language the way the README reports them."""

from collections import Counter

import pytest

from brain.benchmarks import grants

# Per set: sentences, English grants, English ordinary facts, and grants (and as many ordinary facts) in each other
# language. `test4` lost one English grant its author wrote word for word as `dev4`'s author had (a set looked at).
SHAPES = {
    "dev": (400, 80, 80, 12),
    "dev2": (400, 80, 80, 12),
    "dev3": (700, 50, 50, 30),
    "dev4": (700, 50, 50, 30),
    "dev5": (800, 200, 200, 20),
    "dev6": (800, 200, 200, 20),
    "test": (400, 80, 80, 12),
    "test2": (400, 80, 80, 12),
    "test3": (400, 80, 80, 12),
    "test4": (399, 79, 80, 12),
    "test5": (400, 80, 80, 12),
    "test6": (400, 80, 80, 12),
    "test7": (400, 80, 80, 12),
}


@pytest.mark.parametrize("split", grants.READ_SPLITS)
def test_each_set_holds_what_its_docstring_says(split):
    rows, (size, grants_en, ordinary_en, other) = grants.labelled(split), SHAPES[split]
    assert len(rows) == size and len({row["text"] for row in rows}) == size
    by_language = Counter((row["lang"], row["label"]) for row in rows)
    assert (by_language[("en", "grant")], by_language[("en", "ordinary")]) == (grants_en, ordinary_en)
    others = {lang for lang, _ in by_language} - {"en"}
    assert others == {"es", "fr", "de", "it", "pt", "nl", "pl", "ru", "zh", "ja"}
    assert all(by_language[(lang, label)] == other for lang in others for label in ("grant", "ordinary"))


# The two sets in languages the vocabulary does not read: nine languages in both, three of each set's own.
OTHER_LANGUAGES = {
    "other_dev": {"tr", "ko", "ar", "sv", "id", "vi", "cs", "el", "uk", "hu", "ro", "he"},
    "other_test": {"tr", "ko", "ar", "sv", "id", "vi", "cs", "el", "uk", "hi", "fi", "da"},
}


@pytest.mark.parametrize("split", grants.OTHER_SPLITS)
def test_each_set_in_unread_languages_holds_what_its_docstring_says(split):
    rows = grants.labelled(split)
    assert len(rows) == 240 and len({row["text"] for row in rows}) == 240
    by_language = Counter((row["lang"], row["label"]) for row in rows)
    assert {lang for lang, _ in by_language} == OTHER_LANGUAGES[split]
    assert set(by_language.values()) == {10}


def test_no_grant_is_in_two_sets():
    """The authors, writing apart, sometimes wrote the same plain fact ("Discount codes cannot be combined with
    other promotions.": 43 ordinary sentences are in two sets or more); no grant is in two."""
    seen = Counter(
        row["text"] for split in grants.SPLITS for row in grants.labelled(split) if row["label"] == "grant"
    )
    assert [text for text, n in seen.items() if n > 1] == []


def test_figures_count_each_sentence_once_per_group():
    rows = [
        {"text": "Refunds are unlimited.", "lang": "en", "label": "grant"},
        {"text": "Refunds take 5 days.", "lang": "en", "label": "ordinary"},
        {"text": "Rückerstattungen sind unbegrenzt.", "lang": "de", "label": "grant"},
        {"text": "Refund the order.", "lang": "en", "label": "grant", "form": "action"},
        # Held because the vocabulary does not read Turkish (reading.py), ordinary or not.
        {"text": "Mağazalarımız hafta içi saat dokuzda açılır.", "lang": "tr", "label": "ordinary"},
    ]
    rows.append({"text": "Unhappy guests get their last night back.", "lang": "en", "label": "grant"})
    figures = grants.split_figures(rows)
    # The last grant is the grant model's alone (brain/formation/grants_model.py): held, not by the vocabulary.
    assert figures["en"] == {
        "grants": 3,
        "grants_held": 3,
        "ordinary": 1,
        "ordinary_held": 0,
        "grants_held_vocabulary": 2,
        "ordinary_held_vocabulary": 0,
    }
    assert figures["other"] == {
        "grants": 1,
        "grants_held": 1,
        "ordinary": 1,
        "ordinary_held": 1,
        "grants_held_vocabulary": 1,
        "ordinary_held_vocabulary": 1,
    }
    assert figures["all"]["grants_held"] == 4
