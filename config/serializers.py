"""DRF's serializers as every /api/v1 endpoint uses them: a value must have the JSON type the schema gives it.

DRF's fields coerce: a CharField takes the number 0 and stores "0", a BooleanField takes 0, "yes" and "on",
an IntegerField takes "12" and 12.0, a FloatField takes false. The OpenAPI schema says string, boolean,
integer and number, so such a body is invalid by the API's own contract, and accepting it teaches clients a
contract nobody promised (issue 29, item 4: schemathesis' "invalid data accepted" found each). The four fields
below refuse any other JSON type with a 400 that names the type to send (DRF's own messages, e.g. for a
number that is not finite, stay as they are); everything else is DRF's.

App serializers import `serializers` from here, never from rest_framework (tests/config/test_rest_conventions.py
holds that), so a ModelSerializer's generated fields are the strict ones too. Values that are not JSON (the
Intelligence tab's forms hand their cleaned strings and lists to the same serializers) pass unchanged.
"""

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers as drf
from rest_framework.serializers import (  # noqa: F401  (re-exported: the rest of DRF's serializer API)
    ChoiceField,
    DateTimeField,
    DictField,
    Field,
    JSONField,
    ListField,
    Serializer,
    SerializerMethodField,
    ValidationError,
)

_KINDS = {
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "an object",
}


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in a message's words ("a number", "an array", ...)."""
    return _KINDS.get(type(value), type(value).__name__)


class CharField(drf.CharField):
    default_error_messages = {"wrong_type": "Send a string (text in double quotes), not {kind}."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("wrong_type", kind=json_kind(data))
        return super().to_internal_value(data)


class BooleanField(drf.BooleanField):
    default_error_messages = {"wrong_type": "Send true or false, not {kind}."}

    def to_internal_value(self, data):
        if data is True or data is False:
            return data
        self.fail("wrong_type", kind=json_kind(data))


class IntegerField(drf.IntegerField):
    default_error_messages = {"wrong_type": "Send a whole number (no quotes, no decimal point), not {kind}."}

    def to_internal_value(self, data):
        if type(data) is not int:  # a bool is an int to Python, "12" and 12.0 are what DRF would round
            self.fail("wrong_type", kind="a decimal number" if isinstance(data, float) else json_kind(data))
        return super().to_internal_value(data)


class FloatField(drf.FloatField):
    default_error_messages = {"wrong_type": "Send a number (no quotes), not {kind}."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("wrong_type", kind=json_kind(data))
        return super().to_internal_value(data)


@extend_schema_field({"type": "object", "additionalProperties": True})
class JSONObjectField(JSONField):
    """A JSON object (DRF's JSONField takes any JSON value); subclasses state their keys in the schema."""

    default_error_messages = {"wrong_type": "Send a JSON object ({{...}}), not {kind}."}

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("wrong_type", kind=json_kind(data))
        return super().to_internal_value(data)


STRICT_FIELDS = {
    drf.CharField: CharField,
    drf.BooleanField: BooleanField,
    drf.IntegerField: IntegerField,
    drf.FloatField: FloatField,
}


# DRF's, with the strict fields above for the model fields it maps to theirs. (A comment, not a docstring:
# drf-spectacular would show a docstring as the description of every model serializer without one.)
class ModelSerializer(drf.ModelSerializer):
    serializer_field_mapping = {
        model_field: STRICT_FIELDS.get(field, field)
        for model_field, field in drf.ModelSerializer.serializer_field_mapping.items()
    }
