"""The suggestion producers behind the provider interface: the deterministic local producer, and the
OpenAI-compatible provider on a loopback server (its answer validated, its failures falling back)."""

import pytest

from brain.suggestions import FeedbackEvidence, local_propose, suggestions_propose
from tests.loopback import LoopbackOpenAI

REFUND = "Mention the 30-day refund window when customers ask about returns."


def _item(ref, comment, rating=-1, weight=1.0, new=True):
    return FeedbackEvidence(ref=ref, rating=rating, comment=comment, weight=weight, new=new)


@pytest.fixture
def local(settings):
    settings.BRAIN_LLM_PROVIDER = {"BACKEND": "brain.providers.LocalProvider"}


def test_the_local_producer_clusters_similar_comments_and_weighs_them(local):
    feedback = [
        _item("conversation:1", REFUND, weight=0.4),
        _item(
            "run:2", "Please mention the 30-day refund window when customers ask about returns.", weight=0.9
        ),
        _item("conversation:3", "Too short.", weight=1.0),  # fewer than three content words: no lesson
        _item("conversation:4", "Customers loved the friendly greeting at the start.", rating=1, weight=0.5),
    ]
    proposed, producer = suggestions_propose(feedback=feedback, min_support=1.0)
    assert producer == "local"
    assert [(p.text, p.category, set(p.evidence)) for p in proposed] == [
        (
            "Mention the 30-day refund window when customers ask about returns.",
            "correction",
            {"run:2", "conversation:1"},
        )
    ]  # the greeting praise weighs 0.5 < 1.0
    assert proposed[0].support == pytest.approx(1.3)


def test_filler_and_sentences_without_a_lesson_are_left_out_of_the_text(local):
    proposed, _ = suggestions_propose(
        feedback=[
            _item("conversation:1", f"Again: {REFUND} This keeps happening."),
            _item("conversation:2", f"Please {REFUND[0].lower()}{REFUND[1:]} Next time."),
        ]
    )
    assert [(p.text, len(p.evidence)) for p in proposed] == [(REFUND, 2)]


def test_positive_feedback_proposes_a_preference(local):
    proposed, _ = suggestions_propose(
        feedback=[_item("conversation:1", "Customers loved the friendly greeting at the start.", rating=1)]
    )
    assert [(p.category, p.strength) for p in proposed] == [("preference", "preference")]


def test_a_cluster_without_new_feedback_is_not_proposed_again():
    answer = local_propose(
        {
            "feedback": [
                {"ref": "conversation:1", "rating": -1, "comment": REFUND, "weight": 1.0, "new": False}
            ]
        }
    )
    assert answer == {"suggestions": []}


def test_numbers_that_differ_are_two_lessons(local):
    proposed, _ = suggestions_propose(
        feedback=[_item("conversation:1", REFUND), _item("conversation:2", REFUND.replace("30", "14"))],
        max_suggestions=5,
    )
    assert len(proposed) == 2


def test_opposite_comments_are_two_lessons_not_one(local):
    """Found on 52f318b: "Do not mention the 30-day refund window ..." clustered with the comment it contradicts
    (their content words are the same), so its weight counted as support for the opposite lesson."""
    opposite = [
        _item("conversation:1", REFUND, weight=0.6),
        _item("conversation:2", f"Do not {REFUND[0].lower()}{REFUND[1:]}", weight=0.6),
    ]
    assert suggestions_propose(feedback=opposite, min_support=1.0)[0] == []  # neither lesson has the support
    proposed, _ = suggestions_propose(feedback=opposite, min_support=0.5, max_suggestions=5)
    assert sorted((p.text, set(p.evidence)) for p in proposed) == [
        ("Do not mention the 30-day refund window when customers ask about returns.", {"conversation:2"}),
        (REFUND, {"conversation:1"}),
    ]


def test_the_openai_provider_answer_is_validated_against_the_evidence_it_was_shown(settings):
    with LoopbackOpenAI() as server:
        server.chat_answers.append(
            {
                "suggestions": [
                    {"text": "Quote the refund window.", "category": "bogus", "evidence": ["conversation:1"]},
                    {"text": "Invented lesson.", "evidence": ["conversation:404"]},
                    {"text": "Only old evidence.", "evidence": ["conversation:2"]},
                ]
            }
        )
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        proposed, producer = suggestions_propose(
            feedback=[_item("conversation:1", REFUND), _item("conversation:2", REFUND, new=False)]
        )
    assert producer == "openai"
    assert [(p.text, p.category, p.evidence) for p in proposed] == [
        ("Quote the refund window.", "correction", ("conversation:1",))
    ]
    assert server.requests[0]["body"]["response_format"] == {"type": "json_object"}


def test_a_failing_provider_falls_back_to_the_local_producer(settings):
    with LoopbackOpenAI() as server:
        server.fail_next = 1
        server.chat_answers.append({"suggestions": []})
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        proposed, producer = suggestions_propose(feedback=[_item("conversation:1", REFUND)])
    assert producer == "local_fallback" and [p.text for p in proposed] == [REFUND]


def test_an_unusable_answer_falls_back_to_the_local_producer(settings):
    with LoopbackOpenAI() as server:
        server.chat_answers.append({"lessons": "not a list"})
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        proposed, producer = suggestions_propose(feedback=[_item("conversation:1", REFUND)])
    assert producer == "openai_invalid_answer" and [p.text for p in proposed] == [REFUND]
