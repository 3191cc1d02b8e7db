"""An agent's learning configuration (spec: Learning Configuration) and its budget overrides.

`learning_config_clean(data)` is the one validator: it fills the spec's defaults for missing keys,
rejects unknown keys and values outside the spec's options, and returns a complete dict. The stored
`Agent.learning_config` is always the cleaned form.
"""

from __future__ import annotations

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
