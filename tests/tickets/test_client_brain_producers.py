"""The local `client_brain.extract` rules: every memory they produce passes the shared four-family guard."""

import pytest

from brain.client_brain import typed
from brain.client_brain.producers import extract_local
from brain.providers import get_task

from .learning_helpers import FORMAL_REPLY

CASUAL_REPLY = """Hey Jamie!

No worries at all, I've sent a prepaid return label so you can pop the bag in the post 😊
We offer free returns within 60 days on unused gear.
You'll get your refund within five working days of the bag reaching our warehouse.

Cheers,
The Acme crew"""


def evidence(reply=FORMAL_REPLY, approvals=(), classification=None):
    return {
        "external_id": "T-1",
        "subject": "Tent pole snapped on first trip",
        "status": "solved",
        "classification": classification
        if classification is not None
        else {"category": "product_quality", "intent": "damaged_item", "labels": [], "confidence": 0.9},
        "latest_reply": {"body": reply, "author": "Helena", "sent_at": "2026-11-29T10:00:00+00:00"}
        if reply
        else None,
        "approvals": list(approvals),
    }


def by_type(answer, memory_type):
    return [m for m in answer["memories"] if m["type"] == memory_type]


def test_the_extract_task_is_registered_with_the_local_rules_and_a_json_system_prompt():
    task = get_task("client_brain.extract")
    assert task.local is extract_local
    assert '{"memories": [...]}' in task.system_prompt and "untrusted" in task.system_prompt


@pytest.mark.parametrize("reply", [FORMAL_REPLY, CASUAL_REPLY])
def test_every_locally_extracted_memory_has_a_typed_shape(reply):
    approvals = [{"proposed_action": "Send a replacement", "kind": "replacement", "decision": "approved"}]
    answer = extract_local(evidence(reply, approvals))
    assert answer["memories"]
    for memory in answer["memories"]:
        assert typed.is_typed(memory["type"], memory["value"]), memory


def test_voice_formality_is_measured_on_the_reply():
    assert by_type(extract_local(evidence(FORMAL_REPLY)), "voice")[0]["value"] == {
        "formality": "formal",
        "tone": "professional",
    }
    assert by_type(extract_local(evidence(CASUAL_REPLY)), "voice")[0]["value"]["formality"] == "casual"


def test_business_facts_are_general_statements_not_what_was_done_for_this_customer():
    facts = [m["value"]["fact"] for m in by_type(extract_local(evidence(CASUAL_REPLY)), "business")]
    assert facts == ["We offer free returns within 60 days on unused gear."]


def test_an_issue_pairs_the_classified_intent_with_the_resolution_in_the_reply():
    (issue,) = by_type(extract_local(evidence(FORMAL_REPLY)), "issues")
    assert issue["key"] == "issue:product_quality-damaged_item"
    assert issue["value"]["pattern"] == "damaged item (product quality): Tent pole snapped on first trip"
    assert "dispatched a replacement pole set" in issue["value"]["best_resolution"]
    assert issue["value"]["frequency"] == 1


def test_without_a_classification_the_subject_is_the_issue_pattern():
    (issue,) = by_type(extract_local(evidence(FORMAL_REPLY, classification={})), "issues")
    assert issue["value"]["pattern"] == "Tent pole snapped on first trip"


def test_only_approved_actions_become_process_rules():
    approvals = [
        {
            "proposed_action": "Send a free replacement pole set",
            "kind": "replacement",
            "decision": "approved",
        },
        {"proposed_action": "Refund the full price", "kind": "refund", "decision": "rejected"},
    ]
    (process,) = by_type(extract_local(evidence(FORMAL_REPLY, approvals)), "process")
    assert process["value"] == {
        "trigger": "a ticket is about damaged item (product quality) and a replacement is proposed",
        "action": "Send a free replacement pole set",
    }


def test_no_reply_means_no_voice_business_or_issue_memory():
    approvals = [{"proposed_action": "Escalate to tier 2", "kind": "escalation", "decision": "approved"}]
    answer = extract_local(evidence(reply=None, approvals=approvals))
    assert [m["type"] for m in answer["memories"]] == ["process"]
    assert answer["memories"][0]["value"]["trigger"].endswith("and an escalation is proposed")


GUIDING_REPLY = """Hello,

I can help you with your order.

1. Firstly, log in to your account on our website.
2. Click on "My Orders" and select the order.
3. Press the button next to it and confirm.
Contact details (phone number or email address)

Kind regards,
Acme Support"""


def test_a_reply_that_walks_the_customer_through_the_fix_gives_the_issue_its_first_steps():
    classification = {"category": "ORDER", "intent": "cancel_order", "labels": []}
    (issue,) = by_type(extract_local(evidence(GUIDING_REPLY, classification=classification)), "issues")
    assert issue["key"] == "issue:order-cancel_order"
    assert issue["value"]["best_resolution"] == (
        'Firstly, log in to your account on our website. Click on "My Orders" and select the order.'
    )


def test_a_resolution_verb_outranks_guidance_and_a_reply_with_neither_teaches_no_issue():
    done = GUIDING_REPLY.replace("I can help you with your order.", "We have refunded the delivery fee.")
    (issue,) = by_type(extract_local(evidence(done)), "issues")
    assert issue["value"]["best_resolution"].startswith("We have refunded the delivery fee")
    vague = "Hello,\n\nI understand how frustrating this is. Our team is looking into it for you.\n\nKind regards,\nAcme"
    assert by_type(extract_local(evidence(vague)), "issues") == []
    lead_in_only = "Hello,\n\nContact details (phone number or email address)\n\nKind regards,\nAcme"
    assert by_type(extract_local(evidence(lead_in_only)), "issues") == []
