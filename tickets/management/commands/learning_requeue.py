"""`manage.py learning_requeue [--older-than MINUTES] [--tenant SLUG]`: send stuck learning attempts again.

The same service as the beat task `tickets.requeue_learning_attempts` (which makes this unnecessary where beat
runs): attempts whose lease ran out (a killed worker), attempts a broker outage left queued, attempts waiting
for a new day's LLM budget; with `--older-than`, also every attempt queued longer than that. Repeating it is
harmless: a second message for an attempt that is running or finished does nothing.
"""

from datetime import timedelta

from django.core.management.base import CommandError

from tickets import services
from tickets.tenancy.models import Tenant
from tickets.tenancy.wall import CrossTenantCommand


class Command(CrossTenantCommand):
    help = (
        "Send learning attempts that are due (lease ran out, never sent, budget back) to the workers again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than", type=int, default=None, help="Also attempts queued longer than this many minutes."
        )
        parser.add_argument("--tenant", help="Only this tenant's attempts (its slug).")

    def handle(self, *args, older_than: int | None, tenant: str | None, **options):
        if older_than is not None and older_than < 0:
            raise CommandError("--older-than is a number of minutes, 0 or more.")
        scope = None
        if tenant:
            scope = Tenant.objects.filter(slug=tenant).first()
            if scope is None:
                raise CommandError(f"No tenant has the slug {tenant!r}.")
        result = services.learning_attempts_requeue(
            older_than=timedelta(minutes=older_than) if older_than is not None else None, tenant=scope
        )
        self.stdout.write(
            f"{result.found} learning attempt(s) due ({result.expired_leases} lease ran out, {result.unsent} "
            f"queued, {result.budget_resumed} budget back); {result.sent} sent."
        )
