"""Request and response shapes of the Client Brain REST endpoints."""

from brain.client_brain import typed
from brain.client_brain.dashboard import CURRENT, STATUS_FILTERS
from brain.client_brain.types import CONTEXT_MODES
from config import serializers
from config.schema import instead_of, request_rule


@request_rule(instead_of("ticket_id", "subject", "latest_customer_message"))
class ClientBrainContextRequestSerializer(serializers.Serializer):
    subject = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=1000, trim_whitespace=False
    )
    latest_customer_message = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=20000, trim_whitespace=False
    )
    ticket_id = serializers.CharField(
        required=False,
        max_length=128,
        help_text="The helpdesk's ticket id: its subject and latest customer message are read instead.",
    )
    # Its enum is ClientBrainContextModeEnum (SPECTACULAR_SETTINGS): brain/search's `mode` is ModeEnum.
    mode = serializers.ChoiceField(
        choices=CONTEXT_MODES,
        default="initial",
        error_messages={"invalid_choice": "Choose initial or continuation."},
    )
    max_chars = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=200_000, default=None
    )

    def validate(self, attrs):
        if attrs.get("ticket_id") and (
            self.initial_data.get("subject") or self.initial_data.get("latest_customer_message")
        ):
            raise serializers.ValidationError(
                {"ticket_id": "Send either `ticket_id` or `subject` + `latest_customer_message`, not both."}
            )
        return attrs


class ClientBrainContextMemorySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    tag = serializers.CharField()
    type = serializers.CharField()
    key = serializers.CharField()
    text = serializers.CharField()
    payload = serializers.JSONField()
    confidence = serializers.FloatField()
    tier = serializers.CharField(help_text="fallback or keyword: the recall tier that fetched it")
    overlap_words = serializers.ListField(child=serializers.CharField())


class ClientBrainContextResponseSerializer(serializers.Serializer):
    mode = serializers.CharField()
    reloaded = serializers.BooleanField()
    prompt = serializers.CharField()
    memory_ids = serializers.ListField(child=serializers.IntegerField())
    sections = serializers.DictField(child=ClientBrainContextMemorySerializer(many=True))
    omitted = serializers.DictField(child=serializers.IntegerField())
    omitted_for_budget = serializers.DictField(child=serializers.IntegerField())
    caps = serializers.DictField(child=serializers.IntegerField())
    trace = serializers.JSONField()


class ClientBrainCopilotMemorySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    tag = serializers.CharField()
    type = serializers.CharField()
    key = serializers.CharField()
    text = serializers.CharField()
    confidence = serializers.FloatField()
    typed = serializers.BooleanField()
    overlap_words = serializers.ListField(child=serializers.CharField())


class ClientBrainMemoryListParamsSerializer(serializers.Serializer):
    """The list's query parameters. A blank one counts as absent, so "" is one of the schema's values of each
    (issue 29, item 4: the schema said only the choices while `?type=` was answered as no filter)."""

    type = serializers.ChoiceField(
        choices=list(typed.FAMILIES),
        required=False,
        allow_blank=True,
        error_messages={"invalid_choice": f"Choose one of {', '.join(typed.FAMILIES)}."},
        help_text="Only rows of this family (blank: any).",
    )
    status = serializers.ChoiceField(
        choices=list(STATUS_FILTERS),
        default=CURRENT,
        allow_blank=True,
        error_messages={"invalid_choice": f"Choose one of {', '.join(STATUS_FILTERS)}."},
        help_text="current (the default, and when blank): rows neither superseded nor archived; superseded; "
        "archived; all: every stored row.",
    )

    def validate_status(self, value: str) -> str:
        return value or CURRENT


class ClientBrainStoredMemorySerializer(serializers.Serializer):
    """A stored row as the dashboard shows it. Invalid confidence is null in `confidence` (JSON has no
    NaN or infinity) and spelled out in `confidence_display`."""

    id = serializers.IntegerField()
    type = serializers.CharField()
    key = serializers.CharField()
    value = serializers.CharField()
    payload = serializers.JSONField()
    confidence = serializers.FloatField(allow_null=True)
    confidence_display = serializers.CharField()
    confidence_valid = serializers.BooleanField()
    typed = serializers.BooleanField()
    legacy = serializers.BooleanField()
    status = serializers.CharField(
        help_text="The stored status: superseded (replaced by `superseded_by`) and archived rows are not "
        "current and are never recalled."
    )
    superseded_by = serializers.IntegerField(
        allow_null=True, source="superseded_by_id", help_text="The newer memory that replaced this one."
    )
    activity_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class ClientBrainCurrentStatsSerializer(serializers.Serializer):
    """The same figures for the current rows only (neither superseded nor archived: what recall may use)."""

    rows = serializers.IntegerField(help_text="Current rows.")
    typed_rows = serializers.IntegerField(help_text="Current rows passing the four-family shape guard.")
    average_confidence = serializers.FloatField(
        allow_null=True, help_text="Of current rows with finite confidence within 0–1."
    )
    invalid_confidence_rows = serializers.IntegerField(help_text="Current rows with invalid confidence.")
    recorded_activity = serializers.IntegerField(help_text="Recorded activity of current rows.")
    by_type = serializers.DictField(child=serializers.IntegerField(), help_text="Current rows by family.")
    legacy_type_rows = serializers.IntegerField(help_text="Current rows of an unsupported type.")


class ClientBrainStatsSerializer(serializers.Serializer):
    """Tenant-wide counts. The spec's aggregates count every stored row, whatever its status; `rows_by_status`
    and `current` give the current rows' split beside them."""

    stored_rows = serializers.IntegerField(help_text="Every stored row, whatever its status.")
    rows_by_status = serializers.DictField(
        child=serializers.IntegerField(), help_text="Stored rows by status: current, superseded, archived."
    )
    typed_rows = serializers.IntegerField(
        help_text="Stored rows passing the four-family shape guard (invalid confidence included)."
    )
    average_confidence = serializers.FloatField(
        allow_null=True, help_text="Of stored rows with finite confidence within 0–1."
    )
    invalid_confidence_rows = serializers.IntegerField(
        help_text="Stored rows with invalid confidence (NaN, infinite, outside 0–1 or missing)."
    )
    recorded_activity = serializers.IntegerField(help_text="Recorded activity of stored rows.")
    by_type = serializers.DictField(child=serializers.IntegerField(), help_text="Stored rows by family.")
    legacy_type_rows = serializers.IntegerField(help_text="Stored rows of an unsupported type.")
    current = ClientBrainCurrentStatsSerializer(help_text="The same figures for the current rows only.")
