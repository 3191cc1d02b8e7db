"""The tenant admin's Webhooks page (operator UI)."""
