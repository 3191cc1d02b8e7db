from django.db import migrations


def enable(apps, schema_editor):
    from brain.extensions import enable_extensions

    with schema_editor.connection.cursor() as cursor:
        enable_extensions(cursor)


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [migrations.RunPython(enable, migrations.RunPython.noop)]
