"""The suggestion task on a real Celery worker: the rating that reaches the threshold commits, the task is sent
after the commit, and the worker proposes the suggestion."""

import time

import pytest

from intelligence.models import SuggestionRun
from intelligence.selectors import suggestion_queue

from .factories import make_agent
from .feedback_helpers import rate

REFUND = "Mention the 30-day refund window when customers ask about returns."


@pytest.mark.worker
def test_a_real_celery_worker_proposes_a_suggestion_after_the_threshold_rating_commits(tenant, celery_worker):
    agent = make_agent(tenant, learning_config={"suggestion_feedback_threshold": 2})
    rate(agent, REFUND)  # autocommit: below the threshold, nothing is sent
    rate(agent, REFUND)
    deadline = time.monotonic() + 60
    while not SuggestionRun.objects.for_tenant(tenant).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert SuggestionRun.objects.for_tenant(tenant).count() == 1
    assert [m.text for m in suggestion_queue(agent).items] == [REFUND]
