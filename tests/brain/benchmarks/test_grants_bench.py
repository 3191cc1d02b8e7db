"""`brain_bench grants`: the three labelled sets as described (400 sentences each, 11 languages, half grants), and
the figures computed per language the way the README reports them."""

from collections import Counter

import pytest

from brain.benchmarks import grants


@pytest.mark.parametrize("split", grants.SPLITS)
def test_each_set_holds_what_its_docstring_says(split):
    rows = grants.labelled(split)
    assert len(rows) == 400 and len({row["text"] for row in rows}) == 400
    by_language = Counter((row["lang"], row["label"]) for row in rows)
    assert by_language[("en", "grant")] == by_language[("en", "ordinary")] == 80
    others = {lang for lang, _ in by_language} - {"en"}
    assert others == {"es", "fr", "de", "it", "pt", "nl", "pl", "ru", "zh", "ja"}
    assert all(by_language[(lang, label)] == 12 for lang in others for label in ("grant", "ordinary"))


def test_figures_count_each_sentence_once_per_group():
    rows = [
        {"text": "Refunds are unlimited.", "lang": "en", "label": "grant"},
        {"text": "Refunds take 5 days.", "lang": "en", "label": "ordinary"},
        {"text": "Rückerstattungen sind unbegrenzt.", "lang": "de", "label": "grant"},
        {"text": "Refund the order.", "lang": "en", "label": "grant", "form": "action"},
    ]
    figures = grants.split_figures(rows)
    assert figures["en"] == {"grants": 2, "grants_held": 2, "ordinary": 1, "ordinary_held": 0}
    assert figures["other"] == {"grants": 1, "grants_held": 1, "ordinary": 0, "ordinary_held": 0}
    assert figures["all"]["grants_held"] == 3
