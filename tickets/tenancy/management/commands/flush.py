"""`flush` as the migration role: TRUNCATE is the owner's (the runtime role may not empty a table)."""

from django.core.management.commands.flush import Command as DjangoFlush
from django.db import connections

from config.db_backend.base import migration_role
from tickets.tenancy.wall import tenant_bypass


class Command(DjangoFlush):
    def handle(self, **options):
        connection = connections[options["database"]]
        with migration_role(connection), tenant_bypass("flush", using=connection.alias):
            return super().handle(**options)
