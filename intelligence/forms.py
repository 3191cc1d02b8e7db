"""Operator forms of the Intelligence tab. They validate input only; views call services to write."""

from __future__ import annotations

from django import forms

from brain import api as brain_api

from .learning import (
    EVALUATE_AFTER_HOURS_CHOICES,
    LEARNING_CONFIG_DEFAULTS,
    LEARNING_WINDOW_DAYS_CHOICES,
    RECENCY_BIAS_CHOICES,
)
from .models import AgentKind

CATEGORY_CHOICES = [
    ("fact", "Fact: factual information the agent should know"),
    ("preference", "Preference: guides tone or approach"),
    ("correction", "Correction: fixes a past mistake"),
    ("instruction", "Instruction: an explicit rule to follow"),
]
STRENGTH_CHOICES = [
    ("hard_rule", "Rule: always applied (1,500 characters)"),
    ("preference", "Preference: applied when relevant (1,000)"),
    ("heuristic", "Pattern: applied when scope matches (500)"),
    ("context_note", "Note: stored, never auto-applied (0)"),
]
STATUS_CHOICES = [
    ("draft", "Draft: not injected yet"),
    ("active", "Active: injected at runtime"),
    ("stale", "Stale: needs review"),
    ("archived", "Archived"),
]
PROVIDER_CHOICES = [("", "Any provider (unscoped)"), *[(p, p) for p in brain_api.PROVIDERS]]
STRENGTH_LABELS = {
    "hard_rule": "Rule",
    "preference": "Preference",
    "heuristic": "Pattern",
    "context_note": "Note",
}


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


class AgentMemoryForm(forms.Form):
    """Spec: Creating Memories — category, strength, status (draft first), content, optional scope."""

    category = forms.ChoiceField(choices=CATEGORY_CHOICES)
    strength = forms.ChoiceField(choices=STRENGTH_CHOICES)
    status = forms.ChoiceField(choices=STATUS_CHOICES, initial="draft")
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "What the agent should know or do"}),
        max_length=4000,
    )
    provider = forms.ChoiceField(choices=PROVIDER_CHOICES, required=False)
    campaign_ids = CommaListField(
        required=False, help_text="Comma-separated. Empty = every campaign.", label="Campaign IDs"
    )
    tags = CommaListField(required=False, help_text="Comma-separated labels for organization.")


class AgentMemoryEditForm(AgentMemoryForm):
    status = None  # status changes are their own actions (activate, mark stale, archive)


class SupersedeForm(forms.Form):
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

    @classmethod
    def for_config(cls, config: dict, data=None):
        initial = {**LEARNING_CONFIG_DEFAULTS, **(config or {})}
        if initial["learning_window_days"] is None:
            initial["learning_window_days"] = ""
        return cls(data=data, initial=initial)


class BudgetPreviewForm(forms.Form):
    conversation = forms.CharField(
        widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": "Type a sample customer message or conversation"}
        ),
        max_length=20_000,
        label="Sample conversation",
    )
    provider = forms.ChoiceField(choices=PROVIDER_CHOICES, required=False)
    campaign_ids = CommaListField(required=False, label="Campaign IDs")
    tags = CommaListField(required=False)
    policy = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=100_000)
    knowledge_base = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=100_000, label="Knowledge base"
    )


class MemoryFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=200, label="Search")
    category = forms.ChoiceField(
        choices=[("", "Any category"), *[(c, c) for c, _ in CATEGORY_CHOICES]], required=False
    )
    strength = forms.ChoiceField(choices=[("", "Any strength"), *STRENGTH_LABELS.items()], required=False)
    status = forms.ChoiceField(
        choices=[
            ("", "Any status"),
            *[(s, s) for s in ("draft", "active", "stale", "archived", "superseded")],
        ],
        required=False,
    )
    source = forms.ChoiceField(
        choices=[
            ("", "Any source"),
            ("manual", "manual"),
            ("suggested", "suggested"),
            ("derived", "derived"),
        ],
        required=False,
    )
    scope = forms.ChoiceField(
        choices=[
            ("", "Any scope"),
            ("unscoped", "Unscoped"),
            ("scoped", "Scoped"),
            *[(p, p) for p in brain_api.PROVIDERS],
        ],
        required=False,
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
    "preference_min_score": "Preference relevance threshold",
}


class BudgetOverridesForm(forms.Form):
    """The agent's budget overrides; an empty field uses the setting (shown as the placeholder)."""

    def __init__(self, *args, defaults: dict, **kwargs):
        super().__init__(*args, **kwargs)
        for name, label in BUDGET_LABELS.items():
            if name == "preference_min_score":
                field = forms.FloatField(required=False, min_value=0, label=label)
            else:
                field = forms.IntegerField(required=False, min_value=0, label=f"{label} (characters)")
            field.widget.attrs["placeholder"] = str(defaults[name])
            self.fields[name] = field

    def overrides(self) -> dict:
        return {name: value for name, value in self.cleaned_data.items() if value is not None}
