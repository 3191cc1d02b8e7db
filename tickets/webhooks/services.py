"""Registering endpoints, fanning an event out to them, and one delivery attempt (signed POST)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import time
import uuid
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from config.celery import enqueue_after_commit
from tickets.tenancy.models import Tenant

from .models import DeliveryStatus, WebhookDelivery, WebhookEndpoint, WebhookEvent

SIGNATURE_VERSION = "v1"
LOOPBACK_HOSTS = {"localhost"}


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def webhook_url_check(url: str) -> None:
    """HTTPS only; plain http is allowed for a loopback host when BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK is on
    (tests and local development). Raises ValidationError saying what to fix."""
    parts = urlsplit(url or "")
    if not parts.hostname:
        raise ValidationError({"url": "Send a full URL, e.g. https://hooks.example.com/brain."})
    if parts.scheme == "https":
        return
    if (
        parts.scheme == "http"
        and settings.BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK
        and _is_loopback(parts.hostname)
    ):
        return
    raise ValidationError({"url": "Webhook endpoints must use https://."})


@transaction.atomic
def webhook_endpoint_create(
    *, tenant: Tenant, url: str, events: list[str], actor: str = ""
) -> WebhookEndpoint:
    """Register an endpoint for `events` (WebhookEvent values); its signing secret is generated here."""
    webhook_url_check(url)
    unknown = sorted(set(events) - set(WebhookEvent.values))
    if not events or unknown:
        raise ValidationError({"events": f"Choose events among {', '.join(WebhookEvent.values)}."})
    return WebhookEndpoint.objects.create(
        tenant=tenant,
        url=url,
        events=sorted(set(events)),
        secret="whsec_" + secrets.token_urlsafe(32),
        created_by=actor[:120],
    )


def webhook_endpoint_deactivate(*, endpoint: WebhookEndpoint) -> None:
    endpoint.is_active = False
    endpoint.save(update_fields=["is_active"])


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The signature header's value: v1=<hex HMAC-SHA256(secret, "<timestamp>." + body)>."""
    digest = hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"{SIGNATURE_VERSION}={digest}"


def webhook_event_publish(*, tenant_id: int, event: str, data: dict[str, Any]) -> list[int]:
    """Record a delivery of `event` to each of the tenant's active endpoints that subscribed to it, and
    enqueue each after the commit. Only this tenant's endpoints are considered. Returns the delivery ids."""
    endpoints = [
        e for e in WebhookEndpoint.objects.for_tenant(tenant_id).filter(is_active=True) if event in e.events
    ]
    if not endpoints:
        return []
    tenant = Tenant.objects.get(pk=tenant_id)
    created_at = timezone.now().isoformat()
    with transaction.atomic():
        deliveries = [
            WebhookDelivery.objects.create(
                tenant_id=tenant_id,
                endpoint=endpoint,
                event=event,
                payload={
                    "id": str(uuid.uuid4()),
                    "event": event,
                    "created_at": created_at,
                    "tenant": tenant.slug,
                    "data": json.loads(json.dumps(data, cls=DjangoJSONEncoder)),
                },
            )
            for endpoint in endpoints
        ]
        ids = [d.pk for d in deliveries]
        for delivery_id in ids:
            enqueue_after_commit("tickets.deliver_webhook", tenant_id, delivery_id)
    return ids


def webhook_deliver(*, tenant_id: int, delivery_id: int, final: bool) -> bool:
    """One attempt: POST the signed body; record the answer. Returns whether it was delivered (2xx).
    `final` marks a failure as the last one (status failed instead of retrying)."""
    delivery = (
        WebhookDelivery.objects.for_tenant(tenant_id)
        .select_related("endpoint")
        .filter(pk=delivery_id)
        .first()
    )
    if delivery is None or delivery.status == DeliveryStatus.DELIVERED:
        return True
    body = json.dumps(delivery.payload, separators=(",", ":")).encode()
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Brain-Webhooks/1",
        "X-Brain-Event": delivery.event,
        "X-Brain-Delivery": delivery.payload["id"],
        "X-Brain-Timestamp": str(timestamp),
        "X-Brain-Signature": sign(delivery.endpoint.secret, timestamp, body),
    }
    status_code, error = None, ""
    try:
        response = httpx.post(
            delivery.endpoint.url, content=body, headers=headers, timeout=settings.BRAIN_WEBHOOK_TIMEOUT
        )
        status_code = response.status_code
        if not response.is_success:
            error = f"HTTP {status_code}: {response.text[:500]}"
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"[:1000]
    delivered = not error
    delivery.attempts += 1
    delivery.last_status_code = status_code
    delivery.last_error = error
    if delivered:
        delivery.status, delivery.delivered_at = DeliveryStatus.DELIVERED, timezone.now()
    else:
        delivery.status = DeliveryStatus.FAILED if final else DeliveryStatus.RETRYING
    delivery.save(update_fields=["attempts", "last_status_code", "last_error", "status", "delivered_at"])
    return delivered
