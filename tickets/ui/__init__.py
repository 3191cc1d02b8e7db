"""The helpdesk's operator UI: the Learning page."""
