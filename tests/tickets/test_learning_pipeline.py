"""Client Brain learning, the tickets side (spec: client_brain.txt, Learning Pipeline 1–3)."""

import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.db import connection

from brain.models import Memory, WriteSurface
from brain.providers import _load
from tests.loopback import LoopbackOpenAI
from tickets import services
from tickets.models import LearningAttempt, LearningSkipReason, LearningStatus, Ticket
from tickets.selectors import ticket_evidence
from tickets.tasks import learn_from_ticket
from tickets.tenancy.wall import tenant_scope

from .learning_helpers import ticket_with_evidence


@pytest.fixture(autouse=True)
def _fresh_provider_cache():
    _load.cache_clear()
    yield
    _load.cache_clear()


def attempts(tenant):
    return list(LearningAttempt.objects.for_tenant(tenant).order_by("id"))


def solve(ticket, capture, status="solved", execute=True):
    with capture(execute=execute) as callbacks:
        ticket = services.ticket_transition(ticket=ticket, status=status)
    return ticket, callbacks


# --- 1. Eligible terminal ticket: only a NEW entry into solved/closed/resolved requests learning ------


@pytest.mark.parametrize("terminal", ["solved", "closed", "resolved"])
def test_newly_entering_a_terminal_state_requests_learning_after_commit(
    tenant, terminal, django_capture_on_commit_callbacks
):
    ticket = ticket_with_evidence(tenant)
    _, callbacks = solve(ticket, django_capture_on_commit_callbacks, status=terminal)
    assert len(callbacks) == 1
    (attempt,) = attempts(tenant)
    assert attempt.status == LearningStatus.SUCCEEDED
    assert attempt.trigger == "terminal_transition" and attempt.ticket_external_id == "T-100"
    assert attempt.added == attempt.candidates > 0


def test_the_learning_task_is_not_sent_before_the_transaction_commits(
    tenant, django_capture_on_commit_callbacks
):
    ticket = ticket_with_evidence(tenant)
    _, callbacks = solve(ticket, django_capture_on_commit_callbacks, execute=False)
    assert len(callbacks) == 1  # waiting for commit: a rolled-back status change never reaches a worker
    (attempt,) = attempts(tenant)
    assert attempt.status == LearningStatus.QUEUED
    assert not Memory.objects.for_tenant(tenant).exists()


def test_re_saving_a_terminal_status_does_not_request_learning_again(
    tenant, django_capture_on_commit_callbacks
):
    ticket = ticket_with_evidence(tenant)
    solve(ticket, django_capture_on_commit_callbacks)
    _, callbacks = solve(ticket, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True) as upsert_callbacks:
        services.ticket_upsert(
            tenant=tenant, external_id="T-100", subject="Tent pole snapped", status="solved"
        )
    assert callbacks == [] and upsert_callbacks == []
    assert len(attempts(tenant)) == 1


def test_terminal_to_terminal_does_not_request_learning(tenant, django_capture_on_commit_callbacks):
    ticket = ticket_with_evidence(tenant)
    solve(ticket, django_capture_on_commit_callbacks, status="solved")
    solve(ticket, django_capture_on_commit_callbacks, status="closed")
    solve(ticket, django_capture_on_commit_callbacks, status="resolved")
    assert len(attempts(tenant)) == 1


def test_a_reopened_ticket_solved_again_requests_learning_again(tenant, django_capture_on_commit_callbacks):
    ticket = ticket_with_evidence(tenant)
    solve(ticket, django_capture_on_commit_callbacks)
    solve(ticket, django_capture_on_commit_callbacks, status="open")
    solve(ticket, django_capture_on_commit_callbacks, status="solved")
    assert [a.status for a in attempts(tenant)] == [LearningStatus.SUCCEEDED, LearningStatus.SUCCEEDED]


def test_non_terminal_changes_do_not_request_learning(tenant, django_capture_on_commit_callbacks):
    ticket = ticket_with_evidence(tenant)
    for status in ("pending", "open", "new"):
        solve(ticket, django_capture_on_commit_callbacks, status=status)
    assert attempts(tenant) == []


def test_a_ticket_created_already_solved_requests_learning(tenant, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.ticket_upsert(tenant=tenant, external_id="NEW-1", subject="Refund", status="solved")
    assert len(callbacks) == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_transitions_to_solved_request_learning_once(tenant, settings):
    settings.BRAIN_LLM_PROVIDER = {"BACKEND": "brain.providers.LocalProvider"}
    ticket, _ = services.ticket_upsert(tenant=tenant, external_id="RACE-1", subject="Race", status="open")
    barrier = threading.Barrier(4)
    errors = []

    def solve_it():
        try:
            barrier.wait(timeout=10)
            with tenant_scope(tenant.pk):  # as a request would (the tenant wall)
                services.ticket_transition(ticket=ticket, status="solved")
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=solve_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert LearningAttempt.objects.for_tenant(tenant).filter(trigger="terminal_transition").count() == 1


def test_learning_is_not_an_interaction_stream_new_evidence_on_a_solved_ticket_requests_nothing(
    tenant, django_capture_on_commit_callbacks
):
    ticket = ticket_with_evidence(tenant)
    solve(ticket, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.message_add(ticket=ticket, direction="outbound", body="One more thing: we restocked poles.")
        services.classification_add(ticket=ticket, category="product_quality", intent="restock")
        services.approval_record(ticket=ticket, proposed_action="Send a spare pole", decision="approved")
    assert callbacks == []
    assert len(attempts(tenant)) == 1


# --- 2. Runtime checks: the exact tenant ticket is re-read; each skip has its reason ----------------------


def test_learning_skips_when_the_ticket_is_missing(tenant):
    learn_from_ticket.apply(args=(tenant.pk, 987654321))
    (attempt,) = attempts(tenant)
    assert (attempt.status, attempt.skip_reason) == (
        LearningStatus.SKIPPED,
        LearningSkipReason.TICKET_MISSING,
    )


def test_learning_skips_another_tenants_ticket_as_missing(tenant, other_tenant):
    foreign = ticket_with_evidence(other_tenant, "THEIRS")
    Ticket.objects.all_tenants().filter(pk=foreign.pk).update(status="solved")
    learn_from_ticket.apply(args=(tenant.pk, foreign.pk))
    (attempt,) = attempts(tenant)
    assert attempt.skip_reason == LearningSkipReason.TICKET_MISSING
    assert not Memory.objects.all_tenants().exists()


def test_learning_skips_when_the_ticket_was_deleted_before_the_worker_ran(
    tenant, django_capture_on_commit_callbacks
):
    ticket = ticket_with_evidence(tenant)
    _, callbacks = solve(ticket, django_capture_on_commit_callbacks, execute=False)
    Ticket.objects.all_tenants().filter(pk=ticket.pk).delete()
    callbacks[0]()
    (attempt,) = attempts(tenant)
    assert attempt.skip_reason == LearningSkipReason.TICKET_MISSING
    assert attempt.ticket_id is None and attempt.ticket_external_id == "T-100"


def test_learning_skips_when_the_ticket_is_no_longer_terminal(tenant, django_capture_on_commit_callbacks):
    ticket = ticket_with_evidence(tenant)
    _, callbacks = solve(ticket, django_capture_on_commit_callbacks, execute=False)
    solve(ticket, django_capture_on_commit_callbacks, status="open")  # reopened before the worker ran
    callbacks[0]()
    (attempt,) = attempts(tenant)
    assert (attempt.status, attempt.skip_reason) == (LearningStatus.SKIPPED, LearningSkipReason.NOT_TERMINAL)
    assert not Memory.objects.for_tenant(tenant).exists()


def test_learning_skips_when_the_configured_providers_key_is_missing(
    tenant, settings, django_capture_on_commit_callbacks
):
    settings.BRAIN_LLM_PROVIDER = {
        "BACKEND": "brain.providers.OpenAICompatibleProvider",
        "BASE_URL": "http://127.0.0.1:9/v1",
        "API_KEY": "",
    }
    solve(ticket_with_evidence(tenant), django_capture_on_commit_callbacks)
    (attempt,) = attempts(tenant)
    assert (attempt.status, attempt.skip_reason) == (
        LearningStatus.SKIPPED,
        LearningSkipReason.PROVIDER_KEY_MISSING,
    )
    assert not Memory.objects.for_tenant(tenant).exists()


def test_learning_skips_a_ticket_without_any_evidence(tenant, django_capture_on_commit_callbacks):
    ticket, _ = services.ticket_upsert(tenant=tenant, external_id="BARE", subject="Hello", status="open")
    services.message_add(ticket=ticket, direction="inbound", body="Where is my order?")
    solve(ticket, django_capture_on_commit_callbacks)
    (attempt,) = attempts(tenant)
    assert attempt.skip_reason == LearningSkipReason.NO_EVIDENCE


# --- 3. Extraction: evidence, promote(), provenance, idempotency ---------------------------------------------


def test_evidence_is_the_ticket_latest_classification_latest_outbound_non_note_message_and_approvals(tenant):
    ticket = ticket_with_evidence(tenant)
    evidence = ticket_evidence(ticket=ticket)
    assert set(evidence.payload()) == {
        "external_id",
        "subject",
        "status",
        "classification",
        "latest_reply",
        "approvals",
    }
    assert evidence.classification["intent"] == "damaged_item"  # the latest one counts
    assert evidence.latest_reply["body"].startswith(
        "Dear Ms Novak"
    )  # not the older reply, not the later note
    assert [a["decision"] for a in evidence.approvals] == ["approved", "rejected"]


def test_evidence_never_carries_customer_messages_notes_csat_or_canned_responses(tenant):
    evidence = repr(ticket_evidence(ticket=ticket_with_evidence(tenant)).payload())
    for forbidden in ("INBOUND-MARKER", "NOTE-MARKER", "CSAT", "canned", "OLD-REPLY-MARKER"):
        assert forbidden not in evidence


def test_learned_memories_are_tenant_scoped_client_brain_rows_with_provenance_to_the_ticket(
    tenant, django_capture_on_commit_callbacks
):
    ticket = ticket_with_evidence(tenant)
    solve(ticket, django_capture_on_commit_callbacks)
    memories = list(Memory.objects.for_tenant(tenant))
    assert {m.type for m in memories} == {"business", "voice", "issues", "process"}
    for memory in memories:
        assert memory.surface == WriteSurface.CLIENT_BRAIN and memory.scope_kind == "tenant"
        assert any(
            p.get("ticket_id") == ticket.pk and p.get("external_id") == "T-100" for p in memory.provenance
        )
    texts = " ".join(m.text for m in memories)
    for forbidden in ("INBOUND-MARKER", "NOTE-MARKER", "REJECTED-MARKER", "OLD-REPLY-MARKER"):
        assert forbidden not in texts
    voice = next(m for m in memories if m.type == "voice")
    assert voice.payload["formality"] == "formal"


def test_learning_the_same_ticket_twice_reinforces_and_adds_nothing(
    tenant, django_capture_on_commit_callbacks
):
    ticket = ticket_with_evidence(tenant)
    solve(ticket, django_capture_on_commit_callbacks)
    rows_after_first = Memory.objects.for_tenant(tenant).count()
    learn_from_ticket.apply(args=(tenant.pk, ticket.pk))
    first, second = attempts(tenant)
    assert second.trigger == "manual"
    assert second.added == 0 and second.reinforced == first.added > 0
    assert Memory.objects.for_tenant(tenant).count() == rows_after_first
    assert set(Memory.objects.for_tenant(tenant).values_list("frequency", flat=True)) == {2}


# --- Transient errors retry with backoff; the LLM producer over HTTP -----------------------------------------


def _llm_settings(settings, server):
    settings.BRAIN_LLM_PROVIDER = server.provider_settings()


def extract_requests(server):
    """The requests of the extraction task (the formation judge may call the same provider too)."""
    return [r for r in server.requests if "Client Brain memories" in r["body"]["messages"][0]["content"]]


LLM_ANSWER = {
    "memories": [
        {
            "type": "business",
            "key": "fact:warranty",
            "value": {"fact": "Acme tent poles carry a two-year warranty."},
        },
        {"type": "voice", "key": "voice:formality", "value": {"formality": "formal", "tone": "empathetic"}},
        {"type": "voice", "key": "voice:bad", "value": {"formality": "very formal", "greeting": "Dear"}},
        {
            "type": "issues",
            "value": {"pattern": "Tent pole snapped", "best_resolution": "Express replacement pole set"},
        },
    ]
}


def test_the_llm_producer_sends_the_evidence_as_json_and_only_typed_memories_are_promoted(
    tenant, settings, django_capture_on_commit_callbacks
):
    with LoopbackOpenAI() as server:
        server.chat_answers.append(LLM_ANSWER)
        _llm_settings(settings, server)
        solve(ticket_with_evidence(tenant), django_capture_on_commit_callbacks)
    (attempt,) = attempts(tenant)
    assert attempt.status == LearningStatus.SUCCEEDED and attempt.provider == "openai"
    assert (attempt.candidates, attempt.added, attempt.rejected) == (
        4,
        2,
        2,
    )  # a bad voice value; no frequency
    assert [o["reason"] for o in attempt.outcomes if o["result"] == "rejected"] == ["untyped_shape"] * 2
    (request,) = extract_requests(server)
    assert request["body"]["response_format"] == {"type": "json_object"}
    system, user = request["body"]["messages"]
    assert "client brain" in system["content"].lower() and "untrusted" in system["content"]
    assert "Dear Ms Novak" in user["content"] and "damaged_item" in user["content"]
    assert "INBOUND-MARKER" not in user["content"] and "NOTE-MARKER" not in user["content"]
    assert "lead@acme.test" not in user["content"] and '"author"' not in user["content"]
    assert sorted(Memory.objects.for_tenant(tenant).values_list("type", flat=True)) == ["business", "voice"]


def test_a_transient_provider_error_is_retried_and_the_attempt_succeeds(
    tenant, settings, django_capture_on_commit_callbacks
):
    with LoopbackOpenAI() as server:
        server.fail_next = 2
        server.chat_answers.append(LLM_ANSWER)
        _llm_settings(settings, server)
        solve(ticket_with_evidence(tenant), django_capture_on_commit_callbacks)
    (attempt,) = attempts(tenant)
    assert attempt.status == LearningStatus.SUCCEEDED
    assert attempt.tries == 3 and len(extract_requests(server)) == 3
    assert attempt.error == ""


def test_retries_back_off_exponentially_and_a_persistent_error_fails_the_attempt(
    tenant, settings, django_capture_on_commit_callbacks
):
    settings.BRAIN_LEARNING_MAX_RETRIES = 2
    settings.BRAIN_LEARNING_RETRY_BACKOFF = 5
    countdowns = []
    original_retry = learn_from_ticket.retry

    def record_retry(*args, **kwargs):  # Celery's own retry, observed (eager runs ignore the countdown)
        countdowns.append(kwargs["countdown"])
        return original_retry(*args, **kwargs)

    learn_from_ticket.retry = record_retry
    try:
        with LoopbackOpenAI() as server:
            server.fail_next = 100
            server.chat_answers.append(LLM_ANSWER)
            _llm_settings(settings, server)
            solve(ticket_with_evidence(tenant), django_capture_on_commit_callbacks)
    finally:
        del learn_from_ticket.retry
    (attempt,) = attempts(tenant)
    assert attempt.status == LearningStatus.FAILED and attempt.tries == 3
    assert "500" in attempt.error and "gave up after 3 tries" in attempt.error
    assert countdowns == [5, 10]
    assert not Memory.objects.for_tenant(tenant).exists()


def test_an_llm_answer_without_a_memories_list_is_a_provider_error_and_is_retried(
    tenant, settings, django_capture_on_commit_callbacks
):
    settings.BRAIN_LEARNING_MAX_RETRIES = 1
    with LoopbackOpenAI() as server:
        server.chat_answers.append({"facts": ["We sell tents."]})
        _llm_settings(settings, server)
        solve(ticket_with_evidence(tenant), django_capture_on_commit_callbacks)
    (attempt,) = attempts(tenant)
    assert attempt.status == LearningStatus.FAILED and attempt.tries == 2
    assert "without a 'memories' list" in attempt.error


# --- A real worker --------------------------------------------------------------------------------------


@pytest.mark.worker
def test_a_real_celery_worker_learns_from_a_solved_ticket(tenant, celery_worker):
    import time

    ticket = ticket_with_evidence(tenant)
    services.ticket_transition(ticket=ticket, status="solved")  # autocommit: sent to the broker at once
    deadline = time.monotonic() + 60
    attempt = LearningAttempt.objects.for_tenant(tenant).get()
    while attempt.status in (LearningStatus.QUEUED, LearningStatus.RUNNING) and time.monotonic() < deadline:
        time.sleep(0.2)
        attempt.refresh_from_db()
    assert attempt.status == LearningStatus.SUCCEEDED, attempt.error
    assert Memory.objects.for_tenant(tenant).filter(surface="client_brain").count() == attempt.added > 0


# --- An unreachable broker never fails the status change; stuck attempts are sent again ---------------------


def test_an_unreachable_broker_leaves_the_attempt_queued_and_the_status_change_succeeds(
    api, tenant, django_capture_on_commit_callbacks
):
    from django.core.management import call_command

    from config.celery import app, use_broker

    ticket = ticket_with_evidence(tenant)
    previous = (None if app.conf.task_always_eager else app.conf.broker_url, app.conf.result_backend)
    use_broker("redis://127.0.0.1:1/0")  # nothing listens on port 1
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(
                f"/api/v1/tickets/{ticket.external_id}/status", {"status": "solved"}, format="json"
            )
    finally:
        use_broker(*previous)
    assert response.status_code == 200 and response.json()["status"] == "solved"
    (attempt,) = attempts(tenant)
    assert attempt.status == LearningStatus.QUEUED and "broker was unavailable" in attempt.error
    LearningAttempt.objects.all_tenants().filter(pk=attempt.pk).update(
        created_at=attempt.created_at - timedelta(minutes=30)
    )
    out = StringIO()
    call_command("learning_requeue", "--older-than", "10", stdout=out)  # the broker is back (eager here)
    attempt.refresh_from_db()
    assert "1 learning attempt(s) due (0 lease ran out, 1 queued, 0 budget back); 1 sent." in out.getvalue()
    assert attempt.status == LearningStatus.SUCCEEDED and attempt.added > 0
