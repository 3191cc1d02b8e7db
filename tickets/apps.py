from django.apps import AppConfig


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = "Tenants and tickets"

    def ready(self) -> None:
        from . import schema  # noqa: F401 - registers the OpenAPI auth extension
        from .selectors import ticket_get
        from .tenancy.parents import register_parent
        from .webhooks import listeners

        listeners.connect()  # brain events -> webhook deliveries

        # The helpdesk's URLs name a ticket by the helpdesk's id (`tickets/<external_id>/...`).
        register_parent(
            "ticket", lambda tenant, external_id: ticket_get(tenant=tenant, external_id=external_id)
        )
