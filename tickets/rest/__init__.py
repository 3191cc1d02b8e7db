"""The helpdesk's REST endpoints (/api/v1/tickets/..., /api/v1/learning-attempts)."""
