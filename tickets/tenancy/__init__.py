"""The one tenancy layer, the ground floor every app may import; nothing here imports the helpdesk.

- `models`: tenants, roles, memberships and API keys (models of the `tickets` app, app_label "tickets").
- `selectors`, `services`: their reads and writes.
- `authentication`: API-key authentication and per-key throttling.
- `context`: which tenant a web request acts in (the UI middleware, `TenantViewMixin`, the template context).
- `permissions`, `drf`: the DRF role check and the one DRF base, which resolves the tenant in `initial()`
  and the URL's parent objects before the handler runs.
- `api`, `views`, `urls*`: the tenant's own REST and operator UI (members, keys, the tenant switcher).
"""
