"""Backfill memory embeddings, or switch every row to the configured embedder's model.

    manage.py brain_reembed                       # rows with no vector or another model's, every tenant
    manage.py brain_reembed --tenant acme         # one tenant (slug or id)
    manage.py brain_reembed --all                 # re-embed every row, current or not
    manage.py brain_reembed --start-after 12345   # resume an interrupted --all run

Rows are processed in id order, one committed UPDATE per batch, so an interrupted run loses at most one
batch; a plain re-run resumes by itself (finished rows no longer need embedding).
"""

from __future__ import annotations

import time

from django.apps import apps
from django.conf import settings
from django.core.management.base import CommandError
from tqdm import tqdm

from brain.embedders import EmbedderError, get_embedder
from brain.embedding import memories_needing_embedding, memories_reembed_batch
from tickets.tenancy.wall import CrossTenantCommand


class Command(CrossTenantCommand):
    help = "Embed memories that have no vector or another model's vector (--all: every memory)."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", help="only this tenant (slug or numeric id)")
        parser.add_argument("--all", action="store_true", help="re-embed every row, even current ones")
        parser.add_argument(
            "--batch-size", type=int, default=settings.BRAIN_EMBED_BATCH_SIZE, help="rows per batch/UPDATE"
        )
        parser.add_argument("--start-after", type=int, default=0, help="skip rows with id <= this (resume)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")

    def handle(self, *args, **options):
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1")
        tenant_id = self._tenant_id(options["tenant"]) if options["tenant"] else None
        force = options["all"]
        embedder = get_embedder()
        after_id = options["start_after"]
        total = memories_needing_embedding(
            tenant_id=tenant_id, model=embedder.name, after_id=after_id, force=force
        ).count()
        self.stdout.write(f"embedder {embedder.name}: {total} rows to embed" + (" (--all)" if force else ""))
        seen_total = written_total = 0
        started = time.perf_counter()
        with tqdm(total=total, unit="row", disable=options["no_progress"], file=self.stderr) as progress:
            while True:
                try:
                    seen, written, last_id = memories_reembed_batch(
                        tenant_id=tenant_id, after_id=after_id, batch_size=options["batch_size"], force=force
                    )
                except EmbedderError as exc:
                    raise CommandError(
                        f"{exc}. Rows up to id {after_id} are done: fix the cause and re-run "
                        f"(add --start-after {after_id} with --all)"
                    ) from exc
                if not seen:
                    break
                seen_total += seen
                written_total += written
                after_id = last_id
                progress.update(seen)
                progress.set_postfix(last_id=last_id)
        elapsed = time.perf_counter() - started
        rate = seen_total / elapsed if elapsed > 0 else 0.0
        self.stdout.write(
            f"embedded {written_total} of {seen_total} rows in {elapsed:.1f} s ({rate:.1f} rows/s); "
            f"last id {after_id}; model {embedder.name}"
        )

    def _tenant_id(self, value: str) -> int:
        tenant_model = apps.get_model("tenancy", "Tenant")
        lookup = {"pk": int(value)} if value.isdigit() else {"slug": value}
        tenant = tenant_model.objects.filter(**lookup).values_list("pk", flat=True).first()
        if tenant is None:
            raise CommandError(f"no tenant with {'id' if value.isdigit() else 'slug'} {value!r}")
        return tenant
