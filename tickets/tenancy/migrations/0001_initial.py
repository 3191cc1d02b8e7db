"""Tenants, memberships, invitations and API keys become models of the tenancy app, in state only: their tables
(created by the tickets app's migrations) keep their names and rows; tickets 0007 removes them from tickets."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("tickets", "0006_api_key_label"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Tenant',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200)),
                        ('slug', models.SlugField(max_length=80, unique=True)),
                        ('settings', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'tickets_tenant',
                        'ordering': ['name'],
                    },
                ),
                migrations.CreateModel(
                    name='Membership',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('role', models.CharField(choices=[('admin', 'Admin'), ('operator', 'Operator'), ('viewer', 'Viewer')], default='operator', max_length=16)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to=settings.AUTH_USER_MODEL)),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='tenancy.tenant')),
                    ],
                    options={
                        'db_table': 'tickets_membership',
                        'ordering': ['tenant_id', 'user__username'],
                        'indexes': [models.Index(fields=['tenant', 'role'], name='membership_tenant_role')],
                        'constraints': [models.UniqueConstraint(fields=('tenant', 'user'), name='membership_unique_user_per_tenant')],
                    },
                ),
                migrations.CreateModel(
                    name='Invitation',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('email', models.EmailField(help_text="Stored lower-cased; matched against a user's e-mail address.", max_length=254)),
                        ('role', models.CharField(choices=[('admin', 'Admin'), ('operator', 'Operator'), ('viewer', 'Viewer')], default='operator', max_length=16)),
                        ('token_hash', models.CharField(editable=False, max_length=64, unique=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('expires_at', models.DateTimeField()),
                        ('accepted_at', models.DateTimeField(blank=True, null=True)),
                        ('declined_at', models.DateTimeField(blank=True, null=True)),
                        ('revoked_at', models.DateTimeField(blank=True, null=True)),
                        ('accepted_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('invited_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='invitations', to='tenancy.tenant')),
                    ],
                    options={
                        'db_table': 'tickets_invitation',
                        'ordering': ['-created_at'],
                        'indexes': [models.Index(fields=['tenant', 'email'], name='invitation_tenant_email'), models.Index(fields=['email'], name='invitation_email')],
                    },
                ),
                migrations.CreateModel(
                    name='ApiKey',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=100)),
                        ('prefix', models.CharField(editable=False, max_length=16, unique=True)),
                        ('secret_hash', models.CharField(editable=False, max_length=64)),
                        ('role', models.CharField(choices=[('operator', 'Operator'), ('viewer', 'Viewer')], default='operator', help_text='Keys never carry the admin role: managing members and keys needs a signed-in admin.', max_length=16)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('last_used_at', models.DateTimeField(blank=True, null=True)),
                        ('revoked_at', models.DateTimeField(blank=True, null=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_keys', to='tenancy.tenant')),
                    ],
                    options={
                        'verbose_name': 'API key',
                        'verbose_name_plural': 'API keys',
                        'db_table': 'tickets_apikey',
                        'ordering': ['-created_at'],
                        'indexes': [models.Index(fields=['tenant', 'revoked_at'], name='apikey_tenant_revoked')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
