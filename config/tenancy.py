"""The tenancy base every tenant-owned model uses (project infrastructure, importable by every app).

Rows are read through `Model.objects.for_tenant(tenant)`; the unscoped `all_tenants()` exists for
admin, migrations and benchmarks, and its name says what it does.
"""

from django.db import models


class TenantScopedQuerySet(models.QuerySet):
    def for_tenant(self, tenant) -> "TenantScopedQuerySet":
        if tenant is None:
            return self.none()
        tenant_id = tenant if isinstance(tenant, int) else tenant.pk
        return self.filter(tenant_id=tenant_id)

    def all_tenants(self) -> "TenantScopedQuerySet":
        return self.all()


TenantScopedManager = models.Manager.from_queryset(TenantScopedQuerySet)
