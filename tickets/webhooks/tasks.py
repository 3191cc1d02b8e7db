"""Webhook deliveries run on a Celery worker: a receiver may be slow or down, and neither the write that
caused the event nor the request that made it should wait for it or fail with it. The task takes ids, calls
one service per attempt and owns the retries (exponential backoff, BRAIN_WEBHOOK_MAX_ATTEMPTS in all)."""

from celery import shared_task
from django.conf import settings

from . import services


@shared_task(bind=True, name="tickets.deliver_webhook", max_retries=None)
def deliver_webhook(self, tenant_id: int, delivery_id: int):
    attempt = self.request.retries + 1
    final = attempt >= settings.BRAIN_WEBHOOK_MAX_ATTEMPTS
    if services.webhook_deliver(tenant_id=tenant_id, delivery_id=delivery_id, final=final) or final:
        return None
    # Eagerly (no broker), Celery re-applies a *returned* Retry at once, in-process; on a worker retry()
    # raises and the broker redelivers after the countdown.
    return self.retry(
        countdown=settings.BRAIN_WEBHOOK_RETRY_BACKOFF * (2**self.request.retries),
        throw=not self.request.is_eager,
    )
