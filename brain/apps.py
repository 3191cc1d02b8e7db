from django.apps import AppConfig


class BrainConfig(AppConfig):
    name = "brain"
    verbose_name = "Brain (shared intelligence)"

    def ready(self) -> None:
        from tickets.tenancy.ui.sections import register_section

        from .client_brain import navigation
        from .rest.errors import register_errors

        register_errors()  # brain's domain errors in the one REST error shape (config/rest.py)
        register_section(navigation, position=20)  # "Insights · Client Brain", after the agents
