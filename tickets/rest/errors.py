"""The REST answer of the helpdesk's domain error, registered with the one exception handler (config/rest.py)
by TicketsConfig.ready(): the helpdesk views let it out of the services they call."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response

from config.rest import error_response, register_error

from ..errors import TicketInputError


def ticket_input_invalid(exc: TicketInputError, view) -> Response:
    """Input the helpdesk must fix: a 400 whose message says what (under `detail`, as it always was)."""
    return error_response("invalid", f"detail: {exc}", status.HTTP_400_BAD_REQUEST, {"detail": [str(exc)]})


def register_errors() -> None:
    register_error(TicketInputError, ticket_input_invalid)
