"""Spec: Feedback Loop — feedbackRating (1 / -1 only), an optional bounded comment, feedbackAt stamped by the
server; re-rating replaces the rating and keeps the earlier one in history. REST and tenancy included."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from intelligence.models import Conversation
from intelligence.selectors import feedback_history
from intelligence.services import conversation_feedback_set, run_feedback_set
from intelligence.services.feedback import COMMENT_MAX_CHARS

from .factories import make_agent
from .feedback_helpers import NOW, conversation, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent(tenant):
    return make_agent(tenant)


@pytest.mark.parametrize("rating", [0, 2, -2, True, "1", None, 1.0, -1.0, "-1"])
def test_feedback_rating_is_1_or_minus_1_only(agent, rating):
    record = conversation(agent)
    with pytest.raises(ValidationError) as exc:
        conversation_feedback_set(conversation=record, rating=rating, actor="t")
    assert "rating" in exc.value.message_dict
    record.refresh_from_db()
    assert record.feedback_rating is None and record.feedback_at is None


def test_the_feedback_comment_is_optional_and_bounded(agent):
    record = conversation_feedback_set(conversation=conversation(agent), rating=1, actor="t")
    assert record.feedback_comment == ""
    with pytest.raises(ValidationError) as exc:
        conversation_feedback_set(
            conversation=record, rating=1, comment="x" * (COMMENT_MAX_CHARS + 1), actor="t"
        )
    assert str(COMMENT_MAX_CHARS) in exc.value.message_dict["comment"][0]


def test_feedback_at_is_stamped_by_the_server(agent):
    record = conversation_feedback_set(
        conversation=conversation(agent), rating=-1, comment="Too long.", actor="t"
    )
    stored = Conversation.objects.for_tenant(agent.tenant).get(pk=record.pk)
    assert stored.feedback_at is not None and stored.feedback_rating == -1


def test_re_rating_replaces_the_rating_and_keeps_the_earlier_one_in_history(agent):
    record = run(agent)
    run_feedback_set(
        run=record, rating=-1, comment="Wrong campaign.", actor="user:1", now=NOW - timedelta(hours=2)
    )
    run_feedback_set(run=record, rating=1, comment="Fixed now.", actor="user:2", now=NOW)
    record.refresh_from_db()
    assert (record.feedback_rating, record.feedback_comment, record.feedback_at) == (1, "Fixed now.", NOW)
    history = feedback_history(record)
    assert [(h.rating, h.comment, h.actor) for h in history] == [
        (-1, "Wrong campaign.", "user:1"),
        (1, "Fixed now.", "user:2"),
    ]


# --- REST -------------------------------------------------------------------------------------------------


def test_rest_conversation_feedback_rates_and_returns_the_history(api, agent):
    record = conversation(agent)
    first = api.post(
        f"/api/v1/conversations/{record.pk}/feedback", {"rating": -1, "comment": "Missed it."}, format="json"
    )
    assert first.status_code == 200, first.content
    second = api.post(f"/api/v1/conversations/{record.pk}/feedback", {"rating": 1}, format="json")
    body = second.json()
    assert body["feedback_rating"] == 1 and body["feedback_comment"] == "" and body["feedback_at"]
    assert [h["rating"] for h in body["history"]] == [-1, 1]
    assert body["history"][0]["actor"].startswith("api-key:")


def test_rest_run_feedback_rates_the_run(api, agent):
    record = run(agent)
    response = api.post(
        f"/api/v1/runs/{record.pk}/feedback", {"rating": 1, "comment": "Good call."}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["kind"] == "run"
    record.refresh_from_db()
    assert record.feedback_rating == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rating": 0}, "rating"),
        ({"rating": 5}, "rating"),
        ({}, "rating"),
        ({"rating": 1, "comment": "x" * (COMMENT_MAX_CHARS + 1)}, "comment"),
    ],
)
def test_rest_feedback_bad_input_is_a_4xx_with_a_message(api, agent, body, field):
    record = conversation(agent)
    response = api.post(f"/api/v1/conversations/{record.pk}/feedback", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"] and field in error["fields"]
    record.refresh_from_db()
    assert record.feedback_rating is None


def test_rest_feedback_on_another_tenants_records_is_a_404_and_changes_nothing(other_api, agent):
    convo, action_run = conversation(agent), run(agent)
    for url in (f"/api/v1/conversations/{convo.pk}/feedback", f"/api/v1/runs/{action_run.pk}/feedback"):
        response = other_api.post(url, {"rating": -1, "comment": "intruder"}, format="json")
        assert response.status_code == 404
        assert "intruder" not in response.content.decode()
    convo.refresh_from_db()
    action_run.refresh_from_db()
    assert convo.feedback_rating is None and action_run.feedback_rating is None
    assert feedback_history(convo) == []


def test_rest_feedback_on_a_missing_record_is_a_404(api):
    assert api.post("/api/v1/conversations/999999/feedback", {"rating": 1}, format="json").status_code == 404


NOT_A_RATING = ["1", "-1", 0, 2, 1.0, -1.0, None, True, False, [1], {"rating": 1}]


@pytest.mark.parametrize("kind", ["conversations", "runs"])
@pytest.mark.parametrize("rating", NOT_A_RATING, ids=repr)
def test_rest_rating_is_the_json_number_1_or_minus_1_only(api, agent, kind, rating):
    """Issue 26: the string "1" was taken as a rating (the choice field compared text)."""
    record = conversation(agent) if kind == "conversations" else run(agent)
    response = api.post(f"/api/v1/{kind}/{record.pk}/feedback", {"rating": rating}, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert "send the JSON number 1 or -1" in " ".join(error["fields"]["rating"])
    record.refresh_from_db()
    assert record.feedback_rating is None and feedback_history(record) == []


def test_rest_rating_missing_says_what_to_send(api, agent):
    response = api.post(f"/api/v1/conversations/{conversation(agent).pk}/feedback", {}, format="json")
    assert response.status_code == 400
    assert "send the JSON number 1 or -1" in " ".join(response.json()["error"]["fields"]["rating"])
