"""A tenant's webhook endpoints and the record of every delivery to them."""

from django.db import models

from tickets.tenancy.managers import TenantScopedManager
from tickets.tenancy.models import Tenant


class WebhookEvent(models.TextChoices):
    MEMORY_LEARNED = "memory.learned", "Memory learned"
    MEMORY_SUPERSEDED = "memory.superseded", "Memory superseded"
    MEMORY_ARCHIVED = "memory.archived", "Memory archived"
    SUGGESTION_PROPOSED = "suggestion.proposed", "Suggestion proposed"
    LEARNING_ATTEMPT_FAILED = "learning.attempt_failed", "Learning attempt failed"


class WebhookEndpoint(models.Model):
    """An HTTPS URL that receives the tenant's chosen events, signed with its own secret."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.URLField(max_length=500)
    events = models.JSONField(default=list, help_text="The WebhookEvent values this endpoint receives.")
    secret = models.CharField(max_length=80, editable=False, help_text="Signs every delivery (HMAC-SHA256).")
    is_active = models.BooleanField(default=True)
    created_by = models.CharField(max_length=120, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TenantScopedManager()

    class Meta:
        db_table = "tickets_webhookendpoint"
        indexes = [models.Index(fields=["tenant", "is_active"], name="webhook_tenant_active")]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.url


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DELIVERED = "delivered", "Delivered"
    RETRYING = "retrying", "Retrying"
    FAILED = "failed", "Failed"


class WebhookDelivery(models.Model):
    """One event sent (or being sent) to one endpoint: its body, attempts and the last answer."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40, choices=WebhookEvent.choices)
    payload = models.JSONField()
    status = models.CharField(max_length=12, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    objects = TenantScopedManager()

    class Meta:
        verbose_name_plural = "webhook deliveries"
        db_table = "tickets_webhookdelivery"
        indexes = [
            models.Index(fields=["tenant", "endpoint", "-created_at"], name="webhookdelivery_tenant_ep")
        ]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint_id} ({self.status})"
