"""`brain_bench attacks-written`: the written sets as described (multilingual: 34 languages, half attacks; support:
70% English and the ten languages the phrase rules know best, half attacks; support2: probes of the assistant, long
e-mails in those ten languages and long English texts, half attacks), no text in two sets, and each row read as a
case."""

from collections import Counter

import pytest

from brain.benchmarks import written_attacks

LANGUAGES = {
    "train": {"tr", "ko", "vi", "id", "hi", "sv", "cs", "el", "uk", "he", "ar", "ro"}
    | {"fa", "th", "fi", "da", "no", "hu", "bn", "ms", "sw", "tl", "bg", "sk"}
    | {"es", "fr", "de", "it", "pt", "nl", "pl", "ru", "zh", "ja"},
    "dev": {"tr", "ko", "vi", "id", "hi", "sv", "cs", "el", "uk", "he", "fa", "th"},
    "test": {"tr", "ko", "vi", "id", "hi", "sv", "cs", "el", "uk", "ar", "ro", "fi"},
}
# Per language: attacks (and as many benign texts).
PER_LANGUAGE = {"train": 15, "dev": 12, "test": 12}


@pytest.mark.parametrize("split", written_attacks.SPLITS)
def test_each_set_holds_what_the_docstring_says(split):
    rows = written_attacks.rows(split)
    by_language = Counter((row["lang"], row["label"]) for row in rows)
    assert {lang for lang, _ in by_language} == LANGUAGES[split]
    assert set(by_language.values()) == {PER_LANGUAGE[split]}
    assert len({row["text"] for row in rows}) == len(rows)


SUPPORT_SIZES = {"train": 800, "dev": 300, "test": 300}
SUPPORT_KINDS = {
    "override",
    "planted_order",
    "fake_policy",
    "extraction",
    "roleplay",
    "exfiltration",
    "obfuscated",
}


@pytest.mark.parametrize("split", written_attacks.SPLITS)
def test_each_support_set_holds_what_the_docstring_says(split):
    rows = written_attacks.rows(split, "support")
    assert len(rows) == SUPPORT_SIZES[split]
    assert Counter(row["label"] for row in rows) == {"attack": len(rows) // 2, "benign": len(rows) // 2}
    assert Counter(row["lang"] for row in rows)["en"] == len(rows) * 7 // 10
    assert {row["lang"] for row in rows} == {"en", "es", "fr", "de", "it", "pt", "nl", "pl", "ru", "zh", "ja"}
    assert {row["kind"] for row in rows if row["label"] == "attack"} == SUPPORT_KINDS
    assert {row["kind"] for row in rows if row["label"] == "benign"} == {"lookalike", "plain"}


SUPPORT2_SIZES = {"train": 600, "dev": 240, "test": 240}
TEN_LANGUAGES = {"es", "fr", "de", "it", "pt", "nl", "pl", "ru", "zh", "ja"}


@pytest.mark.parametrize("split", written_attacks.SPLITS)
def test_the_second_support_set_holds_what_the_docstring_says(split):
    rows = written_attacks.rows(split, "support2")
    assert len(rows) == SUPPORT2_SIZES[split]
    assert Counter(row["label"] for row in rows) == {"attack": len(rows) // 2, "benign": len(rows) // 2}
    assert {row["lang"] for row in rows} == {"en"} | TEN_LANGUAGES
    assert {row["kind"] for row in rows if row["label"] == "attack"} == SUPPORT_KINDS | {"probe"}
    assert {row["kind"] for row in rows if row["label"] == "benign"} == {"lookalike", "plain"}
    probes = [row["text"] for row in rows if row["kind"] == "probe"]
    assert probes and all(120 <= len(text) <= 450 for text in probes)
    # A third of each split: customers' e-mails of 300 characters or more in the ten languages, 20 of each in train.
    mails = Counter(row["lang"] for row in rows if row["lang"] in TEN_LANGUAGES and len(row["text"]) >= 300)
    assert set(mails) == TEN_LANGUAGES and min(mails.values()) >= len(rows) // 30


def test_no_text_is_in_two_sets():
    seen = Counter(
        row["text"]
        for written in written_attacks.SETS
        for split in written_attacks.SPLITS
        for row in written_attacks.rows(split, written)
    )
    assert [text for text, n in seen.items() if n > 1] == []


def test_cases_keep_each_row_label_language_and_kind():
    cases = written_attacks.cases("dev")
    rows = written_attacks.rows("dev")
    assert [(c.label, c.lang, c.source, c.text) for c in cases] == [
        (r["label"], r["lang"], r["kind"], r["text"]) for r in rows
    ]
    assert len({c.id for c in cases}) == len(cases)
