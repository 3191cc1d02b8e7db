"""An agent's learning configuration (spec: Learning Configuration) and its budget overrides.

`learning_config_clean(data)` is the one validator: it fills the spec's defaults for missing keys,
rejects unknown keys and values outside the spec's options, and returns a complete dict. The stored
`Agent.learning_config` is always the cleaned form. Code reads an agent's settings through ONE accessor,
`learning_config_for(agent)` (a frozen `LearningConfig`: the learning window and the recency weights live there).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError

EVALUATE_AFTER_HOURS_CHOICES = [(24, "24 hours"), (48, "48 hours"), (72, "72 hours"), (168, "7 days")]
# None means "all time": nothing is ignored for its age.
LEARNING_WINDOW_DAYS_CHOICES = [
    (None, "All time"),
    (30, "30 days"),
    (90, "90 days"),
    (180, "180 days"),
    (365, "365 days"),
]
RECENCY_BIAS_CHOICES = [("none", "None"), ("moderate", "Moderate"), ("strong", "Strong")]

LEARNING_CONFIG_DEFAULTS: dict[str, Any] = {
    "learn_from_approved_actions": True,
    "learn_from_rejected_recommendations": True,
    "evaluate_after_hours": 48,
    "learning_window_days": None,
    "recency_bias": "moderate",
    # Not one of the spec's five: how many new ratings of an agent's conversations / runs make the suggestion
    # task run (intelligence/services/suggestions.py). 1-100; 3 by default: one bad answer is an anecdote.
    "suggestion_feedback_threshold": 3,
}
SUGGESTION_THRESHOLD_RANGE = (1, 100)


def _allowed(choices) -> list:
    return [value for value, _ in choices]


def learning_config_clean(data: Any) -> dict[str, Any]:
    """Validate a learning config against the spec's settings; missing keys take the spec's defaults.

    Raises ValidationError with a message per offending key (what is wrong and what is allowed).
    """
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValidationError("The learning config must be a JSON object.")
    errors: dict[str, str] = {}
    unknown = sorted(set(data) - set(LEARNING_CONFIG_DEFAULTS))
    for key in unknown:
        errors[key] = f"Unknown setting; allowed settings are {', '.join(LEARNING_CONFIG_DEFAULTS)}."
    cleaned = dict(LEARNING_CONFIG_DEFAULTS)
    for key in ("learn_from_approved_actions", "learn_from_rejected_recommendations"):
        if key in data:
            if not isinstance(data[key], bool):
                errors[key] = "Must be true (on) or false (off)."
            else:
                cleaned[key] = data[key]
    if "evaluate_after_hours" in data:
        value = data["evaluate_after_hours"]
        if isinstance(value, bool) or value not in _allowed(EVALUATE_AFTER_HOURS_CHOICES):
            errors["evaluate_after_hours"] = "Must be one of 24, 48, 72 or 168 (7 days) hours."
        else:
            cleaned["evaluate_after_hours"] = value
    if "learning_window_days" in data:
        value = data["learning_window_days"]
        if isinstance(value, bool) or value not in _allowed(LEARNING_WINDOW_DAYS_CHOICES):
            errors["learning_window_days"] = "Must be null (all time) or one of 30, 90, 180, 365 days."
        else:
            cleaned["learning_window_days"] = value
    if "recency_bias" in data:
        value = data["recency_bias"]
        if value not in _allowed(RECENCY_BIAS_CHOICES):
            errors["recency_bias"] = "Must be one of none, moderate, strong."
        else:
            cleaned["recency_bias"] = value
    if "suggestion_feedback_threshold" in data:
        value = data["suggestion_feedback_threshold"]
        low, high = SUGGESTION_THRESHOLD_RANGE
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            errors["suggestion_feedback_threshold"] = (
                f"Must be a whole number of ratings from {low} to {high}."
            )
        else:
            cleaned["suggestion_feedback_threshold"] = value
    if errors:
        raise ValidationError(errors)
    return cleaned


# Recency bias (spec: "weight newer patterns more heavily"): a rating's weight halves every half-life of its
# age; "none" weighs every rating in the learning window alike.
RECENCY_HALF_LIFE_DAYS: dict[str, float | None] = {"none": None, "moderate": 30.0, "strong": 7.0}


@dataclass(frozen=True)
class LearningConfig:
    """An agent's learning settings, complete (spec defaults filled): the one way code reads them."""

    learn_from_approved_actions: bool
    learn_from_rejected_recommendations: bool
    evaluate_after_hours: int
    learning_window_days: int | None
    recency_bias: str
    suggestion_feedback_threshold: int

    @property
    def evaluate_after(self) -> timedelta:
        return timedelta(hours=self.evaluate_after_hours)

    def window_start(self, now: datetime) -> datetime | None:
        """The oldest moment the learning window admits; None for "all time". Older data is ignored entirely."""
        return None if self.learning_window_days is None else now - timedelta(days=self.learning_window_days)

    def in_window(self, moment: datetime, now: datetime) -> bool:
        start = self.window_start(now)
        return start is None or moment >= start

    def recency_weight(self, moment: datetime, now: datetime) -> float:
        """The weight of a rating given at `moment`: 1.0 now, halved every half-life of the recency bias
        (none: 1.0 whatever its age). A moment in the future weighs 1.0."""
        half_life = RECENCY_HALF_LIFE_DAYS[self.recency_bias]
        if half_life is None:
            return 1.0
        age_days = max((now - moment).total_seconds(), 0.0) / 86400.0
        return 0.5 ** (age_days / half_life)


def learning_config_for(agent) -> LearningConfig:
    """The agent's learning settings. Stored configs written before a setting existed get its default; a
    stored value the validator would refuse (edited outside the services) falls back to the default too."""
    stored = dict(getattr(agent, "learning_config", None) or {})
    values = dict(LEARNING_CONFIG_DEFAULTS)
    for key in LEARNING_CONFIG_DEFAULTS:
        if key in stored:
            try:
                values[key] = learning_config_clean({key: stored[key]})[key]
            except ValidationError:
                pass
    return LearningConfig(**values)
