"""The REST answer of tenancy's domain error, registered with the one exception handler (config/rest.py) by
TenancyConfig.ready(): the membership views let it out of the services they call."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response

from config.rest import error_response, register_error

from ..services import LastAdminError


def last_admin(exc: LastAdminError, view) -> Response:
    """Removing or demoting the tenant's last admin: a 409 that says why."""
    return error_response("last_admin", str(exc), status.HTTP_409_CONFLICT)


def register_errors() -> None:
    register_error(LastAdminError, last_admin)
