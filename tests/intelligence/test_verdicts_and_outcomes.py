"""POST /api/v1/verdicts (issue 14, section 5), matured outcomes (section 4: evaluate outcomes after), and the
Runs page of the operator UI with its approve / reject buttons."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from brain.models import Memory, MemoryHistory
from intelligence.models import AgentRun, ProposedAction
from intelligence.services import runs_evaluate_matured
from intelligence.tasks import evaluate_matured_outcomes
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent
from .test_runs import action_agent, context, open_run

pytestmark = pytest.mark.django_db


def confidence(memory_id) -> float:
    return Memory.objects.all_tenants().get(pk=memory_id).confidence


def post_verdict(api, **body):
    return api.post(reverse("verdicts"), body, format="json")


def test_a_verdict_on_a_trace_nudges_its_injected_memories_and_a_repeat_says_it_is_a_no_op(api, tenant):
    agent = make_agent(tenant)
    cited = add_memory(agent, "Never promise a refund before billing confirms it.")
    present = add_memory(agent, "Always sign replies with the team name.")
    trace_id = context(api, agent, conversation="Can I get a refund?").json()["trace_id"]
    response = post_verdict(api, trace_id=trace_id, verdict="pass", response_text=f"Not yet [mem:{cited}].")
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["applied"] is True and data["trace"] == f"trace:{trace_id}"
    assert data["cited_memory_ids"] == [cited]
    assert confidence(cited) > confidence(present) > 0.7
    again = post_verdict(api, trace_id=trace_id, verdict="pass", response_text=f"Not yet [mem:{cited}].")
    assert again.status_code == 200 and again.json()["applied"] is False
    assert "Already applied" in again.json()["message"] and again.json()["nudges"] == []


def test_a_verdict_on_a_run_reads_its_stored_response_for_citations(api, tenant):
    agent = action_agent(tenant)
    rule = add_memory(agent, "Never raise a budget by more than 20 percent a day.")
    run = open_run(api, agent, text="Raising by 10 percent only.")
    api.post(
        reverse("run-response", kwargs={"run_pk": run["id"]}),
        {"text": f"Capped [mem:{rule}]."},
        format="json",
    )
    data = post_verdict(api, run_id=run["id"], verdict="fail").json()
    assert data["trace"] == f"run:{run['id']}" and data["cited_memory_ids"] == [rule]
    assert confidence(rule) == pytest.approx(0.65)


def test_a_cited_id_not_injected_is_reported_by_the_endpoint(api, tenant):
    agent = make_agent(tenant)
    injected = add_memory(agent, "Never promise a refund before billing confirms it.")
    conversation = context(api, agent, conversation_id="c-1", conversation="refund?").json()["conversation"]
    data = post_verdict(
        api, conversation_id=conversation["id"], verdict="fail", response_text="See [mem:999999]."
    ).json()
    assert data["cited_not_injected"] == ["[mem:999999]"]
    assert [n["memory_id"] for n in data["nudges"]] == [injected]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"verdict": "maybe", "trace_id": 1}, "verdict"),
        ({"verdict": "pass"}, "trace_id"),
        ({"verdict": "pass", "trace_id": 1, "run_id": 2}, "trace_id"),
        ({"verdict": "pass", "trace_id": "abc"}, "trace_id"),
        ({"verdict": "pass", "trace_id": 1, "verdict_key": "k" * 65}, "verdict_key"),
    ],
)
def test_bad_verdict_requests_are_400s_with_a_message(api, tenant, body, field):
    response = post_verdict(api, **body)
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"] and response.json()["error"]["message"]


def test_another_tenants_trace_is_a_404_and_nothing_moves(api, other_api, tenant, other_tenant):
    agent = make_agent(tenant)
    memory = add_memory(agent, "Never promise a refund before billing confirms it.")
    trace_id = context(api, agent, conversation="refund?").json()["trace_id"]
    response = post_verdict(other_api, trace_id=trace_id, verdict="fail", response_text=f"[mem:{memory}]")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert confidence(memory) == 0.7
    assert not MemoryHistory.objects.all_tenants().filter(memory_id=memory, action="verdict").exists()


# --- Evaluate outcomes after 24 / 48 / 72 hours / 7 days ---------------------------------------------------------


def _run_with_outcome(api, tenant, hours, outcome="failure", run_id="r-1"):
    agent = action_agent(tenant, evaluate_after_hours=hours) if hours else action_agent(tenant)
    rule = add_memory(agent, "Never raise a budget by more than 20 percent a day.")
    run = open_run(api, agent, run_id=run_id, text=f"Capped at 10 percent [mem:{rule}].")
    response = api.post(
        reverse("run-outcome", kwargs={"run_pk": run["id"]}), {"outcome": outcome}, format="json"
    )
    assert response.status_code == 200, response.content
    return AgentRun.objects.for_tenant(tenant).get(pk=run["id"]), rule


@pytest.mark.parametrize("hours", [24, 48, 72, 168])
def test_an_outcome_is_judged_only_once_the_agents_delay_has_passed(api, tenant, hours):
    run, rule = _run_with_outcome(api, tenant, hours)
    start = run.created_at
    assert runs_evaluate_matured(now=start + timedelta(hours=hours) - timedelta(minutes=1)) == []
    assert confidence(rule) == 0.7
    assert runs_evaluate_matured(now=start + timedelta(hours=hours, minutes=1)) == [run.pk]
    assert confidence(rule) == pytest.approx(0.65)  # a failure is a fail verdict; the response cited the rule
    entry = MemoryHistory.objects.for_tenant(tenant).get(memory_id=rule, action="verdict")
    assert entry.after["trace"] == f"run:{run.pk}" and entry.after["verdict_key"] == "outcome"
    # Judged once: a later pass and a changed outcome move nothing.
    assert runs_evaluate_matured(now=start + timedelta(days=30)) == []
    late = api.post(reverse("run-outcome", kwargs={"run_pk": run.pk}), {"outcome": "success"}, format="json")
    assert late.status_code == 409 and late.json()["error"]["code"] == "already_evaluated"


def test_the_default_delay_is_48_hours_and_a_success_is_a_pass(api, tenant):
    run, rule = _run_with_outcome(api, tenant, None, outcome="success")
    assert runs_evaluate_matured(now=run.created_at + timedelta(hours=47)) == []
    assert runs_evaluate_matured(now=run.created_at + timedelta(hours=49)) == [run.pk]
    assert confidence(rule) == pytest.approx(0.75)


def test_a_run_without_an_outcome_is_never_judged_and_the_beat_task_judges_matured_runs(api, tenant):
    agent = action_agent(tenant, evaluate_after_hours=24)
    open_run(api, agent, run_id="no-outcome")
    three_days_ago = timezone.now() - timedelta(days=3)
    AgentRun.objects.for_tenant(tenant).update(created_at=three_days_ago, responded_at=three_days_ago)
    assert evaluate_matured_outcomes.delay().get() == 0
    run = AgentRun.objects.for_tenant(tenant).get()
    api.post(reverse("run-outcome", kwargs={"run_pk": run.pk}), {"outcome": "failure"}, format="json")
    assert evaluate_matured_outcomes.delay().get() == 1
    assert AgentRun.objects.for_tenant(tenant).get().outcome_evaluated_at is not None


def test_a_bad_outcome_is_a_400(api, tenant):
    run = open_run(api, action_agent(tenant))
    response = api.post(
        reverse("run-outcome", kwargs={"run_pk": run["id"]}), {"outcome": "meh"}, format="json"
    )
    assert response.status_code == 400 and "outcome" in response.json()["error"]["fields"]


# --- The Runs page ----------------------------------------------------------------------------------------


def test_the_runs_page_lists_runs_with_their_actions_and_an_operator_approves_one(
    client, api, tenant, django_capture_on_commit_callbacks
):
    agent = action_agent(tenant)
    run = open_run(api, agent)
    client.force_login(make_member(tenant, Role.OPERATOR))
    page = client.get(reverse("intelligence-runs", args=[agent.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "spring-sale daily budget" in html and 'value="approve"' in html and 'name="reason"' in html
    action_id = run["proposed_actions"][0]["id"]
    url = reverse("intelligence-run-action-decide", args=[agent.pk, run["id"], action_id])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"decision": "reject", "reason": "Budget frozen this quarter"})
    assert response.status_code == 302
    action = ProposedAction.objects.for_tenant(tenant).get()
    assert action.status == "rejected" and action.reason == "Budget frozen this quarter"
    after = client.get(reverse("intelligence-runs", args=[agent.pk])).content.decode()
    assert "Budget frozen this quarter" in after and 'value="approve"' not in after


def test_a_viewer_sees_the_runs_page_without_buttons_and_cannot_decide(client, api, tenant):
    agent = action_agent(tenant)
    run = open_run(api, agent)
    client.force_login(make_member(tenant, Role.VIEWER))
    assert 'value="approve"' not in client.get(reverse("intelligence-runs", args=[agent.pk])).content.decode()
    url = reverse(
        "intelligence-run-action-decide", args=[agent.pk, run["id"], run["proposed_actions"][0]["id"]]
    )
    assert client.post(url, {"decision": "approve"}).status_code == 403
    assert ProposedAction.objects.for_tenant(tenant).get().status == "proposed"


def test_another_tenants_runs_page_and_actions_are_404s(client, api, tenant, other_tenant):
    agent = action_agent(tenant)
    run = open_run(api, agent)
    client.force_login(make_member(other_tenant, Role.ADMIN, username="intruder"))
    assert client.get(reverse("intelligence-runs", args=[agent.pk])).status_code == 404
    url = reverse(
        "intelligence-run-action-decide", args=[agent.pk, run["id"], run["proposed_actions"][0]["id"]]
    )
    assert client.post(url, {"decision": "approve"}).status_code == 404
    assert ProposedAction.objects.for_tenant(tenant).get().status == "proposed"


def test_a_run_of_another_agent_is_a_404_on_the_page(client, api, tenant):
    agent, other = action_agent(tenant), make_agent(tenant, name="Other", kind="action")
    run = open_run(api, agent)
    client.force_login(make_member(tenant, Role.OPERATOR))
    url = reverse(
        "intelligence-run-action-decide", args=[other.pk, run["id"], run["proposed_actions"][0]["id"]]
    )
    assert client.post(url, {"decision": "approve"}).status_code == 404


def test_verdict_nudges_are_visible_on_the_memory_page(client, api, tenant):
    agent = make_agent(tenant)
    memory = add_memory(agent, "Never promise a refund before billing confirms it.")
    trace_id = context(api, agent, conversation="refund?").json()["trace_id"]
    post_verdict(api, trace_id=trace_id, verdict="fail", response_text=f"[mem:{memory}]")
    client.force_login(make_member(tenant, Role.VIEWER))
    html = client.get(reverse("intelligence-memory", args=[agent.pk, memory])).content.decode()
    assert 'data-testid="history-verdict"' in html
    assert f"trace:{trace_id}" in html and "0.7 → 0.650" in html


# --- Issue 26, section 3: verdicts that cannot be gamed; Client Brain rows are recorded, not graded ------------


def test_ten_verdict_keys_on_one_trace_move_a_memory_by_at_most_one_delta_and_say_so(api, tenant):
    agent = make_agent(tenant)
    rule = add_memory(agent, "Never promise a refund before billing confirms it.")
    trace_id = context(api, agent, conversation="Can I get a refund?").json()["trace_id"]
    bodies = [
        post_verdict(
            api, trace_id=trace_id, verdict="fail", response_text=f"[mem:{rule}]", verdict_key=f"k{n}"
        ).json()
        for n in range(10)
    ]
    assert confidence(rule) == pytest.approx(0.65)
    assert all(b["applied"] for b in bodies)
    assert bodies[0]["unmoved_memory_ids"] == [] and bodies[0]["message"] == "Applied."
    for body in bodies[1:]:
        assert body["unmoved_memory_ids"] == [rule]
        assert body["message"].startswith("Recorded, nothing moved.")
        assert "already moved them by one full delta" in body["message"]
        (nudge,) = [n for n in body["nudges"] if n["memory_id"] == rule]
        assert nudge["applied_share"] == 0.0 and nudge["reason"] == "verdict_trace_spent"
        assert nudge["confidence_after"] == pytest.approx(0.65)


def test_client_brain_rows_injected_into_failed_runs_keep_their_confidence(api, tenant):
    from tests.brain.factories import fact

    agent = make_agent(tenant)
    row = fact(tenant, "Refunds are paid within five days", confidence=0.55)
    for n in range(2):
        context_body = context(api, agent, conversation="When is my refund paid?").json()
        assert row.pk in context_body["injected_memory_ids"]
        body = post_verdict(
            api, trace_id=context_body["trace_id"], verdict="fail", response_text=f"Five days [mem:{row.pk}]."
        ).json()
        assert row.pk in body["injected_memory_ids"], body
        assert "Client Brain memory recorded without moving" in body["message"]
        (nudge,) = [n for n in body["nudges"] if n["memory_id"] == row.pk]
        assert (nudge["graded"], nudge["applied_share"], nudge["confidence_after"]) == (False, 0.0, 0.55)
    assert confidence(row.pk) == 0.55
    assert MemoryHistory.objects.for_tenant(tenant).filter(memory=row, action="verdict").count() == 2


# --- Clocks (issue 27): the delay counts from the approval; the learning window bounds outcome verdicts ------


def _approve(run: AgentRun, at):
    from intelligence.services import proposed_action_decide

    action = ProposedAction.objects.for_tenant(run.tenant_id).get(run=run)
    return proposed_action_decide(action=action, decision="approved", actor="user:1", now=at)


def test_the_evaluation_delay_counts_from_the_actions_approval_not_from_the_runs_start(api, tenant):
    run, rule = _run_with_outcome(api, tenant, 24)
    approved_at = run.created_at + timedelta(days=3)
    _approve(run, approved_at)
    # A day after the run started, two after it... the action was approved on day 3: nothing to judge yet.
    assert runs_evaluate_matured(now=approved_at + timedelta(hours=23)) == []
    assert confidence(rule) == 0.7
    assert runs_evaluate_matured(now=approved_at + timedelta(hours=24, minutes=1)) == [run.pk]
    assert confidence(rule) == pytest.approx(0.65)
    assert AgentRun.objects.for_tenant(tenant).get(pk=run.pk).outcome_evaluation == {"result": "applied"}


def test_a_run_without_an_approved_action_counts_from_its_response(api, tenant):
    run, rule = _run_with_outcome(api, tenant, 24)
    responded = run.created_at + timedelta(hours=10)
    AgentRun.objects.for_tenant(tenant).filter(pk=run.pk).update(responded_at=responded)
    assert runs_evaluate_matured(now=run.created_at + timedelta(hours=25)) == []
    assert runs_evaluate_matured(now=responded + timedelta(hours=24, minutes=1)) == [run.pk]


def _age_run(tenant, run: AgentRun, days: int) -> None:
    from intelligence.models import ContextTrace

    then = timezone.now() - timedelta(days=days)
    AgentRun.objects.for_tenant(tenant).filter(pk=run.pk).update(created_at=then, responded_at=then)
    ContextTrace.objects.for_tenant(tenant).filter(pk__in=run.trace_ids).update(created_at=then)


def test_an_outcome_older_than_the_agents_learning_window_is_not_applied(api, tenant):
    agent = action_agent(tenant, evaluate_after_hours=24, learning_window_days=30)
    rule = add_memory(agent, "Never raise a budget by more than 20 percent a day.")
    opened = open_run(api, agent, text=f"Capped at 10 percent [mem:{rule}].")
    api.post(reverse("run-outcome", kwargs={"run_pk": opened["id"]}), {"outcome": "failure"}, format="json")
    run = AgentRun.objects.for_tenant(tenant).get(pk=opened["id"])
    _age_run(tenant, run, 60)
    # The run leaves the queue (it is never judged later either), and says why; the rule does not move.
    assert runs_evaluate_matured() == [run.pk]
    assert confidence(rule) == 0.7
    run.refresh_from_db()
    assert run.outcome_evaluated_at is not None
    assert run.outcome_evaluation == {"result": "ignored", "reason": "outside_learning_window"}
    assert not MemoryHistory.objects.for_tenant(tenant).filter(memory_id=rule, action="verdict").exists()
    assert runs_evaluate_matured() == []


def test_a_posted_verdict_on_a_trace_older_than_the_window_moves_nothing_and_says_why(api, tenant):
    agent = make_agent(tenant, learning_config={"learning_window_days": 30})
    rule = add_memory(agent, "Always confirm the order number first.")
    trace_id = context(api, agent, conversation="Where is my order?").json()["trace_id"]
    from intelligence.models import ContextTrace

    ContextTrace.objects.for_tenant(tenant).filter(pk=trace_id).update(
        created_at=timezone.now() - timedelta(days=45)
    )
    response = post_verdict(api, trace_id=trace_id, verdict="fail", response_text=f"Checked [mem:{rule}].")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["applied"] is False and body["ignored"] == "outside_learning_window"
    assert "learning window" in body["message"] and body["injected_memory_ids"] == []
    assert confidence(rule) == 0.7
    # The same trace for an agent whose window is all time is applied.
    agent.learning_config = {}
    agent.save(update_fields=["learning_config"])
    again = post_verdict(api, trace_id=trace_id, verdict="fail", response_text=f"Checked [mem:{rule}].")
    assert again.status_code == 201 and again.json()["ignored"] == ""
    assert confidence(rule) == pytest.approx(0.65)


def test_a_conversation_judged_across_the_window_counts_only_its_recent_traces(api, tenant):
    from intelligence.models import ContextTrace

    agent = make_agent(tenant, learning_config={"learning_window_days": 30})
    old_rule = add_memory(agent, "Offer the spring catalogue to returning customers.")
    first = context(api, agent, conversation_id="c-1", conversation="Spring catalogue please").json()
    ContextTrace.objects.for_tenant(tenant).filter(pk=first["trace_id"]).update(
        created_at=timezone.now() - timedelta(days=40)
    )
    # Only the old trace injected the old rule; the recent one injected the new rule alone.
    Memory.objects.all_tenants().filter(pk=old_rule).update(status="archived")
    new_rule = add_memory(agent, "Always confirm the order number first.")
    second = context(api, agent, conversation_id="c-1", conversation="Where is my order?").json()
    Memory.objects.all_tenants().filter(pk=old_rule).update(status="active")
    assert old_rule in first["injected_memory_ids"] and old_rule not in second["injected_memory_ids"]
    assert new_rule in second["injected_memory_ids"]
    body = post_verdict(api, conversation_id=second["conversation"]["id"], verdict="fail").json()
    assert body["applied"] is True, body
    assert body["injected_memory_ids"] == second["injected_memory_ids"]
    assert confidence(new_rule) < 0.7 and confidence(old_rule) == 0.7
