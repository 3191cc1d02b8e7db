"""Input and output shapes of `POST /api/v1/brain/search` and `POST /api/v1/brain/ask`.

The tenant never comes from the payload: the views pass the authenticated tenant to the services.
"""

import math

from brain.models import BrainScopeKind, MemoryCategory, MemoryStatus, MemoryStrength
from brain.search import MODES
from config import serializers
from config.schema import only_with, request_rule

MAX_SEARCH_LIMIT = 50
MAX_ASK_LIMIT = 20


class FiniteFloatField(serializers.FloatField):
    """A float that refuses NaN and infinity with a message, instead of letting them reach a query."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            raise serializers.ValidationError("Must be a finite number (no NaN or infinity).")
        return value


def _choices(choices, help_text):
    return serializers.ListField(
        child=serializers.ChoiceField(choices=choices), required=False, allow_empty=False, help_text=help_text
    )


@request_rule(only_with("scope_ids", "scope_kind"))
class RecallFiltersSerializer(serializers.Serializer):
    scope_kind = serializers.ChoiceField(choices=BrainScopeKind.choices, required=False)
    scope_ids = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        allow_empty=False,
        max_length=100,
        help_text="Scope owners (agent ids, App ids, ...).",
    )
    types = serializers.ListField(
        child=serializers.CharField(max_length=32), required=False, allow_empty=False, max_length=20
    )
    statuses = _choices(MemoryStatus.choices, "Default: active only.")
    strengths = _choices(MemoryStrength.choices, "Any strength when omitted.")
    categories = _choices(MemoryCategory.choices, "Any category when omitted.")
    confidence_range = serializers.ListField(
        child=FiniteFloatField(min_value=0, max_value=1),
        required=False,
        min_length=2,
        max_length=2,
        help_text="[low, high] within 0–1 (either order); default: ungraded or any valid confidence.",
    )
    mode = serializers.ChoiceField(choices=MODES, default="hybrid")
    mmr_lambda = FiniteFloatField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=1,
        help_text="Turns MMR on: 0 diverse … 1 relevant.",
    )

    expand_graph = serializers.BooleanField(
        default=False, help_text="Add BrainGraph neighbours of the best results (a 'graph' tier)."
    )

    def validate_confidence_range(self, value):
        # The confidences between two bounds, whichever is sent first: a schema cannot say "low first", so the
        # API does not ask it (issue 29, item 4: [0.9, 0.2] was a 400 for input the schema calls valid).
        return sorted(value)

    def validate(self, attrs):
        if "scope_ids" in attrs and "scope_kind" not in attrs:
            raise serializers.ValidationError({"scope_kind": "Give scope_kind together with scope_ids."})
        return attrs


class SearchRequestSerializer(RecallFiltersSerializer):
    query = serializers.CharField(max_length=2000, trim_whitespace=True)
    limit = serializers.IntegerField(min_value=1, max_value=MAX_SEARCH_LIMIT, default=10)


class AskRequestSerializer(RecallFiltersSerializer):
    question = serializers.CharField(max_length=2000, trim_whitespace=True)
    limit = serializers.IntegerField(
        min_value=1, max_value=MAX_ASK_LIMIT, default=8, help_text="How many memories the answer may draw on."
    )


class RecalledMemorySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    tag = serializers.CharField()
    type = serializers.CharField()
    key = serializers.CharField()
    text = serializers.CharField()
    payload = serializers.JSONField()
    confidence = serializers.FloatField(allow_null=True)
    status = serializers.CharField()
    strength = serializers.CharField()
    category = serializers.CharField()
    scope_kind = serializers.CharField()
    scope_id = serializers.CharField()
    provider = serializers.CharField()
    campaign_ids = serializers.ListField(child=serializers.CharField())
    tags = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    score = serializers.FloatField()
    explanation = serializers.JSONField(
        help_text="Why it was returned: tiers with rank/score, fused score, MMR."
    )


class SearchResponseSerializer(serializers.Serializer):
    query = serializers.CharField()
    mode = serializers.CharField()
    count = serializers.IntegerField()
    results = RecalledMemorySerializer(many=True)


class AskResponseSerializer(serializers.Serializer):
    question = serializers.CharField()
    answer = serializers.CharField(
        help_text="Grounded only in `memories`; every citation is a [mem:ID] of them."
    )
    citations = serializers.ListField(child=serializers.IntegerField())
    invalid_citations = serializers.ListField(
        child=serializers.CharField(), help_text="Tags the provider wrote that name no given memory: dropped."
    )
    provider = serializers.CharField()
    memories = RecalledMemorySerializer(many=True)
