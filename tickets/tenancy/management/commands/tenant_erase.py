"""Erase a tenant: every row of it in every table, with a receipt (counts per table before and after, a hash)."""

import json
from dataclasses import asdict

from django.core.management.base import CommandError

from tickets.tenancy.erasure import tenant_erase
from tickets.tenancy.models import Tenant
from tickets.tenancy.wall import CrossTenantCommand


class Command(CrossTenantCommand):
    help = "Delete every row of a tenant in every table (vectors and graph included) and print a receipt."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The tenant's slug.")
        parser.add_argument("--yes", action="store_true", help="Confirm without typing the slug.")
        parser.add_argument("--json", dest="as_json", action="store_true", help="Print the receipt as JSON.")

    def handle(self, *args, slug: str, yes: bool, as_json: bool, **options):
        tenant = Tenant.objects.filter(slug=slug).first()
        if tenant is None:
            raise CommandError(f"No tenant has the slug {slug!r}.")
        if not yes:
            typed = self._ask(
                f"This erases every row of {tenant.name} ({slug}) for good. Type its slug to confirm: "
            )
            if typed.strip() != slug:
                raise CommandError("Not confirmed: nothing was erased (type the slug, or pass --yes).")
        receipt = tenant_erase(tenant=tenant)
        self.stdout.write(_as_json(receipt) if as_json else receipt.as_text())

    def _ask(self, prompt: str) -> str:
        try:
            return input(prompt)
        except EOFError:
            return ""


def _as_json(receipt) -> str:
    return json.dumps({**asdict(receipt), "rows_deleted": receipt.rows_deleted}, indent=2)
