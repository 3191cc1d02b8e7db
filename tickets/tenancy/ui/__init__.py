"""The tenancy layer of the operator UI: the middleware that puts the session's tenant on the request, the
base of every operator view, the registry of the apps' sections and the template context, and the tenant's
own pages (home, the tenant switcher, members, invitations, API keys)."""
