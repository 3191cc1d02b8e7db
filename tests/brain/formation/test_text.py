"""The text helpers the gate, the judge and the reply extractor share (`brain/formation/text.py`): sentences
and word counts in scripts written without spaces (2026-12-06)."""

import pytest

from brain.formation.text import length_units, polarity_conflict, sentences, word_count


def test_sentences_end_at_chinese_and_japanese_full_stops_too():
    assert sentences("退货在30天内免费。请保留收据！谢谢？") == [
        "退货在30天内免费。",
        "请保留收据！",
        "谢谢？",
    ]
    assert sentences("返品は無料です。レシートを保管してください。") == [
        "返品は無料です。",
        "レシートを保管してください。",
    ]
    # Unchanged for the rest: a decimal point is no sentence end, a line break is.
    assert sentences("Version 2.5 is out. Keep the receipt!\nThanks") == [
        "Version 2.5 is out.",
        "Keep the receipt!",
        "Thanks",
    ]


@pytest.mark.parametrize(
    "text, words, units",
    [
        ("Refunds take 5 days.", 4, 20),
        ("三十天内可以退货", 4, 16),  # two characters a word, each counting twice toward the length
        ("返品は30日以内", 4, 14),  # six characters, three words, and "30"
        ("Order 12 ships 今日", 4, 19),
    ],
)
def test_words_and_length_count_unspaced_scripts_by_their_characters(text, words, units):
    assert (word_count(text), length_units(text)) == (words, units)


@pytest.mark.parametrize(
    ("a", "b", "conflict"),
    [
        ("We ship to Canada.", "We do not ship to Canada.", True),
        ("We offer a warranty on laptops.", "We no longer offer a warranty on laptops.", True),
        ("Wir liefern nach Kanada.", "Wir liefern nicht nach Kanada.", True),
        ("Returns are not accepted after 30 days.", "Returns aren't accepted after 30 days.", False),
        ("We ship to Canada.", "We ship to Canada and Mexico.", False),
        ("No refunds after 30 days.", "Refunds are not given after 30 days.", False),
    ],
)
def test_a_negation_is_the_opposite_statement(a, b, conflict):
    assert polarity_conflict(a, b) is conflict
