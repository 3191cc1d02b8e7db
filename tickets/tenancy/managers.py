"""The tenant-scoped manager every tenant-owned model uses (the first wall; importable by every app).

The default manager fails closed: a query of a tenant-owned model runs only when it is scoped, that is
when it was built from `Model.objects.for_tenant(tenant)`, from the explicitly named escape hatch
`Model.objects.all_tenants()` (admin, migrations, benchmarks, cross-tenant maintenance), from a related
manager of an object already read (`ticket.messages`, scoped by its parent), or when its own WHERE pins
`tenant_id` (how Django's unique checks ask). Anything else raises `TenantScopeMissing` when it would
reach the database, instead of reading every tenant's rows. `create()` and `bulk_create()` need no
scope: the rows carry their tenant. Saves and cascades go through Django's base manager, unaffected.
Historical models in migrations get plain managers (`use_in_migrations` is off), so migrations are free.
"""

from django.db import models
from django.db.models.lookups import Exact, In
from django.db.models.sql.where import AND, WhereNode


class TenantScopeMissing(RuntimeError):
    """A tenant-owned model was queried without a tenant: use for_tenant(tenant) or all_tenants()."""


def _pins_tenant(where: WhereNode, table_alias: str | None) -> bool:
    """True when this AND-ed WHERE holds `<table>.tenant_id = x` (or `IN (...)`) for the queried table."""
    if where.connector != AND or where.negated:
        return False
    for child in where.children:
        if isinstance(child, WhereNode):
            if _pins_tenant(child, table_alias):
                return True
        elif isinstance(child, (Exact, In)):
            target = getattr(child.lhs, "target", None)
            if getattr(target, "attname", None) == "tenant_id" and child.lhs.alias == table_alias:
                return True
    return False


class TenantScopedQuerySet(models.QuerySet):
    def for_tenant(self, tenant) -> "TenantScopedQuerySet":
        scoped = self.all_tenants()
        if tenant is None:
            return scoped.none()
        tenant_id = tenant if isinstance(tenant, int) else tenant.pk
        return scoped.filter(tenant_id=tenant_id)

    def all_tenants(self) -> "TenantScopedQuerySet":
        """Every tenant's rows: for admin, migrations, benchmarks and cross-tenant maintenance only."""
        clone = self._chain()
        clone.query.tenant_scoped = True  # Query.clone() copies its __dict__: the mark follows the chain
        return clone

    def _check_scope(self) -> None:
        query = self.query
        if getattr(query, "tenant_scoped", False) or query.is_empty():
            return
        if _pins_tenant(query.where, query.base_table):
            return
        raise TenantScopeMissing(
            f"{self.model.__name__} was queried without a tenant; use "
            f"{self.model.__name__}.objects.for_tenant(tenant) or, for admin and maintenance, .all_tenants()."
        )

    def _fetch_all(self):
        if self._result_cache is None:
            self._check_scope()
        super()._fetch_all()

    def _iterator(self, use_chunked_fetch, chunk_size):
        self._check_scope()
        return super()._iterator(use_chunked_fetch, chunk_size)

    def aggregate(self, *args, **kwargs):
        self._check_scope()
        return super().aggregate(*args, **kwargs)

    def count(self):
        if self._result_cache is None:
            self._check_scope()
        return super().count()

    def exists(self):
        if self._result_cache is None:
            self._check_scope()
        return super().exists()

    def update(self, **kwargs):
        self._check_scope()
        return super().update(**kwargs)

    def delete(self):
        self._check_scope()
        return super().delete()

    def explain(self, *, format=None, **options):
        self._check_scope()
        return super().explain(format=format, **options)


class TenantScopedManager(models.Manager.from_queryset(TenantScopedQuerySet)):
    def get_queryset(self) -> TenantScopedQuerySet:
        queryset = super().get_queryset()
        # A related manager (`ticket.messages`, prefetches) reads the rows of an object already read
        # in its tenant, and filters by it: that is a scope.
        if getattr(self, "instance", None) is not None:
            queryset.query.tenant_scoped = True
        return queryset


class AllTenantsAdminMixin:
    """For ModelAdmins and inlines: staff work across tenants, so the admin's querysets (its lists, its
    inlines, its foreign-key choices) are the explicit `all_tenants()`."""

    def get_queryset(self, request):
        return _all_tenants(super().get_queryset(request))

    def get_field_queryset(self, db, db_field, request):
        queryset = super().get_field_queryset(db, db_field, request)
        if queryset is None:
            queryset = db_field.remote_field.model._default_manager.using(db)
        return _all_tenants(queryset)


def _all_tenants(queryset):
    return queryset.all_tenants() if isinstance(queryset, TenantScopedQuerySet) else queryset
