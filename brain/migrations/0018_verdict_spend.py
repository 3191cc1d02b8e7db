"""What each trace has moved each memory by (brain/verdicts.py, issue 26): one delta in total at most.

Row-level security comes from the tenant wall's install after migrate (0014), as for every tenant table."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('brain', '0017_tenant_in_tenancy_app'),
        ('tenancy', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='VerdictSpend',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('trace', models.CharField(max_length=64)),
                ('memory_id', models.BigIntegerField()),
                ('spent', models.FloatField()),
                ('last_applied', models.FloatField()),
                ('tenant', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('tenant', 'trace', 'memory_id'), name='verdictspend_tenant_trace_memory')],
            },
        ),
    ]
