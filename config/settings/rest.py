"""Django REST framework and the OpenAPI schema: the conventions every /api/v1 endpoint follows."""

from .env import env_int, env_str

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tickets.tenancy.authentication.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["tickets.tenancy.permissions.TenantRolePermission"],
    # JSON only, through the parser that refuses over-deep documents and unstorable strings with a 400.
    "DEFAULT_PARSER_CLASSES": ["config.parsers.SafeJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "config.rest.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["config.filters.FilterBackend"],  # django-filter, booleans strict
    "DEFAULT_THROTTLE_CLASSES": ["tickets.tenancy.authentication.ApiKeyRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"api_key": env_str("BRAIN_API_THROTTLE_RATE", "1200/min")},
    "EXCEPTION_HANDLER": "config.rest.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "config.schema.BrainAutoSchema",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

API_MAX_PAGE_SIZE = env_int("BRAIN_API_MAX_PAGE_SIZE", 200)
# The deepest JSON body the API parses (the largest legitimate payload, a learning config, is 3 deep).
API_MAX_JSON_DEPTH = env_int("BRAIN_API_MAX_JSON_DEPTH", 32)

SPECTACULAR_SETTINGS = {
    "TITLE": "The Brain API",
    # The description ("Getting started"), tags, summaries and examples: config/openapi.py.
    "DESCRIPTION": "Typed, tenant-isolated memory for a business's AI agents.",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "config.openapi.explain"],
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "MemberRoleEnum": "tickets.tenancy.models.Role",
        "ApiKeyRoleEnum": "tickets.tenancy.models.API_KEY_ROLES",
        "TicketStatusEnum": "tickets.models.TicketStatus",
        "LearningStatusEnum": "tickets.models.LearningStatus",
        "AgentMemorySettableStatusEnum": "brain.api.SETTABLE_STATUSES",
        # The memory taxonomy (brain.api): one enum each wherever a serializer offers it.
        "MemoryStrengthEnum": "brain.api.MemoryStrength",
        "MemoryCategoryEnum": "brain.api.MemoryCategory",
        "RunOutcomeEnum": "intelligence.models.RunOutcome",
        # Two sets of modes: recall's (brain/search) and the Client Brain context's.
        "ModeEnum": "brain.search.MODES",
        "ClientBrainContextModeEnum": "brain.client_brain.types.CONTEXT_MODES",
    },
}
