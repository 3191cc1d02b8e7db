"""An agent's learning configuration (spec: Learning Configuration) and its budget overrides.

`learning_config_clean(data)` is the one validator: it fills the spec's defaults for missing keys,
rejects unknown keys and values outside the spec's options, and returns a complete dict. The stored
`Agent.learning_config` is always the cleaned form.
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
}


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
    if errors:
        raise ValidationError(errors)
    return cleaned


@dataclass(frozen=True)
class LearningConfig:
    """An agent's learning settings, complete and valid: what every learning path reads (one accessor:
    `agent_learning_config`)."""

    learn_from_approved_actions: bool
    learn_from_rejected_recommendations: bool
    evaluate_after_hours: int
    learning_window_days: int | None
    recency_bias: str

    @property
    def evaluate_after(self) -> timedelta:
        return timedelta(hours=self.evaluate_after_hours)

    def window_start(self, now: datetime) -> datetime | None:
        """The oldest moment whose feedback and data learning still reads (None: all time)."""
        return None if self.learning_window_days is None else now - timedelta(days=self.learning_window_days)

    def within_window(self, moment: datetime, now: datetime) -> bool:
        start = self.window_start(now)
        return start is None or moment >= start


def agent_learning_config(agent) -> LearningConfig:
    """The agent's learning settings, spec defaults filled. A stored config that no longer validates (a
    setting renamed since) falls back to the defaults for the offending keys rather than failing learning."""
    stored = agent.learning_config if isinstance(agent.learning_config, dict) else {}
    try:
        cleaned = learning_config_clean(stored)
    except ValidationError as exc:
        bad = set(exc.message_dict) if hasattr(exc, "error_dict") else set(stored)
        cleaned = learning_config_clean({k: v for k, v in stored.items() if k not in bad})
    return LearningConfig(**cleaned)
