"""Webhook endpoints and deliveries become models of the webhooks app, in state only: their tables (created by
tickets 0005) keep their names and rows; tickets 0007 removes them from tickets."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("tickets", "0006_api_key_label"),
        ('tenancy', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='WebhookEndpoint',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('url', models.URLField(max_length=500)),
                        ('events', models.JSONField(default=list, help_text='The WebhookEvent values this endpoint receives.')),
                        ('secret', models.CharField(editable=False, help_text='Signs every delivery (HMAC-SHA256).', max_length=80)),
                        ('is_active', models.BooleanField(default=True)),
                        ('created_by', models.CharField(blank=True, default='', max_length=120)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='webhook_endpoints', to='tenancy.tenant')),
                    ],
                    options={
                        'db_table': 'tickets_webhookendpoint',
                        'ordering': ['-created_at'],
                    },
                ),
                migrations.CreateModel(
                    name='WebhookDelivery',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('event', models.CharField(choices=[('memory.learned', 'Memory learned'), ('memory.superseded', 'Memory superseded'), ('memory.archived', 'Memory archived'), ('suggestion.proposed', 'Suggestion proposed'), ('learning.attempt_failed', 'Learning attempt failed')], max_length=40)),
                        ('payload', models.JSONField()),
                        ('status', models.CharField(choices=[('pending', 'Pending'), ('delivered', 'Delivered'), ('retrying', 'Retrying'), ('failed', 'Failed')], default='pending', max_length=12)),
                        ('attempts', models.PositiveIntegerField(default=0)),
                        ('last_status_code', models.PositiveIntegerField(blank=True, null=True)),
                        ('last_error', models.TextField(blank=True, default='')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('delivered_at', models.DateTimeField(blank=True, null=True)),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant')),
                        ('endpoint', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='deliveries', to='webhooks.webhookendpoint')),
                    ],
                    options={
                        'db_table': 'tickets_webhookdelivery',
                        'ordering': ['-created_at'],
                    },
                ),
                migrations.AddIndex(
                    model_name='webhookendpoint',
                    index=models.Index(fields=['tenant', 'is_active'], name='webhook_tenant_active'),
                ),
                migrations.AddIndex(
                    model_name='webhookdelivery',
                    index=models.Index(fields=['tenant', 'endpoint', '-created_at'], name='webhookdelivery_tenant_ep'),
                ),
            ],
            database_operations=[],
        ),
    ]
