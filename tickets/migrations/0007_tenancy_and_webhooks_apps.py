"""Tenants, memberships, invitations, API keys and webhooks moved to their own apps (tenancy 0001, webhooks 0001):
tickets' foreign keys point there and the models leave tickets' state. State only: every table keeps its
name and rows. The content types move with the models."""

import django.db.models.deletion
from django.db import migrations, models


# The moved models' content types follow them, so staff permissions and admin history carry over.
MOVED = {
    "tenancy": ("tenant", "membership", "apikey", "invitation"),
    "webhooks": ("webhookendpoint", "webhookdelivery"),
}


def _relabel(apps, schema_editor, *, forward: bool) -> None:
    content_types = apps.get_model("contenttypes", "ContentType").objects.using(schema_editor.connection.alias)
    for app_label, models in MOVED.items():
        source, target = ("tickets", app_label) if forward else (app_label, "tickets")
        for model in models:
            if not content_types.filter(app_label=target, model=model).exists():
                content_types.filter(app_label=source, model=model).update(app_label=target)


def content_types_forward(apps, schema_editor):
    _relabel(apps, schema_editor, forward=True)


def content_types_backward(apps, schema_editor):
    _relabel(apps, schema_editor, forward=False)


class Migration(migrations.Migration):

    dependencies = [
        ("webhooks", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        ('brain', '0017_tenant_in_tenancy_app'),
        ('intelligence', '0007_tenant_in_tenancy_app'),
        ('tenancy', '0001_initial'),
        ('tickets', '0006_api_key_label'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='invitation',
                    name='accepted_by',
                ),
                migrations.RemoveField(
                    model_name='invitation',
                    name='invited_by',
                ),
                migrations.RemoveField(
                    model_name='invitation',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='membership',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='membership',
                    name='user',
                ),
                migrations.RemoveField(
                    model_name='webhookdelivery',
                    name='tenant',
                ),
                migrations.AlterField(
                    model_name='message',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='ticket',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tickets', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='classification',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='approval',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.RemoveField(
                    model_name='webhookendpoint',
                    name='tenant',
                ),
                migrations.AlterField(
                    model_name='learningattempt',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='learning_attempts', to='tenancy.tenant'),
                ),
                migrations.RemoveField(
                    model_name='webhookdelivery',
                    name='endpoint',
                ),
                migrations.DeleteModel(
                    name='ApiKey',
                ),
                migrations.DeleteModel(
                    name='Invitation',
                ),
                migrations.DeleteModel(
                    name='Membership',
                ),
                migrations.DeleteModel(
                    name='Tenant',
                ),
                migrations.DeleteModel(
                    name='WebhookDelivery',
                ),
                migrations.DeleteModel(
                    name='WebhookEndpoint',
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_forward, content_types_backward),
    ]
