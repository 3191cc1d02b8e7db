"""The Client Brain dashboard's counts kept by a trigger (brain/client_brain/tally.py): the tenant-wide
aggregates and the confidence histogram read a few dozen group rows instead of every memory row, so the
first view after a write no longer rescans the tenant's rows (issue 17).

Atomic: the triggers are created before the existing rows are counted, and creating them locks out writers
of brain_memory until this migration commits, so no write falls between the count and the triggers.
"""

from django.db import migrations


def install(apps, schema_editor):
    from brain.client_brain.tally import tally_install

    tally_install(schema_editor.connection)


def uninstall(apps, schema_editor):
    from brain.client_brain.tally import tally_uninstall_sql

    with schema_editor.connection.cursor() as cursor:
        for statement in tally_uninstall_sql():
            cursor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("brain", "0014_tenant_wall")]

    operations = [migrations.RunPython(install, uninstall)]
