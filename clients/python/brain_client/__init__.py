"""brain_client: the Python client of the Brain's agent-facing REST API (sync and async, on httpx)."""

from ._transport import RetryPolicy
from .client import AsyncBrain, Brain
from .errors import (
    AuthenticationFailed,
    BrainError,
    Conflict,
    GateRejected,
    InvalidRequest,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    RateLimited,
    ServerError,
    ServiceUnavailable,
    Suspended,
)
from .operations import covered_operations

__all__ = [
    "AsyncBrain",
    "AuthenticationFailed",
    "Brain",
    "BrainError",
    "Conflict",
    "GateRejected",
    "InvalidRequest",
    "NotFound",
    "PayloadTooLarge",
    "PermissionDenied",
    "RateLimited",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailable",
    "Suspended",
    "covered_operations",
]
