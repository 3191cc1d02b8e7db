"""Webhook deliveries run on a Celery worker: a receiver may be slow or down, and neither the write that
caused the event nor the request that made it should wait for it or fail with it. The task takes ids, calls
one service per attempt and owns the retries (exponential backoff, BRAIN_WEBHOOK_MAX_ATTEMPTS in all).
Without a broker a task runs inside the request that caused it: then one attempt only, never a retry there."""

from celery import shared_task
from django.conf import settings

from . import services


@shared_task(bind=True, name="tickets.deliver_webhook", max_retries=None)
def deliver_webhook(self, tenant_id: int, delivery_id: int):
    attempt = self.request.retries + 1
    final = attempt >= settings.BRAIN_WEBHOOK_MAX_ATTEMPTS or self.request.is_eager
    if services.webhook_deliver(tenant_id=tenant_id, delivery_id=delivery_id, final=final):
        return None
    raise self.retry(countdown=settings.BRAIN_WEBHOOK_RETRY_BACKOFF * (2**self.request.retries))
