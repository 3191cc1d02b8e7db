"""The REST answers of brain's domain errors, registered with the one exception handler (config/rest.py)
by BrainConfig.ready(): a view lets these errors out of the service it calls, and never translates them."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response

from brain.formation import GateRejected, MemoryNotFound, MemorySuperseded
from brain.providers import ProviderError
from brain.search import RecallInputError
from brain.verdicts import VerdictInputError
from config.rest import error_response, gate_rejected_response, register_error


def invalid_input(exc: Exception, view) -> Response:
    """Input the caller must fix (the error says what): 400."""
    return error_response("invalid", str(exc), status.HTTP_400_BAD_REQUEST)


def not_found(exc: Exception, view) -> Response:
    """A memory missing or another tenant's: the same 404 as for any other missing object."""
    return error_response("not_found", "Not found.", status.HTTP_404_NOT_FOUND)


def gate_rejected(exc: GateRejected, view) -> Response:
    """An edit the formation gate refused: 422 `rejected`, the reason under the field that carried the text
    (the view's `gate_rejected_field`: "content" for agent memories, else "text")."""
    return gate_rejected_response(exc.reason, getattr(view, "gate_rejected_field", "text"))


def superseded(exc: MemorySuperseded, view) -> Response:
    """A superseded memory keeps its status: 409, naming the newer memory to change instead."""
    return error_response(
        "superseded",
        f"[mem:{exc.memory_id}] was superseded by [mem:{exc.superseded_by_id}]; change the newer memory.",
        status.HTTP_409_CONFLICT,
        {"status": ["superseded"]},
    )


def provider_unavailable(exc: ProviderError, view) -> Response:
    """The LLM provider failed (only `brain/ask` calls it on a request): 503, worth a retry."""
    return error_response(
        "provider_unavailable",
        f"The answer provider failed ({exc}); retry later or check BRAIN_LLM_PROVIDER.",
        status.HTTP_503_SERVICE_UNAVAILABLE,
    )


def register_errors() -> None:
    register_error(RecallInputError, invalid_input)
    register_error(VerdictInputError, invalid_input)
    register_error(MemoryNotFound, not_found)
    register_error(GateRejected, gate_rejected)
    register_error(MemorySuperseded, superseded)
    register_error(ProviderError, provider_unavailable)
