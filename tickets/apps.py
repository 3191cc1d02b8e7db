from django.apps import AppConfig


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = "Tenants and tickets"

    def ready(self) -> None:
        from . import schema  # noqa: F401 - registers the OpenAPI auth extension
