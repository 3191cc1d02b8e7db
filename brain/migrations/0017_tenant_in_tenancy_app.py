"""The tenant is a model of the tenancy app now (tenancy 0001): every tenant foreign key points there, in state
only (the table, its rows and the constraints are unchanged)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("brain", "0016_dashboard_page_indexes"),
        ("tenancy", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="appliedverdict",
                    name="tenant",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tenancy.tenant",
                    ),
                ),
                migrations.AlterField(
                    model_name="brainedge",
                    name="tenant",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="tenancy.tenant"
                    ),
                ),
                migrations.AlterField(
                    model_name="brainnode",
                    name="tenant",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="tenancy.tenant"
                    ),
                ),
                migrations.AlterField(
                    model_name="memory",
                    name="tenant",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memories",
                        to="tenancy.tenant",
                    ),
                ),
                migrations.AlterField(
                    model_name="memoryactivity",
                    name="tenant",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="tenancy.tenant"
                    ),
                ),
                migrations.AlterField(
                    model_name="memoryhistory",
                    name="tenant",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="tenancy.tenant"
                    ),
                ),
                migrations.AlterField(
                    model_name="providerspend",
                    name="tenant",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tenancy.tenant",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
