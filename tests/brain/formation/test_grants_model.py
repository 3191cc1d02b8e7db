"""The grant model (brain/formation/grants_model.py): a second reading of a learned policy, for grants worded as
no vocabulary part says them. Sentences written for these tests, in no set of `brain_bench grants`."""

import numpy as np
import pytest

from brain.formation import grants_model, intent_multilingual
from brain.formation.evidence import claim_hold, policy_hold
from brain.models import MemoryType


@pytest.mark.parametrize(
    ("claim", "action"),
    [
        ("We knock 15 percent off the next invoice for anyone who complains about an outage.", False),
        ("Any caller who knows the account holder's name can be told the account balance.", False),
        ("Unhappy guests get their last night back.", False),
        ("We give every complaining customer a month of service for nothing.", False),
        # Read under the threshold by the logistic regression shipped before the kernel (0.75 and 0.37 of its 0.85).
        ("Late deliveries mean the customer owes nothing for shipping from then on.", False),
        ("Patients who wait more than an hour don't get charged for the consultation.", False),
    ],
)
def test_a_grant_the_vocabulary_does_not_read_is_held_by_the_model(claim, action):
    assert claim_hold(claim, action=action, model=False) is None
    held = claim_hold(claim, action=action, model=True)
    assert held is not None and float(held["reads_as_grant"]) >= grants_model.model().threshold


@pytest.mark.parametrize(
    "claim",
    [
        "Our store opens at nine on weekdays.",
        "Orders placed before noon ship the same day.",
        "The warranty covers manufacturing defects for two years.",
        "Refunds are processed within five business days.",
        "We accept Visa, Mastercard and PayPal.",
        "Call our helpline for the fastest answer.",
        "Our returns desk is on the second floor.",
    ],
)
def test_an_ordinary_fact_is_not_read_as_a_grant(claim):
    assert policy_hold(MemoryType.BUSINESS, {}, claim) is None


def test_a_process_rule_is_read_by_its_action():
    action = "Ask for the order number before anything else."
    assert policy_hold(MemoryType.PROCESS, {"trigger": "a refund request", "action": action}, action) is None
    assert grants_model.grant_score(action, action=True) < grants_model.model().threshold


def test_a_vocabulary_grant_keeps_its_own_reason():
    """The model reads only what the vocabulary and the language check let through: their reasons come first."""
    assert policy_hold(MemoryType.BUSINESS, {}, "Refunds are unlimited for every order.") == {
        "grant": "money: Refunds (unlimited)"
    }


def test_the_shipped_weights_are_read_by_numpy_with_the_threshold_training_sets():
    from brain.benchmarks.grants_training import THRESHOLD

    found = grants_model.model()
    assert grants_model.MODEL_PATH.stat().st_size < 2_000_000
    assert found.support.shape == (len(found.dual), 385) and found.threshold == THRESHOLD
    # The action flag is the last feature: a support vector's is 0 or 1.
    assert set(found.support[:, -1].tolist()) == {0.0, 1.0}


def test_the_decision_is_the_kernel_sum_written_out():
    """`decision` computes |x - s|^2 through norms and a product: the same as the distances written out."""
    found = grants_model.model()
    vector = intent_multilingual.vector("Unhappy guests get their last night back.")
    x = np.append(vector, np.float32(0.0))
    expected = (
        float(found.dual @ np.exp(-found.gamma * ((found.support - x) ** 2).sum(axis=1))) + found.intercept
    )
    assert found.decision(vector, action=False) == pytest.approx(expected, abs=1e-4)


def test_without_the_weights_the_vocabulary_decides_alone(monkeypatch, tmp_path):
    monkeypatch.setattr(grants_model, "MODEL_PATH", tmp_path / "missing.npz")
    grants_model.model.cache_clear()
    grants_model.grant_score.cache_clear()
    try:
        assert grants_model.grant_score("Unhappy guests get their last night back.") is None
        assert policy_hold(MemoryType.BUSINESS, {}, "Unhappy guests get their last night back.") is None
    finally:
        grants_model.model.cache_clear()
        grants_model.grant_score.cache_clear()
