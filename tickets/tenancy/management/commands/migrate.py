"""`migrate` as the migration role, with the tenant wall's bypass: the schema's owner runs migrations. On the
embedded server, the database is prepared first (created, its operators marked: config/embedded_db.py)."""

from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections

from config import embedded_db
from config.db_backend.base import migration_role
from tickets.tenancy.wall import tenant_bypass


class Command(DjangoMigrate):
    def handle(self, *args, **options):
        connection = connections[options["database"]]
        data_dir = connection.settings_dict.get("EMBEDDED_DATA_DIR")
        if data_dir:
            embedded_db.prepare(data_dir, connection.settings_dict["NAME"])
        with migration_role(connection), tenant_bypass("migrate", using=connection.alias):
            return super().handle(*args, **options)
