"""Helpers shared by the benchmarks: a separate database, tenants, percentiles, the public data they read.

Benchmarks load many rows; they run in their own database (default `brain_bench`, on the same
PostgreSQL server) so the development database stays small. The tenant model is looked up by name
(`tenancy.Tenant`): `brain` does not import `tickets`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections


def use_bench_database(name: str, stdout) -> None:
    """Point the default connection at database `name` on the same server, creating and migrating it.

    Must run before the benchmark touches the database through the default connection.
    """
    from config import embedded_db
    from config.db_backend.base import migration_role

    conn = connections["default"]
    if conn.settings_dict["NAME"] != name:
        data_dir = conn.settings_dict.get("EMBEDDED_DATA_DIR")
        if data_dir:  # created and marked by the server's superuser, as `migrate` prepares a database
            embedded_db.prepare(data_dir, name)
        else:
            with migration_role(conn), conn.cursor() as cursor:  # the runtime role may not create databases
                cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
                if cursor.fetchone() is None:
                    stdout.write(f"creating database {name} ...")
                    cursor.execute(f'CREATE DATABASE "{name}"')
        conn.close()
        conn.settings_dict["NAME"] = name
        if "EMBEDDED_DATABASE" in conn.settings_dict:
            conn.settings_dict["EMBEDDED_DATABASE"] = name
    stdout.write(f"database: {connection.settings_dict['NAME']} (migrating)")
    call_command("migrate", verbosity=0, interactive=False)


def fresh_tenant(slug: str, name: str | None = None):
    """A new, empty tenant called `slug` (an earlier run's tenant of that slug is deleted with its rows)."""
    Tenant = apps.get_model("tenancy", "Tenant")
    Tenant.objects.filter(slug=slug).delete()
    return Tenant.objects.create(slug=slug, name=name or slug)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def bitext_path() -> Path:
    """The Bitext sample (`BRAIN_BITEXT_CSV`, by default ../shared/datasets/ beside the checkout).

    A benchmark that reads it stops here when it is missing: figures computed without it would not be
    the figures the README reports."""
    path = Path(settings.BRAIN_BITEXT_CSV)
    if not path.is_file():
        raise CommandError(
            f"The Bitext sample is missing at {path}: set BRAIN_BITEXT_CSV to the CSV's path, or put "
            "shared/datasets/ beside the checkout."
        )
    return path
