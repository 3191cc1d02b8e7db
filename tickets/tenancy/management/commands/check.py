"""`check`, and with `--tag scale` the shard-readiness check (tickets/tenancy/scale.py) also lists what it allows,
each with its reason. Without the tag those lines stay out of every command's checks (they are information)."""

from django.core.management.commands.check import Command as DjangoCheck

from tickets.tenancy import scale


class Command(DjangoCheck):
    def handle(self, *app_labels, **options):
        with scale.listing(scale.TAG in (options.get("tags") or ())):
            return super().handle(*app_labels, **options)
