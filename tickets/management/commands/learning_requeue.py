"""`manage.py learning_requeue [--older-than MINUTES] [--tenant SLUG]`: send stuck learning attempts again.

An attempt stays queued when the broker was unreachable at the time its ticket was solved (or a message
was lost). Run this from cron, or once after a broker outage; repeating it is harmless.
"""

from datetime import timedelta

from django.core.management.base import CommandError

from config.rls import CrossTenantCommand
from tickets import services
from tickets.tenancy.models import Tenant


class Command(CrossTenantCommand):
    help = "Send learning attempts that are still queued after some minutes to the workers again."

    def add_arguments(self, parser):
        parser.add_argument("--older-than", type=int, default=10, help="Minutes an attempt has been queued.")
        parser.add_argument("--tenant", help="Only this tenant's attempts (its slug).")

    def handle(self, *args, older_than: int, tenant: str | None, **options):
        if older_than < 0:
            raise CommandError("--older-than is a number of minutes, 0 or more.")
        scope = None
        if tenant:
            scope = Tenant.objects.filter(slug=tenant).first()
            if scope is None:
                raise CommandError(f"No tenant has the slug {tenant!r}.")
        found, sent = services.learning_attempts_requeue(
            older_than=timedelta(minutes=older_than), tenant=scope
        )
        self.stdout.write(f"{found} queued learning attempt(s) older than {older_than} min; {sent} sent.")
