"""Learning from a resolved ticket runs on a Celery worker.

It is asynchronous because extraction may call an LLM (seconds, and it can fail transiently): the
helpdesk's status change must not wait for it or fail with it. The task is enqueued after the status
change commits (`ticket_transition`), takes ids only, re-reads everything, and owns only the retries and
the lease (a delivery runs the attempt only if it can take it: `learning_attempt_claim`). Beat runs
`requeue_learning_attempts`, which sends again the attempts a killed worker or a broker outage left behind.
"""

import logging

from celery import shared_task
from celery.exceptions import Retry
from django.conf import settings

from brain.api import ProviderError

from . import services

logger = logging.getLogger(__name__)


# ignore_result: the outcome lives on the LearningAttempt row; a result backend that is down must not make
# the send (after the status change committed) block or raise.
@shared_task(bind=True, name="tickets.learn_from_ticket", max_retries=None, ignore_result=True)
def learn_from_ticket(self, tenant_id: int, ticket_id: int, attempt_id: int | None = None) -> dict | Retry:
    """Run one learning attempt for the tenant's ticket; retry transient provider errors with backoff.

    Idempotent per attempt: a delivery that cannot take the attempt's lease (finished, or running under
    another live lease) does nothing, and a candidate promoted by an earlier try of the attempt is not
    promoted again. Never raises, so an eager run (no broker configured) cannot break the request that
    solved the ticket; a final failure is recorded on the LearningAttempt instead.
    """
    attempt = services.learning_attempt_claim(tenant_id=tenant_id, ticket_id=ticket_id, attempt_id=attempt_id)
    if attempt is None:
        return {"attempt_id": attempt_id, "status": "not_taken", "skip_reason": ""}
    try:
        attempt = services.learning_attempt_run(attempt=attempt, ticket_id=ticket_id)
    except services.LeaseLost as exc:
        logger.warning("%s", exc)
        return {"attempt_id": attempt.pk, "status": "lease_lost", "skip_reason": ""}
    except ProviderError as exc:
        max_retries = settings.BRAIN_LEARNING_MAX_RETRIES
        # Counted on the attempt, not the message: a try sent again by the requeue task counts too.
        if attempt.tries > max_retries:
            attempt = services.learning_attempt_fail(
                attempt=attempt, error=f"gave up after {attempt.tries} tries: {exc}"
            )
        else:
            countdown = settings.BRAIN_LEARNING_RETRY_BACKOFF * (2 ** (attempt.tries - 1))
            services.learning_attempt_retry_later(attempt=attempt, countdown=countdown)
            # On a worker, retry() raises and the broker redelivers after `countdown`. Run eagerly (no
            # broker configured), Celery re-applies a *returned* Retry at once, in-process: raising it
            # there would propagate into the request that solved the ticket.
            return self.retry(
                exc=exc,
                countdown=countdown,
                max_retries=None,
                kwargs={**(self.request.kwargs or {}), "attempt_id": attempt.pk},
                throw=not self.request.is_eager,
            )
    except Exception as exc:  # a bug must not leave the attempt "running"; it is logged and recorded
        logger.exception("learning from ticket %s of tenant %s failed", ticket_id, tenant_id)
        attempt = services.learning_attempt_fail(attempt=attempt, error=f"{type(exc).__name__}: {exc}")
    return {"attempt_id": attempt.pk, "status": attempt.status, "skip_reason": attempt.skip_reason}


@shared_task(name="tickets.requeue_learning_attempts", ignore_result=True)
def requeue_learning_attempts() -> dict:
    """Beat, every BRAIN_LEARNING_REQUEUE_EVERY seconds: send again the attempts whose lease ran out, those a
    broker outage left queued, and those waiting for today's LLM budget. Safe to run twice at once."""
    result = services.learning_attempts_requeue()
    if result.found:
        logger.info("learning requeue: %s", result)
    return {"found": result.found, "sent": result.sent}
