"""The one tenancy layer, the ground floor every app may import; nothing here imports the helpdesk.

A Django app of its own (`apps.py`: label "tenancy"), whose ready() installs the tenant wall's signal handlers
and the `brain.W001` database check.

- `models`: tenants, roles, memberships, API keys and invitations (tables `tickets_*`, their names from before
  the app was split off).
- `managers`: the tenant-scoped manager every tenant-owned model uses (the first wall: fails closed).
- `wall`: the second wall, PostgreSQL row-level security: the session's tenant, the audited bypass, the
  policy installer and the LEAKPROOF check.
- `selectors`, `services`, `erasure`: their reads and writes, and erasing a tenant.
- `authentication`: API-key authentication, the tenant a DRF request acts in, per-key throttling.
- `permissions`, `drf`: the DRF role check and the one DRF base, which resolves the tenant in `initial()`
  and the URL's parent objects before the handler runs.
- `parents`: the one way an app reaches another app's objects, by a lookup the owning app registers by name.
- `rest/`: the tenant's own REST (the tenant, its keys and members). `ui/`: the operator UI's middleware, the
  base of its views, the registry of the apps' sections, the template context, and the tenant's own pages
  (home, the tenant switcher, members, invitations, keys).
"""
