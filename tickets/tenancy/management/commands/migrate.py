"""`migrate` as the migration role, with the tenant wall's bypass: the schema's owner runs migrations."""

from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections

from config.db_backend.base import migration_role
from tickets.tenancy.wall import tenant_bypass


class Command(DjangoMigrate):
    def handle(self, *args, **options):
        connection = connections[options["database"]]
        with migration_role(connection), tenant_bypass("migrate", using=connection.alias):
            return super().handle(*args, **options)
