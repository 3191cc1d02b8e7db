"""REST conventions every /api/v1 endpoint follows: JSON errors, bounded pagination, body limits.

Errors always look like {"error": {"code": ..., "message": ..., "fields": {...}}} so a client can show
the message and mark the offending fields; a bad request is a 4xx that says what to fix, never a 500.

One exception handler gives that shape to every error a view lets out: DRF's, Django's `ValidationError`
(a service's refusal: 400, its messages under the fields they name) and the domain errors each app
registers with `register_error` in its AppConfig.ready() (e.g. brain's `GateRejected`: 422). Views call
services and let their errors out; they do not translate them by hand.
"""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .parsers import string_problem

# PostgreSQL's bigint: an offset (or id) past it is a client's mistake to refuse, not a query to send.
MAX_OFFSET = 2**63 - 1


def page_bounds(query_params, *, default_limit: int) -> tuple[int, int]:
    """`limit` and `offset` of a list request: whole numbers (limit at least 1, offset at least 0) or a 400
    saying so; a limit above BRAIN_API_MAX_PAGE_SIZE is clamped to it, never refused. One rule for every list
    (the DRF pagination below and the lists that page by hand)."""
    errors: dict[str, list[str]] = {}
    values = {"limit": default_limit, "offset": 0}
    for name, minimum in (("limit", 1), ("offset", 0)):
        raw = query_params.get(name)
        if raw in (None, ""):
            continue
        try:
            value = int(str(raw).strip())
        except ValueError:
            errors[name] = [f"Send a whole number (at least {minimum}); got {str(raw)[:40]!r}."]
            continue
        if value < minimum:
            errors[name] = [f"Send a whole number of at least {minimum}."]
        elif name == "offset" and value > MAX_OFFSET:
            errors[name] = [f"Send an offset of at most {MAX_OFFSET}."]
        values[name] = value
    if errors:
        raise exceptions.ValidationError(errors)
    return min(values["limit"], settings.API_MAX_PAGE_SIZE), values["offset"]


# The schema of `limit` and `offset` states page_bounds' rule, so a client (and the schema fuzz) knows that 0
# rows per page or a negative offset is a 400 before sending it.
LIMIT_SCHEMA = {"type": "integer", "minimum": 1}
OFFSET_SCHEMA = {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET}
LIMIT_HELP = "Rows per page (at least 1; above the maximum, the maximum)."
OFFSET_HELP = "Rows to skip (at least 0)."

# The same two query parameters, for the schema of a list that pages by hand.
PAGE_PARAMETERS = [
    OpenApiParameter("limit", LIMIT_SCHEMA, description=LIMIT_HELP),
    OpenApiParameter("offset", OFFSET_SCHEMA, description=OFFSET_HELP),
]


class Pagination(LimitOffsetPagination):
    """Every list is paginated; a bad `limit` / `offset` is a 400 and `limit` is clamped at
    BRAIN_API_MAX_PAGE_SIZE (page_bounds)."""

    default_limit = 50

    @property
    def max_limit(self) -> int:  # read at request time so tests and settings can change it
        return settings.API_MAX_PAGE_SIZE

    def paginate_queryset(self, queryset, request, view=None):
        self._bounds = page_bounds(request.query_params, default_limit=self.default_limit)
        return super().paginate_queryset(queryset, request, view)

    def get_limit(self, request) -> int:
        return self._bounds[0]

    def get_offset(self, request) -> int:
        return self._bounds[1]

    def get_schema_operation_parameters(self, view):
        schemas = {"limit": (LIMIT_SCHEMA, LIMIT_HELP), "offset": (OFFSET_SCHEMA, OFFSET_HELP)}
        return [
            {"name": name, "required": False, "in": "query", "description": help_text, "schema": schema}
            for name, (schema, help_text) in schemas.items()
        ]


def _flatten_message(detail: Any) -> str:
    if isinstance(detail, list):
        return " ".join(_flatten_message(item) for item in detail)
    if isinstance(detail, dict):
        return " ".join(f"{key}: {_flatten_message(value)}" for key, value in detail.items())
    return str(detail)


def field_errors(detail: Any) -> dict[str, list[str]]:
    """Any DRF error detail as {field: [messages]}, keyed by the request's own field names: a bare string
    becomes a one-item list; errors inside a field (a list item, a nested object) become messages that name
    their place (`0: "x" is not a valid choice.`). `non_field_errors` is left to the message."""
    if not isinstance(detail, dict):
        return {}
    return {str(key): _messages(value) for key, value in detail.items() if key != "non_field_errors"}


def _messages(value: Any, place: str = "") -> list[str]:
    if isinstance(value, dict):
        return [m for key, item in value.items() for m in _messages(item, f"{place}{key}.")]
    if isinstance(value, list | tuple):
        return [m for item in value for m in _messages(item, place)]
    prefix = f"{place[:-1]}: " if place else ""
    return [f"{prefix}{value}"]


# A domain error's answer: given the error and the view that let it out (None outside a view), the
# error response (`error_response`, `gate_rejected_response`).
ErrorAnswer = Callable[[Exception, Any], Response]
_ERROR_ANSWERS: dict[type[Exception], ErrorAnswer] = {}


def register_error(error: type[Exception], answer: ErrorAnswer) -> None:
    """Answer `error` (and its subclasses, unless they are registered themselves) with `answer` in every
    REST view. Apps call this in AppConfig.ready(), so config imports no app."""
    _ERROR_ANSWERS[error] = answer


def _domain_answer(exc: Exception, view) -> Response | None:
    for kind in type(exc).__mro__:  # the most specific registered class answers
        answer = _ERROR_ANSWERS.get(kind)
        if answer is not None:
            return answer(exc, view)
    return None


def validation_error(exc: DjangoValidationError) -> exceptions.ValidationError:
    """A service's Django ValidationError as DRF's: its messages under the fields it names, else as a list."""
    return exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)


def exception_handler(exc: Exception, context: dict) -> Response | None:
    answer = _domain_answer(exc, context.get("view"))
    if answer is not None:
        return answer
    if isinstance(exc, DjangoValidationError):
        exc = validation_error(exc)
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
        fields = field_errors(detail)
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
    return Response(
        {"error": {"code": code, "message": message, "fields": field_errors(fields or {})}},
        status=http_status,
    )


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


class MalformedRequestMiddleware:
    """Refuses a URL that no row can match or no column can hold before any view sees it.

    A NUL in the path (`/api/v1/tickets/a%00b`) names nothing that can exist: 404. A NUL in a query
    parameter is a 400 that says which. API paths answer in the JSON error envelope; UI paths in text.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path:
            return self._refuse(request, "not_found", "Not found.", status.HTTP_404_NOT_FOUND)
        for name, values in request.GET.lists():
            for text in (name, *values):
                problem = string_problem(text)
                if problem:
                    message = f"The query parameter {name!r} {problem}."
                    return self._refuse(request, "invalid", message, status.HTTP_400_BAD_REQUEST)
        return self.get_response(request)

    @staticmethod
    def _refuse(request: HttpRequest, code: str, message: str, http_status: int) -> HttpResponse:
        if request.path.startswith("/api/"):
            return JsonResponse(
                {"error": {"code": code, "message": message, "fields": {}}}, status=http_status
            )
        return HttpResponse(message, status=http_status, content_type="text/plain; charset=utf-8")


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: a URL under /api/ that matches no route answers in the JSON envelope, like every API 404."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"error": {"code": "not_found", "message": "Not found.", "fields": {}}}, status=404
        )
    return page_not_found(request, exception)
