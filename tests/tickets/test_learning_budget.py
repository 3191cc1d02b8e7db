"""Per-tenant cost limits on learning (issue 15): a tenant's daily LLM calls / tokens are counted per day in a
table and checked before each call; past the cap, attempts skip with `budget_exhausted` and resume the next
day; the admin shows the spend. The provider is the OpenAI-compatible one against a server on loopback."""

from datetime import timedelta

import pytest
from django.utils import timezone

from brain.models import ProviderSpend
from brain.providers import _load
from tests.loopback import LoopbackOpenAI
from tickets import services
from tickets.models import LearningAttempt, LearningSkipReason, LearningStatus

from .learning_helpers import ticket_with_evidence
from .test_learning_pipeline import LLM_ANSWER, extract_requests


@pytest.fixture(autouse=True)
def _fresh_provider_cache():
    _load.cache_clear()
    yield
    _load.cache_clear()


@pytest.fixture
def llm(settings):
    with LoopbackOpenAI() as server:
        server.chat_answers.append(LLM_ANSWER)
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        yield server


def _solve(tenant, external_id, capture):
    ticket = ticket_with_evidence(tenant, external_id)
    with capture(execute=True):
        services.ticket_transition(ticket=ticket, status="solved")
    return LearningAttempt.objects.for_tenant(tenant).get(ticket=ticket)


def _cap(tenant, **limits):
    tenant.settings = {**(tenant.settings or {}), "llm_daily_limits": limits}
    tenant.save(update_fields=["settings"])


def test_learning_past_the_tenants_daily_call_cap_skips_with_budget_exhausted_without_calling_the_llm(
    tenant, other_tenant, llm, django_capture_on_commit_callbacks
):
    _cap(tenant, calls=1)
    first = _solve(tenant, "T-1", django_capture_on_commit_callbacks)
    assert first.status == LearningStatus.SUCCEEDED
    calls_before = len(llm.requests)
    second = _solve(tenant, "T-2", django_capture_on_commit_callbacks)
    assert (
        second.status == LearningStatus.SKIPPED and second.skip_reason == LearningSkipReason.BUDGET_EXHAUSTED
    )
    assert len(llm.requests) == calls_before  # checked before the call: none was made
    spend = ProviderSpend.objects.for_tenant(tenant).get(day=timezone.localdate())
    assert spend.calls == 1 and spend.tokens > 0
    # Another tenant's spend is its own: every call made for it (extraction, the formation judge) counts.
    calls_before = len(llm.requests)
    assert _solve(other_tenant, "T-1", django_capture_on_commit_callbacks).status == LearningStatus.SUCCEEDED
    assert ProviderSpend.objects.for_tenant(other_tenant).get().calls == len(llm.requests) - calls_before > 0
    assert ProviderSpend.objects.for_tenant(tenant).get().calls == 1


def test_the_token_cap_counts_the_tokens_the_endpoint_reports_or_an_estimate(
    tenant, llm, django_capture_on_commit_callbacks
):
    _cap(tenant, tokens=1)
    assert _solve(tenant, "T-1", django_capture_on_commit_callbacks).status == LearningStatus.SUCCEEDED
    skipped = _solve(tenant, "T-2", django_capture_on_commit_callbacks)
    assert skipped.skip_reason == LearningSkipReason.BUDGET_EXHAUSTED and "tokens" in skipped.error


def test_an_attempt_skipped_for_the_budget_resumes_the_next_day(
    tenant, llm, django_capture_on_commit_callbacks
):
    _cap(tenant, calls=1)
    _solve(tenant, "T-1", django_capture_on_commit_callbacks)
    skipped = _solve(tenant, "T-2", django_capture_on_commit_callbacks)
    assert services.learning_attempts_requeue().found == 0  # still today: the budget is spent
    yesterday = timezone.now() - timedelta(days=1)
    ProviderSpend.objects.for_tenant(tenant).update(day=timezone.localdate(yesterday))
    LearningAttempt.objects.for_tenant(tenant).filter(pk=skipped.pk).update(finished_at=yesterday)
    with django_capture_on_commit_callbacks(execute=True):
        result = services.learning_attempts_requeue()
    assert (result.found, result.budget_resumed) == (1, 1)
    skipped.refresh_from_db()
    assert skipped.status == LearningStatus.SUCCEEDED and skipped.skip_reason == "" and skipped.candidates > 0
    assert ProviderSpend.objects.for_tenant(tenant).get(day=timezone.localdate()).calls >= 1


def test_the_local_provider_costs_nothing_and_is_not_capped(
    tenant, settings, django_capture_on_commit_callbacks
):
    settings.BRAIN_LLM_PROVIDER = {"BACKEND": "brain.providers.LocalProvider"}
    _cap(tenant, calls=0)
    assert _solve(tenant, "T-1", django_capture_on_commit_callbacks).status == LearningStatus.SUCCEEDED
    assert not ProviderSpend.objects.for_tenant(tenant).exists()


def test_the_admin_shows_each_tenants_spend_and_limits(
    tenant, llm, admin_client, django_capture_on_commit_callbacks
):
    _cap(tenant, calls=5, tokens=100000)
    _solve(tenant, "T-1", django_capture_on_commit_callbacks)
    page = admin_client.get("/admin/brain/providerspend/")
    assert page.status_code == 200
    body = page.content.decode()
    spend = ProviderSpend.objects.for_tenant(tenant).get()
    assert "Acme Support" in body and f">{spend.tokens}<" in body and "5 / 100000" in body
    assert len(extract_requests(llm)) == 1
