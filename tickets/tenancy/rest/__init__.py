"""The tenant's own REST endpoints (the tenant, its API keys and members) and the API-key scheme's OpenAPI
description. The DRF base every app's endpoints stand on is `tickets.tenancy.drf`."""
