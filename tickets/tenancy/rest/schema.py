"""OpenAPI description of the API-key scheme (loaded by TenancyConfig.ready)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "tickets.tenancy.authentication.ApiKeyAuthentication"
    name = "ApiKeyAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "brn_<prefix>_<secret>",
            "description": "A tenant's API key, created by a tenant admin.",
        }
