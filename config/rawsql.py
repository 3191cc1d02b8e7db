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
