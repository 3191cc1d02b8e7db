from django.apps import AppConfig


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = "Tickets"

    def ready(self) -> None:
        from . import navigation
        from .rest.errors import register_errors
        from .selectors import ticket_get, ticket_recall_text
        from .tenancy.parents import register_parent
        from .tenancy.ui.sections import register_section

        register_errors()  # the helpdesk's domain error in the one REST error shape (config/rest.py)

        # The helpdesk's URLs name a ticket by the helpdesk's id (`tickets/<external_id>/...`).
        register_parent(
            "ticket", lambda tenant, external_id: ticket_get(tenant=tenant, external_id=external_id)
        )
        # Client Brain context by `ticket_id` reads the ticket's subject and latest customer message: brain
        # asks for it by this name and never imports the tickets app.
        register_parent(
            "ticket_recall_text",
            lambda tenant, ticket_id: ticket_recall_text(tenant_id=tenant.pk, ticket_id=ticket_id),
        )
        register_section(navigation, position=30)  # after the agents and the Client Brain
