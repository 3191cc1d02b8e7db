"""Ready to shard by tenant (issue 30, section 3): the system check `manage.py check --tag scale`.

Citus distributes a table by one column (here `tenant_id`) and then wants that column in the table's primary key
and in every unique constraint (it can enforce uniqueness only inside a shard), and in every foreign key between
two distributed tables (a reference must stay inside a shard). A tenant table is a model with a `tenant` foreign
key to the tenant. The check reads the models, not a database, so it runs anywhere (`.ci/run` runs it).

What it reports, per tenant table:
- `brain.W002` (a warning, so `--fail-level WARNING` fails CI): a primary key, a unique constraint or a foreign
  key to another tenant table without `tenant_id`, or a unique constraint with `tenant_id` not leading it
  (the house rule: `tenant_id` leads), that is not in `ALLOWED` below;
- `brain.I001` (information, shown by `check --tag scale` only): a finding of `ALLOWED`, with its reason;
- `brain.W003`: an entry of `ALLOWED` that matches no finding any more, so the list stays true.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass

from django.apps import apps
from django.core import checks
from django.db import models

TAG = "scale"
TENANT_MODEL = "tenancy.Tenant"


@dataclass(frozen=True)
class Finding:
    """A key of a tenant table that Citus would refuse on a table distributed by `tenant_id`."""

    table: str
    kind: str  # "primary key", "unique", "foreign key"
    name: str  # the columns, or the constraint's name, or "column -> table"

    @property
    def key(self) -> str:
        return f"{self.table} {self.kind} {self.name}"


# Why a finding stays. Each reason says what the Citus step does about it (README, "Scale-out").
PRIMARY_KEY = (
    "Django 5.2 cannot migrate an existing table to a composite primary key, and a CompositePrimaryKey cannot be "
    "the target of a ForeignKey nor be edited in the admin; ids come from one sequence, so (tenant_id, id) is "
    "unique too: the Citus step's SQL migration swaps PRIMARY KEY (id) for (tenant_id, id) and Django keeps `id` "
    "as its pk"
)
FOREIGN_KEY = (
    "Django cannot declare a composite foreign key (a ForeignObject creates no constraint); both rows carry "
    "tenant_id, so the Citus step's SQL migration redeclares it as FOREIGN KEY (tenant_id, column) REFERENCES "
    "table (tenant_id, id) once that table's primary key is (tenant_id, id)"
)
ACTIVITY_KEY = (
    "the primary key is the memory's id (a one-to-one row, updated in place as a HOT update); Django 5.2 "
    "cannot migrate it to (tenant_id, memory_id): the Citus step's SQL migration does, as for every id key"
)
REFERENCE = (
    "read before a tenant is known (the API key by its prefix, an invitation by its link's hash): a small "
    "table that stays whole on every node as a Citus reference table, where a global unique key holds"
)

# Tables Citus keeps whole on every node (with the tenants table itself, whose id is the distribution key).
REFERENCE_TABLES = frozenset({"tickets_apikey", "tickets_invitation", "tickets_membership"})

ALLOWED: dict[str, str] = {
    # Reference tables (with the tenants table itself, which has no tenant_id: it is the distribution key).
    "tickets_apikey primary key id": REFERENCE,
    "tickets_apikey unique prefix": REFERENCE,
    "tickets_invitation primary key id": REFERENCE,
    "tickets_invitation unique token_hash": REFERENCE,
    "tickets_membership primary key id": REFERENCE,
    # Distributed tables: their id keys.
    **{
        f"{table} primary key id": PRIMARY_KEY
        for table in (
            "brain_appliedverdict",
            "brain_brainedge",
            "brain_brainnode",
            "brain_memory",
            "brain_memoryhistory",
            "brain_pendingactivity",
            "brain_providerspend",
            "brain_verdictspend",
            "intelligence_agent",
            "intelligence_agentrun",
            "intelligence_contexttrace",
            "intelligence_conversation",
            "intelligence_conversationturn",
            "intelligence_feedbackhistory",
            "intelligence_proposedaction",
            "intelligence_suggestiondismissal",
            "intelligence_suggestionrun",
            "tickets_approval",
            "tickets_classification",
            "tickets_learningattempt",
            "tickets_message",
            "tickets_ticket",
            "tickets_webhookdelivery",
            "tickets_webhookendpoint",
        )
    },
    "brain_memoryactivity primary key memory_id": ACTIVITY_KEY,
    # Distributed tables: their references to another tenant table.
    **{
        f"{source} foreign key {column} -> {target}": FOREIGN_KEY
        for source, column, target in (
            ("brain_brainedge", "source_id", "brain_brainnode"),
            ("brain_brainedge", "target_id", "brain_brainnode"),
            ("brain_brainnode", "memory_id", "brain_memory"),
            ("brain_memory", "superseded_by_id", "brain_memory"),
            ("brain_memoryactivity", "memory_id", "brain_memory"),
            ("brain_memoryhistory", "memory_id", "brain_memory"),
            ("intelligence_agentrun", "agent_id", "intelligence_agent"),
            ("intelligence_agentrun", "context_trace_id", "intelligence_contexttrace"),
            ("intelligence_contexttrace", "agent_id", "intelligence_agent"),
            ("intelligence_conversation", "agent_id", "intelligence_agent"),
            ("intelligence_conversation", "context_trace_id", "intelligence_contexttrace"),
            ("intelligence_conversationturn", "context_trace_id", "intelligence_contexttrace"),
            ("intelligence_conversationturn", "conversation_id", "intelligence_conversation"),
            ("intelligence_feedbackhistory", "agent_id", "intelligence_agent"),
            ("intelligence_feedbackhistory", "conversation_id", "intelligence_conversation"),
            ("intelligence_feedbackhistory", "run_id", "intelligence_agentrun"),
            ("intelligence_proposedaction", "run_id", "intelligence_agentrun"),
            ("intelligence_suggestiondismissal", "agent_id", "intelligence_agent"),
            ("intelligence_suggestionrun", "agent_id", "intelligence_agent"),
            ("tickets_approval", "ticket_id", "tickets_ticket"),
            ("tickets_classification", "ticket_id", "tickets_ticket"),
            ("tickets_learningattempt", "ticket_id", "tickets_ticket"),
            ("tickets_message", "ticket_id", "tickets_ticket"),
            ("tickets_webhookdelivery", "endpoint_id", "tickets_webhookendpoint"),
        )
    },
}


def is_tenant_model(model: type[models.Model]) -> bool:
    """A concrete table with a `tenant` foreign key to the tenant (proxies share their concrete model's table)."""
    if model._meta.proxy or not model._meta.managed:
        return False
    field = next((f for f in model._meta.local_fields if f.name == "tenant"), None)
    return field is not None and field.is_relation and field.related_model._meta.label == TENANT_MODEL


def _unique_findings(model: type[models.Model]) -> Iterable[Finding]:
    table = model._meta.db_table
    for field in model._meta.local_fields:
        if field.unique and not field.primary_key:  # unique=True and one-to-one fields
            yield Finding(table, "unique", field.column)
    groups = [tuple(names) for names in model._meta.unique_together]
    for constraint in model._meta.constraints:
        if isinstance(constraint, models.UniqueConstraint):
            if constraint.expressions:  # a unique index over expressions: named, never led by a column
                yield Finding(table, "unique", constraint.name)
            else:
                groups.append(tuple(constraint.fields))
    for names in groups:
        columns = [model._meta.get_field(name).column for name in names]
        if columns[0] != "tenant_id":
            yield Finding(table, "unique", ", ".join(columns))


def model_findings(model: type[models.Model], tenant_tables: set[str]) -> list[Finding]:
    """Every key of one tenant model that Citus would refuse (or that `tenant_id` does not lead)."""
    table = model._meta.db_table
    found = []
    primary = model._meta.pk
    if isinstance(primary, models.CompositePrimaryKey):
        columns = [field.column for field in primary.fields]
        if "tenant_id" not in columns:
            found.append(Finding(table, "primary key", ", ".join(columns)))
    else:
        found.append(Finding(table, "primary key", primary.column))
    found.extend(_unique_findings(model))
    for field in model._meta.local_fields:
        target = field.related_model._meta.db_table if field.is_relation and field.concrete else None
        if target in tenant_tables:
            found.append(Finding(table, "foreign key", f"{field.column} -> {target}"))
    return found


def findings(models_: Iterable[type[models.Model]] | None = None) -> list[Finding]:
    """The findings of every tenant model (of the installed apps, or of `models_`), sorted."""
    tenant_models = [m for m in (apps.get_models() if models_ is None else models_) if is_tenant_model(m)]
    tables = {m._meta.db_table for m in tenant_models}
    return sorted(
        {f for m in tenant_models for f in model_findings(m, tables)}, key=lambda f: (f.table, f.kind, f.name)
    )


_listing = contextvars.ContextVar("brain_scale_listing", default=False)


@contextmanager
def listing(on: bool):
    """Within the block the check also lists the allowed findings (the `check` command, for `--tag scale`)."""
    token = _listing.set(on)
    try:
        yield
    finally:
        _listing.reset(token)


def check_scale(app_configs=None, allowed: dict[str, str] | None = None, models_=None, **kwargs) -> list:
    """System check (tag `scale`): warns of every finding that is neither fixed nor allowed with a reason."""
    allowed = ALLOWED if allowed is None else allowed
    found = findings(models_)
    messages = []
    for finding in found:
        reason = allowed.get(finding.key)
        if reason is None:
            messages.append(
                checks.Warning(
                    f"{finding.key}: without tenant_id leading it, Citus cannot distribute {finding.table} by "
                    "tenant_id.",
                    hint="Lead the key with the tenant (a UniqueConstraint on ['tenant', ...]), or list it with "
                    "its reason in tickets/tenancy/scale.py ALLOWED.",
                    obj=finding.table,
                    id="brain.W002",
                )
            )
        elif _listing.get():
            messages.append(checks.Info(f"{finding.key}: {reason}.", obj=finding.table, id="brain.I001"))
    for key in sorted(set(allowed) - {f.key for f in found}):
        messages.append(
            checks.Warning(
                f"{key}: listed in tickets/tenancy/scale.py ALLOWED but no longer found.",
                hint="Remove the entry: the key was fixed or its table is gone.",
                id="brain.W003",
            )
        )
    return messages
