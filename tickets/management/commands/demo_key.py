"""Print a fresh API key of a demo tenant, and nothing else, for a shell: `KEY=$(.venv/bin/python manage.py demo_key)`.

The README's developer examples start with it. Keys are stored hashed, so a key cannot be shown twice: each run
issues a new operator key (named "Demo key (manage.py demo_key)"; revoke old ones under API keys). Only the
demo tenants `seed_demo` creates have one to give, and, like `seed_demo`, it refuses production settings.
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tickets.tenancy import services, wall
from tickets.tenancy.models import Tenant

from .seed_demo import DEMO_TENANTS, production_settings

KEY_NAME = "Demo key (manage.py demo_key)"


class Command(BaseCommand):
    help = "Print a fresh operator API key of a demo tenant (acme by default), for KEY=$(...)."

    def add_arguments(self, parser):
        slugs = [slug for _, slug in DEMO_TENANTS]
        parser.add_argument("--tenant", choices=slugs, default=slugs[0], help="The demo tenant's slug.")

    def handle(self, *args, tenant: str, **options):
        if not settings.DEBUG and production_settings():
            raise CommandError("Refusing to issue demo keys under the production settings.")
        found = Tenant.objects.filter(slug=tenant).first()
        if found is None:
            raise CommandError(
                f"There is no demo tenant {tenant!r} yet: run `make run` (or `manage.py seed_demo`) first."
            )
        with wall.tenant_scope(found.pk):  # the key is the tenant's row: written as that tenant
            _, full_key = services.api_key_create(tenant=found, name=KEY_NAME)
        self.stdout.write(full_key)
