"""Serializers for the helpdesk integration: tickets, messages, classifications, approvals, learning attempts.

They validate input and render output only; writes go through `tickets.services`. The tenant always
comes from the request, never from a payload.
"""

from django.core.validators import RegexValidator

from config import serializers
from config.schema import one_not_blank, request_rule

from ..models import (
    Approval,
    ApprovalDecision,
    Classification,
    LearningAttempt,
    LearningSkipReason,
    Message,
    MessageDirection,
    Ticket,
    TicketStatus,
)


class TicketSerializer(serializers.ModelSerializer):
    external_id = serializers.CharField(
        max_length=128,
        # Checked once trimmed; as a pattern the same rule holds for the text as sent (the schema's).
        validators=[
            RegexValidator(r"^[^/]*[^/\s][^/]*$", "Send the helpdesk's ticket id: not empty, without '/'.")
        ],
        help_text="The helpdesk's id for the ticket; creating it again updates it.",
    )
    status = serializers.ChoiceField(
        choices=TicketStatus.choices,
        required=False,
        help_text="Entering solved, closed or resolved (from any other status) starts learning.",
    )

    class Meta:
        model = Ticket
        fields = [
            "id",
            "external_id",
            "subject",
            "status",
            "requester",
            "created_at",
            "updated_at",
            "status_changed_at",
        ]
        read_only_fields = ["id", "created_at", "updated_at", "status_changed_at"]


class TicketUpdateSerializer(TicketSerializer):
    """PUT/PATCH on /tickets/{external_id}: the id is in the URL and cannot change."""

    external_id = serializers.CharField(read_only=True)


class TicketStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=TicketStatus.choices)


class MessageSerializer(serializers.ModelSerializer):
    direction = serializers.ChoiceField(
        choices=MessageDirection.choices,
        help_text="inbound (from the customer) or outbound (to the customer).",
    )
    sent_at = serializers.DateTimeField(required=False, help_text="Defaults to now.")
    external_id = serializers.CharField(
        max_length=128,
        required=False,
        allow_blank=True,
        help_text="With the helpdesk's id, adding again is a no-op.",
    )

    class Meta:
        model = Message
        fields = ["id", "external_id", "direction", "is_note", "author", "body", "sent_at", "created_at"]
        read_only_fields = ["id", "created_at"]

    def validate_body(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Send the message text; it must not be empty.")
        return value


@request_rule(one_not_blank("category", "intent"))
class ClassificationSerializer(serializers.ModelSerializer):
    labels = serializers.ListField(child=serializers.CharField(max_length=120), required=False, max_length=50)
    confidence = serializers.FloatField(required=False, allow_null=True, min_value=0.0, max_value=1.0)

    class Meta:
        model = Classification
        fields = ["id", "category", "intent", "labels", "confidence", "created_at"]
        read_only_fields = ["id", "created_at"]

    def validate(self, attrs):
        if not (attrs.get("category") or attrs.get("intent")):
            raise serializers.ValidationError({"category": ["Send a category or an intent (or both)."]})
        return attrs


class ApprovalSerializer(serializers.ModelSerializer):
    decision = serializers.ChoiceField(choices=ApprovalDecision.choices)
    decided_at = serializers.DateTimeField(required=False, help_text="Defaults to now.")

    class Meta:
        model = Approval
        fields = ["id", "proposed_action", "kind", "decision", "decided_by", "decided_at", "created_at"]
        read_only_fields = ["id", "created_at"]

    def validate_proposed_action(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Send the proposed action that was approved or rejected.")
        return value


class LearningAttemptSerializer(serializers.ModelSerializer):
    # "" (no skip) is an answer too: declared so the schema's enum includes it.
    skip_reason = serializers.ChoiceField(
        choices=LearningSkipReason.choices, allow_blank=True, read_only=True
    )

    class Meta:
        model = LearningAttempt
        fields = [
            "id",
            "ticket_external_id",
            "trigger",
            "status",
            "skip_reason",
            "provider",
            "tries",
            "candidates",
            "added",
            "reinforced",
            "superseded",
            "rejected",
            "outcomes",
            "error",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields
