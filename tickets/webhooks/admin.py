from django import forms
from django.contrib import admin
from django.db import models

from tickets.tenancy.managers import AllTenantsAdminMixin

from .models import WebhookDelivery, WebhookEndpoint


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["url", "tenant", "is_active", "created_at"]
    list_filter = ["tenant", "is_active"]
    search_fields = ["url"]
    readonly_fields = ["secret", "created_at", "created_by"]
    # Endpoints are HTTPS (the service refuses others): a URL typed without a scheme means https.
    formfield_overrides = {models.URLField: {"form_class": forms.URLField, "assume_scheme": "https"}}


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(AllTenantsAdminMixin, admin.ModelAdmin):
    list_display = ["event", "endpoint", "tenant", "status", "attempts", "last_status_code", "created_at"]
    list_filter = ["tenant", "status", "event"]
    search_fields = ["endpoint__url", "last_error"]
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]

    def has_add_permission(self, request) -> bool:  # deliveries are records of what was sent
        return False
