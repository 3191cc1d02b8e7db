from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    """A tenant's webhook endpoints and their deliveries.

    The tables kept the names they had as models of the `tickets` app (`tickets_webhookendpoint`,
    `tickets_webhookdelivery`): their `db_table` says so, and the move was a state-only migration.
    """

    name = "tickets.webhooks"
    label = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from . import listeners

        listeners.connect()  # brain events -> webhook deliveries
