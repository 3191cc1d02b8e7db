"""Tenant erasure with a receipt: every row of one tenant, in every table, deleted in one transaction.

The tables come from the catalog (every table with a tenant_id column: memories with their vectors, the
graph, tickets, agents, runs, traces, keys, memberships, ... and any table added later), not from a list
kept by hand. The deletes run as that tenant with any bypass suspended (tickets/tenancy/wall.py), so row-level
security itself holds them to the tenant's rows. Foreign keys are checked at commit (Django declares
them deferrable): the order of the deletes does not matter, and a row of another table still pointing
at the tenant's rows makes the whole erasure roll back.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from django.db import connection, transaction
from django.utils import timezone

from . import wall
from .models import Tenant


@dataclass(frozen=True)
class TableCount:
    table: str
    before: int
    after: int


@dataclass(frozen=True)
class ErasureReceipt:
    tenant_id: int
    slug: str
    name: str
    erased_at: str
    tables: tuple[TableCount, ...]
    sha256: str

    @property
    def rows_deleted(self) -> int:
        return sum(t.before - t.after for t in self.tables)

    def as_text(self) -> str:
        width = max(len(t.table) for t in self.tables)
        lines = [
            f"Erasure receipt for tenant {self.slug!r} ({self.name}, id {self.tenant_id}), {self.erased_at}"
        ]
        lines += [f"  {t.table:<{width}}  before {t.before:>8}  after {t.after:>3}" for t in self.tables]
        lines.append(f"  rows deleted: {self.rows_deleted}")
        lines.append(f"  sha256: {self.sha256}")
        return "\n".join(lines)


def _counts(cursor, tables: list[str], tenant_id: int) -> dict[str, int]:
    counts = {}
    for table in tables:
        cursor.execute(f'SELECT count(*) FROM "{table}" WHERE tenant_id = %s', [tenant_id])
        counts[table] = cursor.fetchone()[0]
    return counts


def receipt_digest(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


@transaction.atomic
def tenant_erase(*, tenant: Tenant) -> ErasureReceipt:
    """Delete every row of `tenant` in every tenant table, then the tenant itself; return the receipt.

    All or nothing (one transaction). Not idempotent: the tenant is gone afterwards.
    """
    tenant_id, slug, name = tenant.pk, tenant.slug, tenant.name
    with wall.tenant_scope(tenant_id), wall.bypass_suspended(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        tables = wall.tenant_tables(cursor)
        before = _counts(cursor, tables, tenant_id)
        for table in tables:
            if before[table]:
                cursor.execute(f'DELETE FROM "{table}" WHERE tenant_id = %s', [tenant_id])
        after = _counts(cursor, tables, tenant_id)
        cursor.execute(f'DELETE FROM "{Tenant._meta.db_table}" WHERE id = %s', [tenant_id])
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # a dangling reference fails here, not silently
    counts = tuple(TableCount(t, before[t], after[t]) for t in tables) + (
        TableCount(Tenant._meta.db_table, 1, 0),
    )
    body = {
        "tenant_id": tenant_id,
        "slug": slug,
        "name": name,
        "erased_at": timezone.now().isoformat(),
        "tables": [asdict(c) for c in counts],
    }
    return ErasureReceipt(
        tenant_id=tenant_id,
        slug=slug,
        name=name,
        erased_at=body["erased_at"],
        tables=counts,
        sha256=receipt_digest(body),
    )
