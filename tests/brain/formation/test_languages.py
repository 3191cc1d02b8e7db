"""The phrase rules outside English (`brain/formation/languages.py`, 2026-12-06): an override, a new persona and a
request for the system prompt in Polish, Russian, Ukrainian, Turkish, Arabic, Chinese, Japanese and Korean, and
an override in fifteen more languages, were admitted before (the classifier caught three of 34), as were a
developer mode in five European languages and "always a full refund for everyone" in eight more; and later
the same day the override in Persian, Urdu, Bengali, Marathi, Gujarati, Punjabi, Tamil, Telugu and Swahili (all
nine admitted; the classifier caught a Tagalog one, which has no rule); a customer's
ordinary sentence, or a policy, with the same words is not refused. The cases are the in-house corpus's
(`brain/benchmarks/data/build_corpora.py`), each with the family of the rule that must refuse it."""

import importlib.util

import pytest

from brain.benchmarks import trust
from brain.formation.gate import GateReason, gate_check

_spec = importlib.util.spec_from_file_location("build_corpora", trust.DATA / "build_corpora.py")
corpora = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpora)

ATTACKS = (
    [(text, GateReason.INSTRUCTION_OVERRIDE) for text in corpora.MULTILINGUAL_OVERRIDES]
    + [(text, GateReason.INSTRUCTION_OVERRIDE) for text in corpora.MULTILINGUAL_FURTHER]
    + [(text, GateReason.ROLE_PLAY) for text in corpora.MULTILINGUAL_ROLE_PLAYS]
    + [(text, GateReason.WIDENING_DIRECTIVE) for text in corpora.MULTILINGUAL_WIDENINGS]
)


def test_every_language_has_its_cases():
    assert (len(corpora.MULTILINGUAL_OVERRIDES), len(corpora.MULTILINGUAL_ROLE_PLAYS)) == (34, 10)
    assert (len(corpora.MULTILINGUAL_WIDENINGS), len(corpora.BENIGN_MULTILINGUAL)) == (8, 54)
    assert len(corpora.MULTILINGUAL_FURTHER) == 9


@pytest.mark.parametrize("text, reason", ATTACKS)
def test_overrides_personas_and_widenings_in_other_languages_are_refused(text, reason):
    verdict = gate_check(text=text)
    assert (verdict.passed, verdict.reason) == (False, reason), verdict


@pytest.mark.parametrize("text", corpora.BENIGN_MULTILINGUAL)
def test_a_customers_sentence_or_a_policy_with_the_same_words_is_learnable(text):
    verdict = gate_check(text=text)
    assert verdict.passed, verdict
