"""Operator forms of the Intelligence tab. They validate input only (delegating to the REST serializers: one
input schema per thing); views call services to write."""

from __future__ import annotations

from django import forms

from brain import api as brain_api
from config import serializers

from ..learning import (
    EVALUATE_AFTER_HOURS_CHOICES,
    LEARNING_CONFIG_DEFAULTS,
    LEARNING_WINDOW_DAYS_CHOICES,
    RECENCY_BIAS_CHOICES,
)
from ..models import AgentKind
from ..rest.serializers.agents import (
    AgentMemoryEditSerializer,
    AgentMemoryFilterSerializer,
    AgentMemorySupersedeSerializer,
    AgentMemoryWriteSerializer,
    ContextRequestSerializer,
    NotePromoteSerializer,
)

# The taxonomy is brain's (brain.api); the forms add a line of help to its labels.
_CATEGORY_HELP = {
    "fact": "factual information the agent should know",
    "preference": "guides tone or approach",
    "correction": "fixes a past mistake",
    "instruction": "an explicit rule to follow",
}
# What each strength does at runtime, in the operator's words (the Add Memory form shows it beside each choice).
_STRENGTH_HELP = {
    "hard_rule": "injected into every conversation its scope matches, relevant or not (up to 1,500 characters "
    "of rules)",
    "preference": "injected only when the conversation is about it (up to 1,000 characters of preferences)",
    "heuristic": "injected wherever its scope matches, after rules and preferences (up to 500 characters of "
    "patterns): a safe start",
    "context_note": "kept for reference; never injected",
}
_STATUS_HELP = {"draft": "not injected yet", "active": "injected at runtime", "stale": "needs review"}


def _helped(choices, help_texts) -> list[tuple[str, str]]:
    return [
        (value, f"{label}: {help_texts[value]}" if value in help_texts else label) for value, label in choices
    ]


class CodedSelect(forms.Select):
    """A select whose options read as labels and carry their stored value as a title (on hover, for support)."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if value not in ("", None):
            option["attrs"]["title"] = str(value)
        return option


CATEGORY_CHOICES = _helped(brain_api.MemoryCategory.choices, _CATEGORY_HELP)
# "Rule: ..." — the spec's label; the value the API and the admin use is the choice's title (on hover).
STRENGTH_CHOICES = _helped(brain_api.MemoryStrength.choices, _STRENGTH_HELP)
# Add Memory starts at the least aggressive strength that still reaches the prompt (a note never does).
INITIAL_STRENGTH = brain_api.MemoryStrength.HEURISTIC.value
STATUS_CHOICES = _helped(
    [(s, brain_api.MemoryStatus(s).label) for s in brain_api.SETTABLE_STATUSES], _STATUS_HELP
)
PROVIDER_CHOICES = [("", "Any provider (unscoped)"), *brain_api.code_choices("provider", brain_api.PROVIDERS)]
STRENGTH_LABELS = dict(brain_api.MemoryStrength.choices)


class CommaListField(forms.CharField):
    """Comma- or newline-separated values → a list of distinct, trimmed strings (each ≤ 64 characters)."""

    def to_python(self, value):
        value = super().to_python(value) or ""
        items = [part.strip() for part in value.replace("\n", ",").split(",")]
        return list(dict.fromkeys(item for item in items if item))

    def validate(self, value):
        super().validate(value)
        too_long = [v for v in value if len(v) > 64]
        if too_long:
            raise forms.ValidationError(f"At most 64 characters each: {too_long[0][:70]}…")


class AgentForm(forms.Form):
    name = forms.CharField(max_length=120)
    kind = forms.ChoiceField(choices=AgentKind.choices, initial=AgentKind.KNOWLEDGE)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)


class SchemaForm(forms.Form):
    """A form of the Intelligence tab whose input has one schema with REST: the form renders its fields and
    checks what a browser sends, then delegates to the REST serializer `schema`, whose validated data
    (`self.validated`) are what the view gives the service. The serializer's errors land on the form."""

    schema: type[serializers.Serializer]
    partial = False

    def clean(self):
        self.validated: dict = {}
        cleaned = super().clean()
        given = {name: value for name, value in cleaned.items() if name in self.schema().fields}
        schema = self.schema(data=given, partial=self.partial)
        if schema.is_valid():
            self.validated = dict(schema.validated_data)
        else:
            for name, errors in schema.errors.items():
                field = name if name in self.fields else None
                if field is None or field not in self.errors:
                    self.add_error(field, errors)
        return cleaned


class AgentMemoryForm(SchemaForm):
    """Spec: Creating Memories — category, strength, status (draft first), content, optional scope."""

    schema = AgentMemoryWriteSerializer

    category = forms.ChoiceField(choices=CATEGORY_CHOICES, widget=CodedSelect)
    strength = forms.ChoiceField(choices=STRENGTH_CHOICES, initial=INITIAL_STRENGTH, widget=forms.RadioSelect)
    status = forms.ChoiceField(choices=STATUS_CHOICES, initial="draft", widget=CodedSelect)
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "What the agent should know or do"}),
        max_length=4000,
    )
    provider = forms.ChoiceField(choices=PROVIDER_CHOICES, required=False, widget=CodedSelect)
    campaign_ids = CommaListField(
        required=False, help_text="Comma-separated. Empty = every campaign.", label="Campaign IDs"
    )
    tags = CommaListField(required=False, help_text="Comma-separated labels for organization.")


class AgentMemoryEditForm(AgentMemoryForm):
    schema = AgentMemoryEditSerializer
    status = None  # status changes are their own actions (activate, mark stale, archive)

    @classmethod
    def for_memory(cls, memory) -> AgentMemoryEditForm:
        """The form filled with a memory's current content, taxonomy and scope (brain's AgentMemoryRecord)."""
        return cls(
            initial={
                "category": memory.category,
                "strength": memory.strength,
                "content": memory.text,
                "provider": memory.provider,
                "campaign_ids": ", ".join(memory.campaign_ids),
                "tags": ", ".join(memory.tags),
            }
        )


class SupersedeForm(SchemaForm):
    schema = AgentMemorySupersedeSerializer

    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), max_length=4000, label="Newer memory (replaces this one)"
    )
    status = forms.ChoiceField(choices=STATUS_CHOICES, initial="active", label="Status of the newer memory")


def _optional_int(value):
    return None if value in ("", None) else int(value)


class LearningConfigForm(forms.Form):
    learn_from_approved_actions = forms.BooleanField(
        required=False, help_text="Extract patterns when an operator approves a proposed action."
    )
    learn_from_rejected_recommendations = forms.BooleanField(
        required=False, help_text="Learn what to avoid when an operator rejects a recommendation."
    )
    evaluate_after_hours = forms.TypedChoiceField(
        choices=EVALUATE_AFTER_HOURS_CHOICES, coerce=int, label="Evaluate outcomes after"
    )
    learning_window_days = forms.TypedChoiceField(
        choices=[("" if v is None else v, label) for v, label in LEARNING_WINDOW_DAYS_CHOICES],
        coerce=_optional_int,
        empty_value=None,
        required=False,
        label="Learning window",
    )
    recency_bias = forms.ChoiceField(choices=RECENCY_BIAS_CHOICES)
    suggestion_feedback_threshold = forms.IntegerField(
        min_value=1,
        max_value=100,
        required=False,
        label="Suggest memories after",
        help_text="New ratings of this agent's conversations and runs before the system proposes memories.",
    )

    def clean_suggestion_feedback_threshold(self):
        value = self.cleaned_data.get("suggestion_feedback_threshold")
        return LEARNING_CONFIG_DEFAULTS["suggestion_feedback_threshold"] if value is None else value

    @classmethod
    def for_config(cls, config: dict, data=None):
        initial = {**LEARNING_CONFIG_DEFAULTS, **(config or {})}
        if initial["learning_window_days"] is None:
            initial["learning_window_days"] = ""
        return cls(data=data, initial=initial)


class BudgetPreviewForm(SchemaForm):
    """A sample conversation: the same input as the runtime's REST endpoint (`services.ContextRequest`)."""

    schema = ContextRequestSerializer

    conversation = forms.CharField(
        widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": "Type a sample customer message or conversation"}
        ),
        max_length=20_000,
        label="Sample conversation",
    )
    provider = forms.ChoiceField(choices=PROVIDER_CHOICES, required=False, widget=CodedSelect)
    campaign_ids = CommaListField(required=False, label="Campaign IDs")
    tags = CommaListField(required=False)
    policy = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=100_000)
    knowledge_base = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=100_000, label="Knowledge base"
    )


def _any(label: str, choices) -> forms.ChoiceField:
    return forms.ChoiceField(choices=[("", label), *choices], required=False, widget=CodedSelect)


class MemoryFilterForm(SchemaForm):
    """The tab's filters and search; `validated` are `brain.api.agent_memory_list`'s keyword arguments."""

    schema = AgentMemoryFilterSerializer

    q = forms.CharField(required=False, max_length=200, label="Search")
    category = _any("Any category", brain_api.MemoryCategory.choices)
    strength = _any("Any strength", brain_api.MemoryStrength.choices)
    status = _any("Any status", brain_api.MemoryStatus.choices)
    source = _any("Any source", brain_api.MemorySource.choices)
    scope = _any(
        "Any scope",
        [
            ("unscoped", "Applies everywhere"),
            ("scoped", "Limited to a provider or campaigns"),
            *brain_api.code_choices("provider", brain_api.PROVIDERS),
        ],
    )


# How an agent wrote a note, in the operator's words (the surface's code is shown on hover).
NOTE_SURFACE_WORDS = {
    "memory_append": "Remembered by the agent",
    "chat": "Mined from a chat",
}


class NoteFilterForm(SchemaForm):
    """The "Written by the agent" view's filters; `validated` are `agent_memory_list`'s keyword arguments
    (the view adds written_by="agent")."""

    schema = AgentMemoryFilterSerializer

    q = forms.CharField(required=False, max_length=200, label="Search")
    surface = forms.ChoiceField(
        choices=[("", "Any way"), *NOTE_SURFACE_WORDS.items()], required=False, label="How it was written"
    )


class NotePromoteForm(SchemaForm):
    """Promote a note to a preference or a rule: the operator's wording, category, strength and status."""

    schema = NotePromoteSerializer

    category = forms.ChoiceField(choices=CATEGORY_CHOICES, initial="preference")
    strength = forms.ChoiceField(
        choices=_helped(
            [(v, label) for v, label in brain_api.MemoryStrength.choices if v in ("hard_rule", "preference")],
            _STRENGTH_HELP,
        ),
        initial="preference",
        widget=forms.RadioSelect,
    )
    status = forms.ChoiceField(
        choices=[(value, label) for value, label in STATUS_CHOICES if value in ("active", "draft")],
        initial="active",
    )
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=4000,
        label="Wording",
        help_text="What the agent should know or do, as it will read it in its prompt.",
    )


BUDGET_LABELS = {
    "total": "Total combined budget",
    "policy_reserve": "Reserved for policy",
    "knowledge_base_reserve": "Reserved for knowledge base",
    "brand_floor": "Minimum for brand intelligence",
    "tier_hard_rule": "Rules tier",
    "tier_preference": "Preferences tier",
    "tier_heuristic": "Patterns tier",
    "tier_context_note": "Notes tier",
    "preference_min_score": "How closely a preference must match",
}
# The relevance floor is a search score: the form says what moving it does rather than what it is.
PREFERENCE_MATCH_HELP = (
    "A preference is injected only when the conversation matches it at least this closely. The default lets "
    "in a preference the conversation is about (by its meaning, not only shared words); raise it to inject "
    "fewer preferences, lower it to inject more."
)


class BudgetOverridesForm(forms.Form):
    """The agent's budget overrides; an empty field uses the setting (shown as the placeholder)."""

    def __init__(self, *args, defaults: dict, **kwargs):
        super().__init__(*args, **kwargs)
        for name, label in BUDGET_LABELS.items():
            if name == "preference_min_score":
                field = forms.FloatField(
                    required=False, min_value=0, label=label, help_text=PREFERENCE_MATCH_HELP
                )
                field.widget.attrs["title"] = "preference_min_score (the preference's relevance score)"
            else:
                field = forms.IntegerField(required=False, min_value=0, label=f"{label} (characters)")
            field.widget.attrs["placeholder"] = str(defaults[name])
            self.fields[name] = field

    def overrides(self) -> dict:
        return {name: value for name, value in self.cleaned_data.items() if value is not None}
