from django.apps import AppConfig


class BrainConfig(AppConfig):
    name = "brain"
    verbose_name = "Brain (shared intelligence)"

    def ready(self) -> None:
        from .rest.errors import register_errors

        register_errors()  # brain's domain errors in the one REST error shape (config/rest.py)
