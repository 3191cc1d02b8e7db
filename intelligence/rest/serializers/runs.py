"""REST shapes of conversations and runs as records, proposed actions, outcomes and verdicts."""

from __future__ import annotations

from brain import api as brain_api
from config import serializers
from config.schema import exactly_one_of, request_rule

from ...models import AgentRun, ProposedAction, RunOutcome
from ...services.runs import REASON_MAX_CHARS
from .agents import ContextRequestSerializer

RESPONSE_MAX_CHARS = 100_000


class RuntimeContextRequestSerializer(ContextRequestSerializer):
    """The runtime context call, with the caller's conversation or run id (opens or continues the record)."""

    conversation_id = serializers.CharField(required=False, allow_blank=True, default="", max_length=128)
    run_id = serializers.CharField(required=False, allow_blank=True, default="", max_length=128)


class ContextSectionSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="policy, knowledge_base, hard_rule, preference, heuristic, brand.")
    text = serializers.CharField(allow_blank=True)
    chars = serializers.IntegerField()
    budget = serializers.IntegerField()
    memory_ids = serializers.ListField(child=serializers.IntegerField())
    tags = serializers.ListField(child=serializers.CharField(), help_text="The memories' [mem:ID] tags.")
    truncated = serializers.BooleanField()
    detail = serializers.DictField(required=False)


class ContextOmissionSerializer(serializers.Serializer):
    memory_id = serializers.IntegerField()
    strength = serializers.CharField(allow_blank=True)
    reason = serializers.CharField()
    chars = serializers.IntegerField()
    relevance = serializers.FloatField()


class RecordRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The Brain's id (for messages, feedback and verdicts).")
    external_id = serializers.CharField(allow_blank=True)
    created = serializers.BooleanField()


class RuntimeContextResponseSerializer(serializers.Serializer):
    """What the agent's prompt gets for this conversation (`prompt`), section by section, with a trace id."""

    trace_id = serializers.IntegerField()
    agent_id = serializers.IntegerField()
    sections = ContextSectionSerializer(many=True)
    chars = serializers.DictField(
        child=serializers.IntegerField(), help_text="Characters per section, and total."
    )
    budget = serializers.DictField(help_text="The character budgets this call was assembled within.")
    injected_memory_ids = serializers.ListField(child=serializers.IntegerField())
    omitted = ContextOmissionSerializer(many=True, help_text="Memories left out, each with its reason.")
    omitted_counts = serializers.DictField(child=serializers.IntegerField())
    omitted_truncated = serializers.BooleanField()
    not_active_counts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="The agent's memories not active, per status: never injected.",
    )
    notes_matching = serializers.IntegerField(
        min_value=0,
        help_text="How many notes the agent wrote itself (remember / memory-append, chat-mine) match this "
        "conversation (full-text, at most 100). Notes are never injected: search them with POST "
        '/api/v1/brain/search {"query": ..., "scope_kind": "agent", "scope_ids": ["<agent id>"], "types": '
        '["note", "chat"]}, or list them with GET /api/v1/agents/{id}/memories?written_by=agent.',
    )
    prompt = serializers.CharField(allow_blank=True)
    conversation = RecordRefSerializer(required=False, help_text="Knowledge agents: the conversation opened.")
    run = RecordRefSerializer(required=False, help_text="Action agents: the run opened.")


class ConversationMessageSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=RESPONSE_MAX_CHARS, trim_whitespace=False)
    trace_id = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=2**63 - 1
    )


class ProposedActionInputSerializer(serializers.Serializer):
    type = serializers.CharField(max_length=64)
    payload = serializers.JSONObjectField(required=False, default=dict)
    recommendation = serializers.CharField(required=False, allow_blank=True, default="", max_length=4000)


class RunResponseSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=RESPONSE_MAX_CHARS, trim_whitespace=False, allow_blank=True)
    proposed_actions = ProposedActionInputSerializer(many=True, required=False, default=list, max_length=50)


class DecisionSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=REASON_MAX_CHARS)


class OutcomeSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=RunOutcome.choices)


@request_rule(exactly_one_of("trace_id", "run_id", "conversation_id"))
class VerdictRequestSerializer(serializers.Serializer):
    """Exactly one of trace_id, run_id, conversation_id (the Brain's ids, as the context call returned them)."""

    trace_id = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    run_id = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    conversation_id = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    verdict = serializers.ChoiceField(choices=brain_api.VERDICTS)
    response_text = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=RESPONSE_MAX_CHARS, trim_whitespace=False
    )
    verdict_key = serializers.CharField(required=False, allow_blank=True, default="", max_length=64)

    def validate(self, attrs):
        named = [k for k in ("trace_id", "run_id", "conversation_id") if attrs.get(k) is not None]
        if len(named) != 1:
            raise serializers.ValidationError(
                {"trace_id": "Send exactly one of trace_id, run_id or conversation_id."}
            )
        return attrs


class ProposedActionSerializer(serializers.ModelSerializer):
    type = serializers.CharField(source="action_type")

    class Meta:
        model = ProposedAction
        fields = ["id", "type", "payload", "recommendation", "status", "reason", "decided_by", "decided_at",
                  "extraction", "created_at"]  # fmt: skip


class RunSerializer(serializers.ModelSerializer):
    proposed_actions = serializers.SerializerMethodField()

    class Meta:
        model = AgentRun
        fields = ["id", "agent", "external_id", "trace_ids", "response_text", "responded_at", "outcome",
                  "outcome_at", "outcome_evaluated_at", "outcome_evaluation", "created_at", "proposed_actions"]  # fmt: skip

    def get_proposed_actions(self, run) -> list[dict]:
        return ProposedActionSerializer(self.context["actions"], many=True).data


def _verdict_message(result: brain_api.VerdictResult) -> str:
    if result.ignored:
        return (
            "Not applied: everything judged is older than the agent's learning window, which ignores older"
            " feedback and data entirely (widen it in the agent's learning settings to count it)."
        )
    if not result.applied:
        return f"Already applied at {result.applied_at.isoformat()}: nothing moved this time."
    ungraded, unmoved = result.ungraded_memory_ids, result.unmoved_memory_ids
    spent = [i for i in unmoved if i not in ungraded]
    notes = []
    if spent:
        notes.append(
            f"{len(spent)} memor{'y' if len(spent) == 1 else 'ies'} recorded without moving: verdicts on the traces "
            "that injected them (judged alone or through their run or conversation) have already moved them by one"
            " full delta"
        )
    if ungraded:
        notes.append(
            f"{len(ungraded)} Client Brain memor{'y' if len(ungraded) == 1 else 'ies'} recorded without moving:"
            " Client Brain memories are not graded by outcomes"
        )
    # Recorded, not applied: a verdict that found every memory spent or ungraded moved nothing at all.
    head = "Recorded, nothing moved." if result.nudges and len(unmoved) == len(result.nudges) else "Applied."
    return head + "".join(f" {note}." for note in notes)


def verdict_result_data(result: brain_api.VerdictResult) -> dict:
    return {
        "applied": result.applied,
        "ignored": result.ignored,
        "message": _verdict_message(result),
        "trace": result.judged,
        "verdict": result.verdict,
        "verdict_key": result.verdict_key,
        "applied_at": result.applied_at,
        "injected_memory_ids": list(result.injected_memory_ids),
        "cited_memory_ids": list(result.cited_memory_ids),
        "cited_not_injected": list(result.cited_not_injected),
        "missing_memory_ids": list(result.missing_memory_ids),
        "archived_memory_ids": list(result.archived_memory_ids),
        "unmoved_memory_ids": list(result.unmoved_memory_ids),
        "nudges": [
            {
                "memory_id": n.memory_id,
                "cited": n.cited,
                "confidence_before": n.confidence_before,
                "confidence_after": n.confidence_after,
                "status_before": n.status_before,
                "status_after": n.status_after,
                "applied_share": n.applied_share,
                "graded": n.graded,
                "reason": n.reason,
            }
            for n in result.nudges
        ],
    }  # fmt: skip
