"""The REST answers of Intelligence's domain errors, registered with the one exception handler
(config/rest.py) by IntelligenceConfig.ready(): views let these errors out of the services they call."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response

from config.rest import error_response, register_error

from ..services import (
    ActionAlreadyDecided,
    AgentMemoryNotFound,
    AgentNameTaken,
    NoteKeptAsWritten,
    OutcomeAlreadyEvaluated,
    RecordOfOtherKind,
    SuggestionNotFound,
)


def memory_not_found(exc: AgentMemoryNotFound, view) -> Response:
    return error_response("not_found", "Not found.", status.HTTP_404_NOT_FOUND)


def note_kept_as_written(exc: NoteKeptAsWritten, view) -> Response:
    agent_id = getattr(view, "kwargs", {}).get("agent_pk", "{id}")
    return error_response(
        "written_by_agent",
        f"[mem:{exc.memory_id}] is a note the agent wrote itself: it is kept as written. To change what the "
        f"agent is told, promote it to a preference or a rule: POST /api/v1/agents/{agent_id}/memories/"
        f"{exc.memory_id}/promote.",
        status.HTTP_409_CONFLICT,
    )


def suggestion_not_queued(exc: SuggestionNotFound, view) -> Response:
    return error_response(
        "not_found",
        f"No suggestion [mem:{exc.memory_id}] is waiting for review for this agent.",
        status.HTTP_404_NOT_FOUND,
    )


def outcome_already_evaluated(exc: OutcomeAlreadyEvaluated, view) -> Response:
    return error_response(
        "already_evaluated",
        f"Run {exc.run_id}'s outcome was already evaluated; it cannot change any more.",
        status.HTTP_409_CONFLICT,
        {"outcome": ["already evaluated"]},
    )


def action_already_decided(exc: ActionAlreadyDecided, view) -> Response:
    return error_response(
        "already_decided",
        f"This proposed action was already {exc.action.status}; a decision is final.",
        status.HTTP_409_CONFLICT,
        {"decision": [exc.action.status]},
    )


def agent_name_taken(exc: AgentNameTaken, view) -> Response:
    """The name is another agent's: a conflict with what is stored (409), not a malformed request."""
    return error_response(
        "name_taken",
        f"Another agent of this tenant is named {exc.name!r}; choose another name.",
        status.HTTP_409_CONFLICT,
        exc.message_dict,
    )


def record_of_other_kind(exc: RecordOfOtherKind, view) -> Response:
    """An id of the record the agent's kind does not keep: a conflict with the agent (409), saying which to send."""
    return error_response(
        "wrong_record_kind", " ".join(exc.messages), status.HTTP_409_CONFLICT, exc.message_dict
    )


def register_errors() -> None:
    register_error(RecordOfOtherKind, record_of_other_kind)
    register_error(AgentNameTaken, agent_name_taken)
    register_error(AgentMemoryNotFound, memory_not_found)
    register_error(NoteKeptAsWritten, note_kept_as_written)
    register_error(SuggestionNotFound, suggestion_not_queued)
    register_error(OutcomeAlreadyEvaluated, outcome_already_evaluated)
    register_error(ActionAlreadyDecided, action_already_decided)
