"""Events that become webhook deliveries: the brain's (brain.events) and the helpdesk's failed learning."""

from typing import Any

from .models import WebhookEndpoint
from .services import webhook_event_publish


def on_brain_event(tenant_id: int, event: str, data: dict[str, Any]) -> None:
    webhook_event_publish(tenant_id=tenant_id, event=event, data=data)


def tenant_has_endpoints(tenant_id: int, event: str) -> bool:
    """One indexed existence check (tenant, is_active); the event filter is applied when publishing."""
    return WebhookEndpoint.objects.for_tenant(tenant_id).filter(is_active=True).exists()


def connect() -> None:
    """Called from WebhooksConfig.ready()."""
    from brain.api import events_subscribe

    events_subscribe(on_brain_event, wants=tenant_has_endpoints)
