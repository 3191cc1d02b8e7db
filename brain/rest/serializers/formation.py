"""Request and response shapes of the formation write surfaces (memory-append, lessons, chat-mine) and neighbours."""

from config import serializers

MAX_TEXT = 4000  # the gate rejects long texts with a reason; this only bounds the request


class _RunContext(serializers.Serializer):
    """What the proposing run was given: the gate rejects candidates that merely echo it."""

    injected_memory_ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1), required=False, default=list, max_length=200
    )
    injected_texts = serializers.ListField(
        child=serializers.CharField(max_length=MAX_TEXT, allow_blank=True),
        required=False,
        default=list,
        max_length=200,
    )
    system_prompt = serializers.CharField(required=False, default="", allow_blank=True, max_length=50_000)
    run_id = serializers.CharField(required=False, default="", allow_blank=True, max_length=64)


class MemoryAppendSerializer(_RunContext):
    agent_id = serializers.CharField(max_length=64)
    text = serializers.CharField(max_length=MAX_TEXT, allow_blank=True, trim_whitespace=False)
    key = serializers.CharField(required=False, default="", allow_blank=True, max_length=255)


class LessonSerializer(_RunContext):
    app_id = serializers.CharField(max_length=64)
    template = serializers.CharField(max_length=MAX_TEXT, help_text='e.g. "When {situation}, {action}."')
    values = serializers.DictField(
        child=serializers.CharField(allow_blank=True, max_length=MAX_TEXT), required=False, default=dict
    )
    key = serializers.CharField(required=False, default="", allow_blank=True, max_length=255)
    outcome = serializers.ChoiceField(
        choices=["success", "failure", "neutral"], required=False, default="neutral"
    )


class ChatMessageSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=["user", "assistant", "system", "tool"])
    content = serializers.CharField(max_length=20_000, allow_blank=True)


class ChatMineSerializer(_RunContext):
    conversation_id = serializers.CharField(max_length=64)
    agent_id = serializers.CharField(required=False, default="", allow_blank=True, max_length=64)
    messages = serializers.ListField(child=ChatMessageSerializer(), min_length=1, max_length=500)


class OutcomeSerializer(serializers.Serializer):
    result = serializers.ChoiceField(choices=["added", "reinforced", "superseded", "rejected"])
    memory_id = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField()
    related_memory_id = serializers.IntegerField(allow_null=True)
    text = serializers.CharField(required=False)


class OutcomeResponseSerializer(serializers.Serializer):
    outcome = OutcomeSerializer()


class ChatMineResponseSerializer(serializers.Serializer):
    miner = serializers.CharField()
    outcomes = OutcomeSerializer(many=True)


class GraphNeighbourSerializer(serializers.Serializer):
    relation = serializers.CharField()
    direction = serializers.ChoiceField(choices=["out", "in"])
    node_kind = serializers.CharField()
    ref = serializers.CharField()
    label = serializers.CharField()
    memory_id = serializers.IntegerField(allow_null=True)
    memory_status = serializers.CharField(allow_null=True)
