from django.apps import AppConfig


class TenancyConfig(AppConfig):
    """Tenants, memberships, roles, API keys and invitations, and the two walls between tenants.

    The tables kept the names they had as models of the `tickets` app (`tickets_tenant`, ...): their
    `db_table` says so, and the move was a state-only migration.
    """

    name = "tickets.tenancy"
    label = "tenancy"
    verbose_name = "Tenants"

    def ready(self) -> None:
        from celery.signals import task_postrun, task_prerun
        from django.core import checks
        from django.core.signals import request_finished
        from django.db.models.signals import post_migrate

        from . import scale, wall
        from .rest import schema  # noqa: F401 - registers the OpenAPI description of the API-key scheme
        from .rest.errors import register_errors

        register_errors()  # tenancy's domain error in the one REST error shape (config/rest.py)

        # The second wall (wall.py): a request's tenant never outlives it; tasks run as their tenant;
        # tables a migration adds get the policy; a database that cannot serve search under it is named.
        request_finished.connect(wall.request_finished_reset, dispatch_uid="brain.tenant_wall.request")
        task_prerun.connect(wall.task_enter, dispatch_uid="brain.tenant_wall.task_enter")
        task_postrun.connect(wall.task_exit, dispatch_uid="brain.tenant_wall.task_exit")
        post_migrate.connect(wall.wall_install_after_migrate, dispatch_uid="brain.tenant_wall.migrate")
        checks.register(wall.check_leakproof, checks.Tags.database)
        # Ready to shard by tenant (issue 30): every key of a tenant table holds tenant_id, or says why not.
        checks.register(scale.check_scale, scale.TAG)
