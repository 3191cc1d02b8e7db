"""The tenant admin's Webhooks page: register an endpoint (its secret shown once), see recent deliveries,
deactivate an endpoint."""

from django.contrib import messages
from django.shortcuts import render
from django.views import View

from config.ui import service_errors
from tickets.tenancy.models import Role
from tickets.tenancy.ui.mixins import TenantRowActionView, TenantViewMixin

from .. import services
from ..models import WebhookDelivery, WebhookEndpoint
from .forms import WebhookEndpointForm


class WebhooksView(TenantViewMixin, View):
    required_role = Role.ADMIN
    write_role = Role.ADMIN

    def get(self, request, form=None, new_endpoint=None):
        endpoints = WebhookEndpoint.objects.for_tenant(request.tenant).order_by("-created_at")
        deliveries = (
            WebhookDelivery.objects.for_tenant(request.tenant)
            .select_related("endpoint")
            .order_by("-created_at")[:50]
        )
        context = {
            "endpoints": endpoints,
            "deliveries": deliveries,
            "form": form or WebhookEndpointForm(),
            "new_endpoint": new_endpoint,
        }
        return render(request, "tenant/webhooks.html", context)

    def post(self, request):
        form = WebhookEndpointForm(request.POST)
        if form.is_valid():
            with service_errors(form):
                endpoint = services.webhook_endpoint_create(
                    tenant=request.tenant,
                    url=form.cleaned_data["url"],
                    events=form.cleaned_data["events"],
                    actor=f"user:{request.user.pk}",
                )
                messages.success(
                    request, "Endpoint registered. Copy its signing secret now: it is shown once."
                )
                return self.get(request, new_endpoint=endpoint)
        messages.error(request, "The endpoint was not registered; fix the errors below.")
        return self.get(request, form=form)


class WebhookDeactivateView(TenantRowActionView):
    model, missing, redirect_to = WebhookEndpoint, "No such endpoint.", "tenant-webhooks"

    def act(self, endpoint) -> str:
        services.webhook_endpoint_deactivate(endpoint=endpoint)
        return f"Deactivated {endpoint.url}; it receives nothing more."
