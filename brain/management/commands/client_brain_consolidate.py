"""Fold every tenant's stored Client Brain issues into one memory per problem, and archive the learned business
facts that are not statements about the business (issue 27).

    manage.py client_brain_consolidate                 # every tenant
    manage.py client_brain_consolidate --tenant acme   # one tenant (slug or id)
    manage.py client_brain_consolidate --dry-run       # say what it would do; write nothing

One transaction per tenant (brain/client_brain/consolidate.py): an interrupted run loses at most the tenant it
was on, and a re-run finishes the rest (a consolidated tenant has nothing left to fold).
"""

from __future__ import annotations

from django.apps import apps
from django.core.management.base import CommandError

from brain.client_brain.consolidate import consolidate_issues
from tickets.tenancy.wall import CrossTenantCommand


class Command(CrossTenantCommand):
    help = (
        "Fold stored Client Brain issues into one memory per problem and archive learned business facts that are"
        " not about the business (--dry-run: report only)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--tenant", help="only this tenant (slug or numeric id)")
        parser.add_argument("--dry-run", action="store_true", help="report what would change; write nothing")

    def handle(self, *args, **options):
        tenants = apps.get_model("tenancy", "Tenant").objects.order_by("pk")
        if options["tenant"]:
            value = options["tenant"]
            tenants = tenants.filter(**({"pk": int(value)} if value.isdigit() else {"slug": value}))
            if not tenants.exists():
                raise CommandError(f"no tenant with {'id' if value.isdigit() else 'slug'} {value!r}")
        dry = options["dry_run"]
        pairs = list(tenants.values_list("pk", "slug"))
        totals = [0, 0, 0, 0, 0]
        would = "would be " if dry else ""
        for n, (tenant_id, slug) in enumerate(pairs, start=1):
            done = consolidate_issues(tenant_id, dry_run=dry)
            counts = (done.rows, done.folded, done.groups, done.facts, done.facts_archived)
            totals = [a + b for a, b in zip(totals, counts, strict=True)]
            self.stdout.write(
                f"[{n}/{len(pairs)}] {slug}: {done.rows} issue rows, {done.groups} problems to fold,"
                f" {done.folded} rows {would}superseded, {done.rekeyed} {would}re-keyed;"
                f" {done.facts} learned business facts, {done.facts_archived} {would}archived"
            )
        verb = "would fold" if dry else "folded"
        self.stdout.write(
            f"{verb} {totals[1]} of {totals[0]} issue rows into their problems' rows ({totals[2]} problems);"
            f" {'would archive' if dry else 'archived'} {totals[4]} of {totals[3]} learned business facts"
            " that are not about the business" + (" — dry run, nothing written" if dry else "")
        )
