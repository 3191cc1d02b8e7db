"""Learning from a resolved ticket runs on a Celery worker.

It is asynchronous because extraction may call an LLM (seconds, and it can fail transiently): the
helpdesk's status change must not wait for it or fail with it. The task is enqueued after the status
change commits (`ticket_transition`), takes ids only, re-reads everything, and owns only the retries.
"""

import logging

from celery import shared_task
from celery.exceptions import Retry
from django.conf import settings

from brain.api import ProviderError

from . import services

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="tickets.learn_from_ticket", max_retries=None)
def learn_from_ticket(self, tenant_id: int, ticket_id: int, attempt_id: int | None = None) -> dict | Retry:
    """Run one learning attempt for the tenant's ticket; retry transient provider errors with backoff.

    Idempotent: a second run for the same ticket reinforces what the first added. Never raises, so an
    eager run (no broker configured) cannot break the request that solved the ticket; a final failure
    is recorded on the LearningAttempt instead.
    """
    attempt = services.learning_attempt_begin(tenant_id=tenant_id, ticket_id=ticket_id, attempt_id=attempt_id)
    try:
        attempt = services.learning_attempt_run(attempt=attempt, ticket_id=ticket_id)
    except ProviderError as exc:
        max_retries = settings.BRAIN_LEARNING_MAX_RETRIES
        if self.request.retries >= max_retries:
            attempt = services.learning_attempt_fail(
                attempt=attempt, error=f"gave up after {attempt.tries} tries: {exc}"
            )
        else:
            countdown = settings.BRAIN_LEARNING_RETRY_BACKOFF * (2**self.request.retries)
            # On a worker, retry() raises and the broker redelivers after `countdown`. Run eagerly (no
            # broker configured), Celery re-applies a *returned* Retry at once, in-process: raising it
            # there would propagate into the request that solved the ticket.
            return self.retry(
                exc=exc,
                countdown=countdown,
                max_retries=max_retries,
                kwargs={**(self.request.kwargs or {}), "attempt_id": attempt.pk},
                throw=not self.request.is_eager,
            )
    except Exception as exc:  # a bug must not leave the attempt "running" forever; it is logged and recorded
        logger.exception("learning from ticket %s of tenant %s failed", ticket_id, tenant_id)
        attempt = services.learning_attempt_fail(attempt=attempt, error=f"{type(exc).__name__}: {exc}")
    return {"attempt_id": attempt.pk, "status": attempt.status, "skip_reason": attempt.skip_reason}


# Webhook deliveries (tickets/webhooks/tasks.py): imported here so the worker's task autodiscovery finds them.
from .webhooks.tasks import deliver_webhook  # noqa: E402, F401
