"""Registering endpoints, fanning an event out to them, and one delivery attempt (signed POST)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import socket
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
NOT_PUBLIC = "The endpoint's host is not a public address (private, loopback or link-local); not delivered."
UNRESOLVED = "The endpoint's host could not be resolved."
UNREACHABLE = "The endpoint could not be reached."


class EndpointNotPublic(Exception):
    """A host that resolves to an address inside a network: loopback, private, link-local (the cloud metadata
    address 169.254.169.254 among them), shared, reserved or multicast."""


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _address_allowed(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone ("fe80::1%eth0") says nothing more
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return settings.BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK  # tests and local development only
    return ip.is_global and not ip.is_multicast


def endpoint_addresses(host: str, port: int) -> list[str]:
    """Every address `host` resolves to, when all of them are public; EndpointNotPublic otherwise, and
    socket.gaierror when it does not resolve. Read at registration and again before each delivery, which
    then connects to an address read here (a name that resolved to a public address at registration may
    resolve inward later: DNS rebinding)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not addresses or not all(_address_allowed(address) for address in addresses):
        raise EndpointNotPublic(host)
    return addresses


def webhook_url_check(url: str) -> None:
    """HTTPS only, to a public address; plain http and loopback are allowed for a loopback host when
    BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK is on (tests and local development). A host that does not resolve yet
    is accepted (each delivery resolves it again). Raises ValidationError saying what to fix."""
    parts = urlsplit(url or "")
    try:
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ValidationError({"url": "The URL's port is not a number from 1 to 65535."}) from None
    if not host:
        raise ValidationError({"url": "Send a full URL, e.g. https://hooks.example.com/brain."})
    loopback_allowed = settings.BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK and _is_loopback(host)
    if parts.scheme != "https" and not (parts.scheme == "http" and loopback_allowed):
        raise ValidationError({"url": "Webhook endpoints must use https://."})
    try:
        endpoint_addresses(host, port)
    except EndpointNotPublic:
        raise ValidationError(
            {
                "url": "Webhook endpoints must be on the public internet: this host is a private, loopback or"
                " link-local address."
            }
        ) from None
    except (OSError, UnicodeError):
        pass  # not resolvable yet: every delivery resolves it and refuses an inward address


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


def _post_pinned(url: str, body: bytes, headers: dict[str, str]) -> tuple[int | None, str]:
    """POST to `url` at an address checked just before (endpoint_addresses), the TLS certificate still
    verified against the URL's host name; (status code, "" or an error). Errors are generic: a receiver's
    own answer or a socket's says nothing an endpoint pointed at another service could probe with."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        address = endpoint_addresses(parts.hostname, port)[0]
    except EndpointNotPublic:
        return None, NOT_PUBLIC
    except (OSError, UnicodeError):
        return None, UNRESOLVED
    literal = f"[{address}]" if ":" in address else address
    pinned = parts._replace(netloc=f"{literal}:{port}").geturl()
    try:
        with httpx.Client(timeout=settings.BRAIN_WEBHOOK_TIMEOUT) as client:
            response = client.post(
                pinned,
                content=body,
                headers={**headers, "Host": parts.netloc.rsplit("@", 1)[-1]},
                extensions={"sni_hostname": parts.hostname},
            )
    except httpx.HTTPError:
        return None, UNREACHABLE
    return response.status_code, "" if response.is_success else f"HTTP {response.status_code}"


def webhook_deliver(*, tenant_id: int, delivery_id: int, final: bool) -> bool:
    """One attempt: POST the signed body; record the answer. Returns whether the delivery is settled: delivered
    (2xx), or failed for good. `final` marks a failure as the last one (status failed instead of retrying);
    so is a failure to an address that is not public."""
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
    status_code, error = _post_pinned(delivery.endpoint.url, body, headers)
    final = final or error == NOT_PUBLIC  # an address that is not public is not tried again
    delivered = not error
    delivery.attempts += 1
    delivery.last_status_code = status_code
    delivery.last_error = error
    if delivered:
        delivery.status, delivery.delivered_at = DeliveryStatus.DELIVERED, timezone.now()
    else:
        delivery.status = DeliveryStatus.FAILED if final else DeliveryStatus.RETRYING
    delivery.save(update_fields=["attempts", "last_status_code", "last_error", "status", "delivered_at"])
    return delivered or final
