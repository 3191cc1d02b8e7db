"""The helpdesk's domain errors."""


class TicketInputError(ValueError):
    """A ticket, message, classification or approval the helpdesk sent that the services refuse; the message
    says what to fix. The REST API answers it with a 400 (tickets/rest/errors.py)."""
