from django.apps import AppConfig


class BrainConfig(AppConfig):
    name = "brain"
    verbose_name = "Brain (shared intelligence)"

    def ready(self) -> None:
        from celery.signals import task_prerun, worker_process_init
        from django.core import checks

        from tickets.tenancy.ui.sections import register_section

        from .client_brain import navigation
        from .formation import intent_multilingual
        from .formation.pii_model import check_model, in_use_here
        from .rest.errors import register_errors

        register_errors()  # brain's domain errors in the one REST error shape (config/rest.py)
        register_section(navigation, position=20)  # "Insights · Client Brain", after the agents
        checks.register(check_model)  # the personal-data model's packages (imports none of them)
        checks.register(intent_multilingual.check_model)  # the multilingual intent classifier's (the same)
        # A worker, and only a worker, asks the personal-data model (loaded on its first candidate).
        worker_process_init.connect(in_use_here, dispatch_uid="brain.pii_model.worker_process")
        task_prerun.connect(in_use_here, dispatch_uid="brain.pii_model.task")
