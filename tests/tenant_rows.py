"""Rows in every tenant table, found from the models and the catalog, so a table added later is covered.

`plant_every_tenant_table(tenant)` creates one row of every model that has a tenant (its required fields
filled with plain values, its foreign keys pointing at rows of the same tenant, planted first when
missing); tables without a model (the memory-state table and the Client Brain tally that triggers keep) fill as
a side effect.
"""

import itertools
from datetime import date, timedelta

from django.apps import apps
from django.contrib.postgres.fields import ArrayField
from django.db import connection
from django.db.models import fields
from django.utils import timezone

from tickets.tenancy import wall

_serial = itertools.count(1)


def _tenant_models():
    return [
        m
        for m in apps.get_models()
        if not m._meta.proxy and any(f.name == "tenant" for f in m._meta.concrete_fields)
    ]


def _plain_value(field):
    if field.choices:
        return field.choices[0][0]
    if isinstance(field, fields.BooleanField):
        return False
    if isinstance(field, (fields.IntegerField, fields.DecimalField)):
        return 1
    if isinstance(field, fields.FloatField):
        return 0.8
    if isinstance(field, fields.DateTimeField):
        return timezone.now()
    if isinstance(field, fields.DateField):
        return date.today()
    if isinstance(field, fields.DurationField):
        return timedelta(seconds=1)
    if isinstance(field, fields.json.JSONField):
        return {}
    if isinstance(field, ArrayField):
        return [_plain_value(field.base_field)]
    text = f"planted{next(_serial)}"  # unique: some columns are (a key's prefix)
    return text[: field.max_length] if field.max_length else text


# Nullable fields a table's check constraints still want filled (the planter skips nullable fields otherwise).
ALSO_FILL = {"intelligence.feedbackhistory": ("conversation",)}


def plant(model, tenant):
    """One row of `model` in `tenant` (or the tenant's existing row when there is one)."""
    existing = model._base_manager.filter(tenant=tenant).first()
    if existing is not None:
        return existing
    values = {}
    also = ALSO_FILL.get(model._meta.label_lower, ())
    for field in model._meta.concrete_fields:
        if field.name in also:
            pass
        elif (field.primary_key and not field.is_relation) or field.null or field.has_default():
            continue
        if getattr(field, "auto_now_add", False):
            continue
        if getattr(field, "auto_now", False):
            continue
        if field.name == "tenant":
            values["tenant"] = tenant
        elif field.is_relation:
            related = field.related_model
            if any(f.name == "tenant" for f in related._meta.concrete_fields):
                values[field.name] = plant(related, tenant)
            else:
                values[field.name] = related._base_manager.first() or _user()
        else:
            values[field.name] = _plain_value(field)
    return model._base_manager.create(**values)


def _user():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create(username=f"planted-{timezone.now().timestamp()}")


def plant_every_tenant_table(tenant) -> None:
    for model in _tenant_models():
        plant(model, tenant)
    # The Client Brain tally (a table a trigger keeps) counts tenant-scope memories only.
    memory = apps.get_model("brain", "Memory")
    if not memory._base_manager.filter(tenant=tenant, scope_kind="tenant").exists():
        memory._base_manager.create(
            tenant=tenant, scope_kind="tenant", type="business", payload={"fact": "Planted"}, text="Planted"
        )


def tenant_tables() -> list[str]:
    with connection.cursor() as cursor:
        return wall.tenant_tables(cursor)


def rows_per_table(tenant_id: int) -> dict[str, int]:
    counts = {}
    with connection.cursor() as cursor:
        for table in wall.tenant_tables(cursor):
            cursor.execute(f'SELECT count(*) FROM "{table}" WHERE tenant_id = %s', [tenant_id])
            counts[table] = cursor.fetchone()[0]
    return counts


def fingerprint(tenant_id: int) -> dict[str, str]:
    """Per table, a digest of every row of the tenant: equal digests, unchanged rows."""
    digests = {}
    with connection.cursor() as cursor:
        for table in wall.tenant_tables(cursor):
            cursor.execute(
                f"SELECT count(*), md5(coalesce(string_agg(r::text, ',' ORDER BY r::text), ''))"
                f' FROM "{table}" r WHERE tenant_id = %s',
                [tenant_id],
            )
            digests[table] = cursor.fetchone()
    return digests
