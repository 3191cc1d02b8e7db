"""REST conventions every /api/v1 endpoint follows: JSON errors, bounded pagination, body limits.

Errors always look like {"error": {"code": ..., "message": ..., "fields": {...}}} so a client can show
the message and mark the offending fields; a bad request is a 4xx that says what to fix, never a 500.
"""

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class Pagination(LimitOffsetPagination):
    """Every list is paginated; `limit` is capped at BRAIN_API_MAX_PAGE_SIZE."""

    default_limit = 50

    @property
    def max_limit(self) -> int:  # read at request time so tests and settings can change it
        return settings.API_MAX_PAGE_SIZE


def _flatten_message(detail: Any) -> str:
    if isinstance(detail, list):
        return " ".join(_flatten_message(item) for item in detail)
    if isinstance(detail, dict):
        return " ".join(f"{key}: {_flatten_message(value)}" for key, value in detail.items())
    return str(detail)


def exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, RequestDataTooBig):
        return Response(
            {
                "error": {
                    "code": "request_too_large",
                    "message": f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes; send less.",
                    "fields": {},
                }
            },
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound("Not found.")
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    fields: dict[str, Any] = {}
    if isinstance(exc, exceptions.ValidationError):
        code = "invalid"
        if isinstance(detail, dict):
            fields = {key: value for key, value in detail.items() if key != "non_field_errors"}
            message = _flatten_message(detail)
        else:
            message = _flatten_message(detail)
    else:
        code = getattr(exc, "default_code", "error")
        if isinstance(exc, exceptions.APIException):
            codes = exc.get_codes()
            if isinstance(codes, str):
                code = codes
        message = _flatten_message(detail.get("detail", detail) if isinstance(detail, dict) else detail)
    response.data = {"error": {"code": code, "message": message, "fields": fields}}
    return response


def error_response(code: str, message: str, http_status: int, fields: dict | None = None) -> Response:
    return Response({"error": {"code": code, "message": message, "fields": fields or {}}}, status=http_status)


def gate_rejected_response(reason: str, field: str, **extra: Any) -> Response:
    """The one answer of every write surface when the formation gate refuses a memory: 422, code `rejected`,
    the gate's reason code under the field that carried the text. Nothing was written; `extra` (the brain
    surfaces' `outcome`) rides beside the error. A duplicate is not a refusal: it reinforces and answers 200."""
    body = {
        "error": {
            "code": "rejected",
            "message": f"The memory was not written: the formation gate rejected it ({reason}). "
            "Change the text and retry.",
            "fields": {field: [reason]},
        },
        **extra,
    }
    return Response(body, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
