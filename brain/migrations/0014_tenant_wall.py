"""Row-level security on every tenant table (decision 13), installed by tickets.tenancy.wall.wall_install.

The tables come from the catalog (every table with a tenant_id column, across brain, intelligence and
tickets); post_migrate runs the same install after every migrate, so a table added later is covered too.
"""

from django.db import migrations


def install(apps, schema_editor):
    from tickets.tenancy.wall import wall_install

    wall_install(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("brain", "0013_provider_spend"),
        ("intelligence", "0006_feedback_and_suggestions"),
        ("tickets", "0005_webhooks"),
    ]
    operations = [migrations.RunPython(install, migrations.RunPython.noop)]
