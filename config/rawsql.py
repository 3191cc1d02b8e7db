"""Hot-path reads written once as SQL, with model instances built from their rows as the ORM builds them.

The ORM compiles a queryset on every evaluation; for a lookup every API request makes (its key, its
agent), compiling costs a few times what running the statement does. `ModelColumns` spells a model's
concrete columns once (from its `_meta`, so they follow the model) and turns a row back into an
instance, applying each field's database converters (a JSONField's text is parsed, for one).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connections


class ModelColumns:
    def __init__(self, model, table_alias: str):
        self.model = model
        self.fields = list(model._meta.concrete_fields)
        self.attnames = [f.attname for f in self.fields]
        self.sql = ", ".join(f'{table_alias}."{f.column}"' for f in self.fields)
        self._converters: dict[str, list] = {}

    def __len__(self) -> int:
        return len(self.fields)

    def _converters_for(self, alias: str) -> list:
        converters = self._converters.get(alias)
        if converters is None:
            connection = connections[alias]
            converters = []
            for field in self.fields:
                col = field.get_col(self.model._meta.db_table)
                chain = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
                converters.append((col, chain))
            self._converters[alias] = converters
        return converters

    def instance(self, values: Sequence, alias: str = "default"):
        """The model instance for these column values (in `self.sql`'s order), as if the ORM read it."""
        connection = connections[alias]
        converted = []
        for value, (col, chain) in zip(values, self._converters_for(alias), strict=True):
            for converter in chain:
                value = converter(value, col, connection)
            converted.append(value)
        return self.model.from_db(alias, self.attnames, converted)


def insert_values(instance, refs: dict[str, str] | None = None) -> tuple[str, list]:
    """`INSERT INTO table (columns) VALUES (...)` for an unsaved instance, with its parameters, as the ORM's
    `save()` would write it (each field's pre_save, then its database preparation; the auto primary key
    left to the database). `refs` gives some attnames an SQL expression instead of a value (another row of
    the same statement: `(SELECT id FROM t)`), so several inserts chain in one statement's WITH clauses."""
    refs = refs or {}
    meta = instance._meta
    connection = connections[instance._state.db or "default"]
    columns, values, params = [], [], []
    for field in meta.local_concrete_fields:
        if field is meta.auto_field:
            continue
        columns.append(connection.ops.quote_name(field.column))
        if field.attname in refs:
            values.append(refs[field.attname])
            continue
        value = field.pre_save(instance, True)
        values.append("%s")
        params.append(field.get_db_prep_save(value, connection))
    sql = f"INSERT INTO {connection.ops.quote_name(meta.db_table)} ({', '.join(columns)}) VALUES ({', '.join(values)})"
    return sql, params


def saved(instance, pk, alias: str = "default"):
    """The instance as if `save()` had inserted it with this primary key."""
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = alias
    return instance
