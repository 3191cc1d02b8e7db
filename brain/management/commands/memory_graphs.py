"""Give each large tenant's vectors an HNSW graph of their own, and drop the graphs no longer needed (issue 31).

    manage.py memory_graphs                    # every tenant, at BRAIN_RECALL TENANT_GRAPH_MIN_ROWS
    manage.py memory_graphs --tenant acme      # one tenant (slug or id)
    manage.py memory_graphs --min-rows 5000    # another bound for this run
    manage.py memory_graphs --dry-run          # say what it would do; change nothing

Each graph is built concurrently (writes go on) as the schema's owner, one tenant at a time with progress.
Resumable: an interrupted build is dropped and done again by the next run; graphs already built are kept
(brain/search/graphs.py). The hourly beat task `brain.sync_memory_graphs` runs the same.
"""

from __future__ import annotations

from django.apps import apps
from django.core.management.base import CommandError

from brain.search.graphs import sync_graphs
from brain.search.types import recall_settings
from tickets.tenancy.wall import CrossTenantCommand


class Command(CrossTenantCommand):
    help = "Build an HNSW graph for each tenant of at least TENANT_GRAPH_MIN_ROWS embedded rows (--dry-run: report only)."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", help="only this tenant (slug or numeric id)")
        parser.add_argument(
            "--min-rows", type=int, help="embedded rows that earn a graph (default: the setting)"
        )
        parser.add_argument("--dry-run", action="store_true", help="report what would change; change nothing")

    def handle(self, *args, **options):
        min_rows = options["min_rows"] or int(recall_settings()["TENANT_GRAPH_MIN_ROWS"])
        if min_rows < 1:
            raise CommandError("--min-rows must be a positive number of rows")
        tenant_ids = None
        if options["tenant"]:
            value = options["tenant"]
            tenants = apps.get_model("tenancy", "Tenant").objects.filter(
                **({"pk": int(value)} if value.isdigit() else {"slug": value})
            )
            tenant_ids = list(tenants.values_list("pk", flat=True))
            if not tenant_ids:
                raise CommandError(f"no tenant with {'id' if value.isdigit() else 'slug'} {value!r}")
        plan = sync_graphs(
            min_rows=min_rows, tenant_ids=tenant_ids, dry_run=options["dry_run"], say=self.stdout.write
        )
        if options["dry_run"]:
            for tenant_id, count in plan.build.items():
                self.stdout.write(f"  would build the graph of tenant {tenant_id} ({count:,} embedded rows)")
            for tenant_id in plan.drop:
                self.stdout.write(f"  would drop the graph of tenant {tenant_id}")
        else:
            self.stdout.write(self.style.SUCCESS("tenant graphs up to date"))
