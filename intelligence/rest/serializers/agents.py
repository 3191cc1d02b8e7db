"""REST shapes for agents, agent memories and the runtime context. The tenant comes from the request's
context (the key or the session), never from the payload."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field

from brain import api as brain_api
from config import serializers
from config.schema import one_not_blank, request_rule

from ...learning import (
    EVALUATE_AFTER_HOURS_CHOICES,
    LEARNING_WINDOW_DAYS_CHOICES,
    RECENCY_BIAS_CHOICES,
    SUGGESTION_THRESHOLD_RANGE,
    learning_config_clean,
)
from ...models import Agent
from ...runtime import BUDGET_FIELDS, budget_clean


def _values(choices) -> list:
    return [value for value, _ in choices]


# The schemas of the two settings objects state what learning_config_clean and budget_clean accept, key by key
# (issue 29, item 4: the schema said "any value" while null, a list or an unknown key was a 400).
@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": False,
        "description": "The spec's learning settings; a key not sent keeps the spec's default.",
        "properties": {
            "learn_from_approved_actions": {"type": "boolean"},
            "learn_from_rejected_recommendations": {"type": "boolean"},
            "evaluate_after_hours": {"type": "integer", "enum": _values(EVALUATE_AFTER_HOURS_CHOICES)},
            "learning_window_days": {
                "type": "integer",
                "nullable": True,
                "enum": _values(LEARNING_WINDOW_DAYS_CHOICES),  # None (all time) among them
                "description": "null: all time.",
            },
            "recency_bias": {"type": "string", "enum": _values(RECENCY_BIAS_CHOICES)},
            "suggestion_feedback_threshold": {
                "type": "integer",
                "minimum": SUGGESTION_THRESHOLD_RANGE[0],
                "maximum": SUGGESTION_THRESHOLD_RANGE[1],
            },
        },
    }
)
class LearningConfigField(serializers.JSONObjectField):
    pass


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": False,
        "description": "Character budgets overriding the settings' (BRAIN_CONTEXT_BUDGET). The total must hold "
        "policy_reserve + knowledge_base_reserve + brand_floor (the settings' values for those not sent).",
        "properties": {
            name: {"type": "number"} if name == "preference_min_score" else {"type": "integer", "minimum": 0}
            for name in BUDGET_FIELDS
        },
    }
)
class BudgetOverridesField(serializers.JSONObjectField):
    pass


class AgentSerializer(serializers.ModelSerializer):
    learning_config = LearningConfigField(required=False)
    budget_overrides = BudgetOverridesField(required=False)

    class Meta:
        model = Agent
        fields = [
            "id",
            "name",
            "kind",
            "description",
            "learning_config",
            "budget_overrides",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "created_at", "updated_at"]

    # The services' own validation: DRF puts the Django ValidationError they raise under the field.
    def validate_learning_config(self, value):
        return learning_config_clean(value)

    def validate_budget_overrides(self, value):
        return budget_clean(value)

    def validate_name(self, value):  # the name's uniqueness is a conflict the service answers (409)
        value = value.strip()
        if not value:
            raise serializers.ValidationError("Give the agent a name.")
        return value


def _string_list(max_items: int = 50):
    return serializers.ListField(
        child=serializers.CharField(max_length=64, allow_blank=False),
        required=False,
        default=list,
        max_length=max_items,
    )


def _any(choices):
    """A choice that may be left empty."""
    return serializers.ChoiceField(choices=choices, required=False, allow_blank=True, default="")


# The write surfaces an agent's memories come from (a list filter): the operators', and the agent's own.
NOTE_SURFACES = ["operator", "suggestion", "memory_append", "chat"]


# The one input schema of an agent memory, for REST and the Intelligence tab's forms alike (they delegate to
# it, intelligence/ui/forms.py): its validated data are the keyword arguments of `services.agent_memory_add`,
# `agent_memory_edit` and `agent_memory_supersede` (`content` arrives as `text`).
class AgentMemoryWriteSerializer(serializers.Serializer):
    """Spec: Creating Memories. `content` is what the agent should know or do."""

    category = serializers.ChoiceField(choices=brain_api.MemoryCategory.choices)
    strength = serializers.ChoiceField(choices=brain_api.MemoryStrength.choices)
    status = serializers.ChoiceField(choices=brain_api.SETTABLE_STATUSES, default="draft")
    content = serializers.CharField(source="text", max_length=4000, trim_whitespace=True)
    provider = _any(brain_api.PROVIDERS)
    campaign_ids = _string_list()
    tags = _string_list()


class AgentMemoryEditSerializer(AgentMemoryWriteSerializer):
    """Send any of the fields: what is not sent stays as it is."""

    status = None  # status changes have their own endpoint


class AgentMemorySupersedeSerializer(serializers.Serializer):
    content = serializers.CharField(source="text", max_length=4000, trim_whitespace=True)
    status = serializers.ChoiceField(choices=brain_api.SETTABLE_STATUSES, default="active")


class NotePromoteSerializer(serializers.Serializer):
    """Make a note the agent wrote a preference or a rule of the operator's (`content`: its wording; the note's
    own text when left out)."""

    category = serializers.ChoiceField(choices=brain_api.MemoryCategory.choices)
    strength = serializers.ChoiceField(choices=[("preference", "Preference"), ("hard_rule", "Rule")])
    status = serializers.ChoiceField(choices=["active", "draft"], default="active")
    content = serializers.CharField(source="text", max_length=4000, trim_whitespace=True, required=False)


class AgentMemoryStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=brain_api.SETTABLE_STATUSES)


class AgentMemorySerializer(serializers.Serializer):
    """An agent memory as the API shows it (read-only; from brain's AgentMemoryRecord): an operator's (the
    Intelligence tab's) or a note the agent wrote itself (`written_by` "agent": memory-append, chat-mine)."""

    id = serializers.IntegerField()
    agent_id = serializers.IntegerField()
    content = serializers.CharField(source="text")
    tag = serializers.SerializerMethodField()
    category = serializers.CharField()
    source = serializers.CharField()
    strength = serializers.CharField()
    status = serializers.CharField()
    confidence = serializers.FloatField(allow_null=True)
    provider = serializers.CharField()
    campaign_ids = serializers.ListField(child=serializers.CharField())
    tags = serializers.ListField(child=serializers.CharField())
    superseded_by_id = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    written_by = serializers.ChoiceField(
        choices=["operator", "agent"],
        help_text="operator: the Intelligence tab's memories (injected by strength when active); agent: a note "
        "the agent wrote itself (memory-append, chat-mine), stored for reference and never injected.",
    )
    surface = serializers.CharField(
        help_text="The write surface: operator, suggestion, memory_append (remember), chat (chat-mine)."
    )
    conversation_id = serializers.CharField(
        help_text="Your id of the conversation that wrote this note (chat-mine's conversation_id), or empty."
    )
    run_id = serializers.CharField(
        help_text="Your id of the run that wrote this note (its run_id), or empty."
    )
    promoted_to_ids = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The operator memories this note was promoted to (each `derived_from` it).",
    )

    def get_tag(self, record) -> str:
        return f"[mem:{record.id}]"

    def to_representation(self, instance):
        data = super().to_representation(instance)
        confidence = data.get("confidence")
        if confidence is not None and not (
            0 <= confidence <= 1
        ):  # legacy invalid values are not shown as numbers
            data["confidence"] = None
        return data


# The filters of an agent's memory list, for REST and the Intelligence tab's filter form (which delegates to
# it): its validated data are the keyword arguments of `brain.api.agent_memory_list` (`q` arrives as `search`).
class AgentMemoryFilterSerializer(serializers.Serializer):
    category = _any(brain_api.MemoryCategory.choices)
    strength = _any(brain_api.MemoryStrength.choices)
    status = _any(brain_api.MemoryStatus.choices)
    source = _any(brain_api.MemorySource.choices)
    scope = _any(["scoped", "unscoped", *brain_api.PROVIDERS])
    q = serializers.CharField(
        source="search",
        required=False,
        allow_blank=True,
        default="",
        max_length=200,
        help_text="Words to search for through the retrieval engine (misspellings, other forms of a word and"
        " similar meanings count), best match first; memories holding the text literally or as a tag follow.",
    )
    written_by = serializers.ChoiceField(
        choices=brain_api.WRITTEN_BY,
        required=False,
        default="operator",
        help_text="operator (default): the memories operators curate; agent: the notes the agent wrote itself "
        "(memory-append, chat-mine; never injected); any: both.",
    )
    surface = _any(NOTE_SURFACES)
    # Paging is the API's one rule (config.rest.page_bounds: 400 when not a whole number, clamped above the
    # maximum); the view passes `limit` / `offset` from there.


@request_rule(one_not_blank("conversation", "ticket_subject", "ticket_message"))
class ContextRequestSerializer(serializers.Serializer):
    """POST /api/v1/agents/{id}/context: a conversation, or a ticket's subject and latest message."""

    conversation = serializers.CharField(required=False, allow_blank=True, default="", max_length=50_000)
    ticket_subject = serializers.CharField(required=False, allow_blank=True, default="", max_length=1000)
    ticket_message = serializers.CharField(required=False, allow_blank=True, default="", max_length=50_000)
    provider = _any(brain_api.PROVIDERS)
    campaign_ids = _string_list(200)
    tags = _string_list(200)
    policy = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=100_000, trim_whitespace=False
    )
    knowledge_base = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=100_000, trim_whitespace=False
    )

    def validate(self, attrs):
        if not any(attrs[k].strip() for k in ("conversation", "ticket_subject", "ticket_message")):
            raise serializers.ValidationError(
                {"conversation": "Send the conversation text, or a ticket_subject and/or ticket_message."}
            )
        return attrs
