from django.apps import AppConfig


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = "Tenants and tickets"

    def ready(self) -> None:
        from celery.signals import task_postrun, task_prerun
        from django.core import checks
        from django.core.signals import request_finished
        from django.db.models.signals import post_migrate

        from config import rls

        from . import schema  # noqa: F401 - registers the OpenAPI auth extension
        from .selectors import ticket_get
        from .tenancy.parents import register_parent
        from .webhooks import listeners

        listeners.connect()  # brain events -> webhook deliveries

        from .rest.errors import register_errors

        register_errors()  # the helpdesk's domain error in the one REST error shape (config/rest.py)

        # The helpdesk's URLs name a ticket by the helpdesk's id (`tickets/<external_id>/...`).
        register_parent(
            "ticket", lambda tenant, external_id: ticket_get(tenant=tenant, external_id=external_id)
        )

        # The second wall (config/rls.py): a request's tenant never outlives it; tasks run as their tenant;
        # tables a migration adds get the policy.
        request_finished.connect(rls.request_finished_reset, dispatch_uid="brain.tenant_wall.request")
        task_prerun.connect(rls.task_enter, dispatch_uid="brain.tenant_wall.task_enter")
        task_postrun.connect(rls.task_exit, dispatch_uid="brain.tenant_wall.task_exit")
        post_migrate.connect(rls.wall_install_after_migrate, dispatch_uid="brain.tenant_wall.migrate")
        checks.register(rls.check_leakproof, checks.Tags.database)
