"""Conversations and runs as records, responses, proposed actions (issue 14, section 1) and what approvals and
rejections teach (section 4: learn from approved actions / rejected recommendations, learning window)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from brain.models import Memory
from intelligence.models import AgentRun, Conversation, ConversationTurn, ProposedAction

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db


def context(api, agent, **body):
    body.setdefault("conversation", "Should we raise the spring-sale budget?")
    return api.post(reverse("agent-context", kwargs={"agent_pk": agent.pk}), body, format="json")


def action_agent(tenant, **learning):
    config = {"learning_config": learning} if learning else {}
    return make_agent(tenant, name="Ads agent", kind="action", **config)


def open_run(api, agent, run_id="r-1", actions=None, text="Raising the budget [mem:0]."):
    run = context(api, agent, run_id=run_id).json()["run"]
    actions = actions or [
        {
            "type": "budget_change",
            "payload": {"campaign": "spring-sale", "change_pct": 10},
            "recommendation": "Raise the spring-sale daily budget by 10 percent while its return stays above 3.",
        }
    ]
    response = api.post(
        reverse("run-response", kwargs={"run_pk": run["id"]}),
        {"text": text, "proposed_actions": actions},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def decide(api, run, decision, reason="", index=0):
    action = run["proposed_actions"][index]
    return api.post(
        reverse(f"run-action-{decision}", kwargs={"run_pk": run["id"], "pk": action["id"]}),
        {"reason": reason},
        format="json",
    )


def derived_memories(tenant, agent):
    return list(
        Memory.objects.for_tenant(tenant).filter(scope_kind="agent", scope_id=str(agent.pk), source="derived")
    )


# --- Section 1: records ----------------------------------------------------------------------------------


def test_the_context_call_opens_a_conversation_and_continues_it_by_the_callers_id(api, tenant):
    agent = make_agent(tenant)
    first = context(api, agent, conversation_id="chat-77").json()
    second = context(api, agent, conversation_id="chat-77").json()
    assert first["conversation"] == {
        "id": first["conversation"]["id"],
        "external_id": "chat-77",
        "created": True,
    }
    assert second["conversation"]["id"] == first["conversation"]["id"]
    assert second["conversation"]["created"] is False
    conversation = Conversation.objects.for_tenant(tenant).get()
    turns = list(ConversationTurn.objects.for_tenant(tenant).filter(conversation=conversation))
    assert [t.context_trace_id for t in turns] == [first["trace_id"], second["trace_id"]]
    assert conversation.context_trace_id == second["trace_id"]


def test_the_same_caller_id_in_another_tenant_is_another_conversation(api, other_api, tenant, other_tenant):
    mine, theirs = make_agent(tenant), make_agent(other_tenant)
    a = context(api, mine, conversation_id="chat-1").json()["conversation"]
    b = context(other_api, theirs, conversation_id="chat-1").json()["conversation"]
    assert a["id"] != b["id"] and a["created"] and b["created"]


def test_a_call_without_an_id_opens_a_new_record_each_time(api, tenant):
    agent = make_agent(tenant)
    ids = {context(api, agent).json()["conversation"]["id"] for _ in range(2)}
    assert len(ids) == 2


def test_an_action_agents_call_opens_a_run_that_lists_every_trace(api, tenant):
    agent = action_agent(tenant)
    first = context(api, agent, run_id="run-5", provider="meta_ads").json()
    second = context(api, agent, run_id="run-5").json()
    assert "conversation" not in first and first["run"]["created"] and not second["run"]["created"]
    run = AgentRun.objects.for_tenant(tenant).get(pk=first["run"]["id"])
    assert run.trace_ids == [first["trace_id"], second["trace_id"]]
    assert run.context_trace_id == second["trace_id"] and run.provider == "meta_ads"


@pytest.mark.parametrize(("kind", "key"), [("knowledge", "run_id"), ("action", "conversation_id")])
def test_an_id_of_the_wrong_kind_is_a_409_that_says_which_to_send(api, tenant, kind, key):
    # 409, not 400: the same body is valid for an agent of the other kind (issue 29, item 4).
    agent = make_agent(tenant, kind=kind)
    response = context(api, agent, **{key: "x-1"})
    assert response.status_code == 409 and response.json()["error"]["code"] == "wrong_record_kind"
    assert key in response.json()["error"]["fields"]
    assert "send" in response.json()["error"]["message"]
    assert (
        not AgentRun.objects.for_tenant(tenant).exists()
        and not Conversation.objects.for_tenant(tenant).exists()
    )


def test_a_response_posted_to_a_conversation_lands_on_the_turn_its_trace_served(api, tenant):
    agent = make_agent(tenant)
    first = context(api, agent, conversation_id="c").json()
    second = context(api, agent, conversation_id="c").json()
    url = reverse("conversation-messages", kwargs={"conversation_pk": first["conversation"]["id"]})
    posted = api.post(url, {"text": "Answer one.", "trace_id": first["trace_id"]}, format="json")
    assert posted.status_code == 201, posted.content
    api.post(url, {"text": "Answer two."}, format="json")  # the latest turn without a response
    by_trace = {t.context_trace_id: t.response_text for t in ConversationTurn.objects.for_tenant(tenant)}
    assert by_trace == {first["trace_id"]: "Answer one.", second["trace_id"]: "Answer two."}


def test_a_message_naming_another_conversations_trace_or_no_text_is_a_400(api, tenant):
    agent = make_agent(tenant)
    one = context(api, agent, conversation_id="one").json()
    two = context(api, agent, conversation_id="two").json()
    url = reverse("conversation-messages", kwargs={"conversation_pk": one["conversation"]["id"]})
    wrong = api.post(url, {"text": "x", "trace_id": two["trace_id"]}, format="json")
    assert wrong.status_code == 400 and "trace_id" in wrong.json()["error"]["fields"]
    empty = api.post(url, {}, format="json")
    assert empty.status_code == 400 and "text" in empty.json()["error"]["fields"]


def test_a_run_stores_its_response_and_proposed_actions_once(api, tenant):
    agent = action_agent(tenant)
    run = open_run(api, agent)
    again = api.post(
        reverse("run-response", kwargs={"run_pk": run["id"]}),
        {"text": "Raising it.", "proposed_actions": [{k: v for k, v in _action(run).items()}]},
        format="json",
    ).json()
    assert again["response_text"] == "Raising it."
    assert len(again["proposed_actions"]) == 1
    assert again["proposed_actions"][0]["status"] == "proposed"
    detail = api.get(reverse("run-detail", kwargs={"run_pk": run["id"]})).json()
    assert detail["proposed_actions"][0]["payload"] == {"campaign": "spring-sale", "change_pct": 10}


def _action(run):
    a = run["proposed_actions"][0]
    return {"type": a["type"], "payload": a["payload"], "recommendation": a["recommendation"]}


def test_bad_proposed_actions_are_400s_with_a_message(api, tenant):
    run = context(api, action_agent(tenant), run_id="r").json()["run"]
    url = reverse("run-response", kwargs={"run_pk": run["id"]})
    no_type = api.post(url, {"text": "x", "proposed_actions": [{"payload": {}}]}, format="json")
    assert no_type.status_code == 400 and "proposed_actions" in no_type.json()["error"]["fields"]
    bad_payload = api.post(
        url, {"text": "x", "proposed_actions": [{"type": "t", "payload": [1]}]}, format="json"
    )
    assert bad_payload.status_code == 400 and "JSON object" in bad_payload.json()["error"]["message"]


# --- Section 4: approvals and rejections teach ---------------------------------------------------------------


def test_learn_from_approved_actions_on_an_approval_extracts_a_draft_derived_pattern(
    api, tenant, django_capture_on_commit_callbacks
):
    agent = action_agent(tenant)
    run = open_run(api, agent)
    with django_capture_on_commit_callbacks(execute=True):
        response = decide(api, run, "approve", reason="Return on spend is strong")
    assert response.status_code == 200, response.content
    (memory,) = derived_memories(tenant, agent)
    assert (memory.strength, memory.source, memory.status) == ("heuristic", "derived", "draft")
    assert "spring-sale daily budget" in memory.text and "approve" in memory.text
    action = ProposedAction.objects.for_tenant(tenant).get()
    assert action.status == "approved" and action.reason == "Return on spend is strong"
    assert action.extraction["memory_id"] == memory.pk and action.extraction["result"] == "added"
    assert memory.provenance and memory.provenance[0]["kind"] == "run"


def test_learn_from_approved_actions_off_extracts_nothing(api, tenant, django_capture_on_commit_callbacks):
    agent = action_agent(tenant, learn_from_approved_actions=False)
    run = open_run(api, agent)
    with django_capture_on_commit_callbacks(execute=True):
        assert decide(api, run, "approve").status_code == 200
    assert derived_memories(tenant, agent) == []
    assert ProposedAction.objects.for_tenant(tenant).get().extraction == {
        "result": "skipped",
        "reason": "setting_off",
    }


def test_learn_from_rejected_recommendations_extracts_a_draft_correction(
    api, tenant, django_capture_on_commit_callbacks
):
    agent = action_agent(tenant)
    run = open_run(api, agent)
    with django_capture_on_commit_callbacks(execute=True):
        assert (
            decide(api, run, "reject", reason="Budget is frozen until the quarter closes").status_code == 200
        )
    (memory,) = derived_memories(tenant, agent)
    assert (memory.category, memory.source, memory.status) == ("correction", "derived", "draft")
    assert "Avoid" in memory.text and "frozen" in memory.text


def test_learn_from_rejected_recommendations_off_extracts_nothing(
    api, tenant, django_capture_on_commit_callbacks
):
    agent = action_agent(tenant, learn_from_rejected_recommendations=False)
    run = open_run(api, agent)
    with django_capture_on_commit_callbacks(execute=True):
        assert decide(api, run, "reject").status_code == 200
    assert derived_memories(tenant, agent) == []


@pytest.mark.parametrize(("window", "extracted"), [(None, True), (30, False), (90, True)])
def test_the_learning_window_ignores_runs_older_than_it(
    api, tenant, django_capture_on_commit_callbacks, window, extracted
):
    agent = action_agent(tenant, learning_window_days=window)
    run = open_run(api, agent)
    AgentRun.objects.for_tenant(tenant).filter(pk=run["id"]).update(
        created_at=timezone.now() - timedelta(days=45)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert decide(api, run, "approve").status_code == 200
    assert bool(derived_memories(tenant, agent)) is extracted
    if not extracted:
        assert (
            ProposedAction.objects.for_tenant(tenant).get().extraction["reason"] == "outside_learning_window"
        )


def test_a_decision_is_final(api, tenant, django_capture_on_commit_callbacks):
    run = open_run(api, action_agent(tenant))
    with django_capture_on_commit_callbacks(execute=True):
        assert decide(api, run, "approve").status_code == 200
    again = decide(api, run, "reject")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_decided"
    assert ProposedAction.objects.for_tenant(tenant).get().status == "approved"


def test_a_too_long_reason_is_a_400(api, tenant):
    run = open_run(api, action_agent(tenant))
    response = decide(api, run, "reject", reason="x" * 5000)
    assert response.status_code == 400 and "reason" in response.json()["error"]["fields"]
    assert ProposedAction.objects.for_tenant(tenant).get().status == "proposed"


def test_an_action_of_another_run_is_a_404(api, tenant):
    agent = action_agent(tenant)
    one, two = open_run(api, agent, run_id="one"), open_run(api, agent, run_id="two")
    url = reverse("run-action-approve", kwargs={"run_pk": one["id"], "pk": two["proposed_actions"][0]["id"]})
    assert api.post(url, {}, format="json").status_code == 404


def test_an_extraction_repeating_an_existing_memory_goes_through_promote_and_writes_no_copy(
    api, tenant, django_capture_on_commit_callbacks
):
    agent = action_agent(tenant)
    rule = add_memory(
        agent, "Raise the spring-sale daily budget by 10 percent while its return stays above 3."
    )
    run = open_run(api, agent)
    with django_capture_on_commit_callbacks(execute=True):
        decide(api, run, "approve")
    assert derived_memories(tenant, agent) == []
    extraction = ProposedAction.objects.for_tenant(tenant).get().extraction
    assert extraction["result"] == "reinforced" and extraction["memory_id"] == rule
