"""Demo data: two tenants, a user per role in each (admin, operator, viewer), one API key each (printed once).

Idempotent: running it again creates nothing twice. Keys are stored hashed, so an existing key cannot
be printed again; `--new-keys` issues fresh ones. Other apps add their demo data through a
`seed_demo(tenant, stdout)` function in their `demo.py` module, called for each tenant in turn.
"""

import importlib
import os

from django.apps import apps
from django.conf import settings
from django.core.management.base import CommandError
from django.db import transaction

from tickets.tenancy import services
from tickets.tenancy.models import ApiKey, Role, Tenant
from tickets.tenancy.wall import CrossTenantCommand

DEMO_TENANTS = [
    ("Acme Outdoor Gear", "acme"),
    ("Globex Telecom", "globex"),
]
DEMO_PASSWORD_SUFFIX = "-demo-pass"
# Staff for /admin/: a superuser of no tenant (signing in takes it to the admin, which says why).
STAFF_USERNAME = "staff"


def production_settings() -> bool:
    """Whether the production settings are in use. Overridden settings (a test's) have no SETTINGS_MODULE."""
    return "production" in (settings.SETTINGS_MODULE or os.environ.get("DJANGO_SETTINGS_MODULE", ""))


class Command(CrossTenantCommand):
    help = "Create the demo tenants, users, API keys and each app's demo data (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--new-keys", action="store_true", help="Issue a fresh API key per tenant and print it."
        )
        parser.add_argument("--force", action="store_true", help="Allow seeding when DEBUG is off.")

    def handle(self, *args, new_keys: bool, force: bool, **options):
        if not settings.DEBUG and not force and production_settings():
            raise CommandError(
                "Refusing to seed demo users into a production database; pass --force if you mean it."
            )
        lines = []
        for name, slug in DEMO_TENANTS:
            with transaction.atomic():
                tenant = Tenant.objects.filter(slug=slug).first() or services.tenant_create(
                    name=name, slug=slug
                )
                for role in (Role.ADMIN, Role.OPERATOR, Role.VIEWER):
                    username = f"{slug}-{role}"
                    user, _ = services.user_get_or_create(
                        username=username, password=username + DEMO_PASSWORD_SUFFIX
                    )
                    services.membership_set(tenant=tenant, user=user, role=role)
                    lines.append(
                        f"  {tenant.name:<20} {role:<9} user {username:<16} password {username + DEMO_PASSWORD_SUFFIX}"
                    )
                has_key = ApiKey.objects.for_tenant(tenant).filter(revoked_at__isnull=True).exists()
                if new_keys or not has_key:
                    _, full_key = services.api_key_create(tenant=tenant, name="Demo agent")
                    lines.append(f"  {tenant.name:<20} API key   {full_key}   (shown once)")
                else:
                    lines.append(
                        f"  {tenant.name:<20} API key   already issued (stored hashed; --new-keys for a fresh one)"
                    )
            self._seed_apps(tenant)
        lines.append(self._staff_line())
        self.stdout.write(self.style.SUCCESS("Demo data ready:"))
        for line in lines:
            self.stdout.write(line)
        self.stdout.write(
            "  Keys are stored hashed and shown once. To print a fresh demo key per tenant: "
            "make demo-key (python manage.py seed_demo --new-keys)."
        )

    def _staff_line(self) -> str:
        password = STAFF_USERNAME + DEMO_PASSWORD_SUFFIX
        user, created = services.user_get_or_create(username=STAFF_USERNAME, password=password)
        if not (user.is_staff and user.is_superuser):
            user.is_staff = user.is_superuser = True
            user.save(update_fields=["is_staff", "is_superuser"])
        return f"  {'Staff (/admin/)':<20} superuser user {STAFF_USERNAME:<16} password {password}"

    def _seed_apps(self, tenant: Tenant) -> None:
        for app_config in apps.get_app_configs():
            if app_config.name.split(".")[0] not in {
                "brain",
                "intelligence",
                "tickets",
            }:
                continue
            try:
                module = importlib.import_module(f"{app_config.name}.demo")
            except ModuleNotFoundError as exc:
                if exc.name == f"{app_config.name}.demo":
                    continue
                raise
            module.seed_demo(tenant=tenant, stdout=self.stdout)
