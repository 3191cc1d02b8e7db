"""The OpenAPI schema tells the truth about errors: every operation documents the error answers it can give.

drf-spectacular documents what a view's extend_schema names, usually the success alone. This AutoSchema adds
the JSON error envelope (config.rest) under each status an operation can answer, whatever the view:
400 (a bad query string or body), 401 (no or a bad key), 403 (the role), 429 (the per-key throttle); 404
where the path or the body names an object; 413 where there is a body. Statuses only some views answer (405 for a
suspended feature, 409, 422) are named by those views' extend_schema.
"""

from collections.abc import Callable
from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance
from drf_spectacular.utils import inline_serializer

from . import serializers

ERROR_DESCRIPTIONS = {
    "400": "The request is invalid: the message says what to fix, `fields` marks the fields.",
    "401": "No API key (or session) was sent, or it is not valid.",
    "403": "The key's or member's role does not allow this.",
    "404": "Not found (another tenant's object is not found either).",
    "413": "The request body is larger than the limit.",
    "429": "Too many requests with this key; `Retry-After` says when to try again.",
}


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    fields = serializers.DictField()


class ErrorSerializer(serializers.Serializer):
    """Every error the API answers: {"error": {"code", "message", "fields"}}."""

    error = ErrorDetailSerializer()


# A string DRF trims before it checks that it is not blank holds a character other than whitespace.
NON_BLANK = r"\S"


def request_rule(rule: dict[str, Any]) -> Callable[[type], type]:
    """Class decorator: a rule across a serializer's fields that its validate() applies, stated in its request
    schema (under `allOf`), so a client, and the schema fuzz, knows that input breaking it is a 400 before
    sending it. Rules add up along subclasses. The helpers below write the rules the API has."""

    def decorate(serializer_class: type) -> type:
        serializer_class.request_rules = (*getattr(serializer_class, "request_rules", ()), rule)
        return serializer_class

    return decorate


def exactly_one_of(*names: str) -> dict[str, Any]:
    return {"oneOf": [{"required": [name]} for name in names]}


def one_not_blank(*names: str) -> dict[str, Any]:
    """At least one of `names` is sent and not blank."""
    return {"anyOf": [{"required": [name], "properties": {name: {"pattern": NON_BLANK}}} for name in names]}


def only_with(name: str, needed: str) -> dict[str, Any]:
    """`name` is sent only together with `needed`."""
    return {"anyOf": [{"not": {"required": [name]}}, {"required": [needed]}]}


def instead_of(name: str, *blank: str) -> dict[str, Any]:
    """When `name` is sent, each of `blank` is absent or empty."""
    return {
        "anyOf": [{"not": {"required": [name]}}, {"properties": {other: {"maxLength": 0} for other in blank}}]
    }


class BrainAutoSchema(AutoSchema):
    def _map_serializer(self, serializer, direction, bypass_extensions=False):
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        rules = getattr(force_instance(serializer), "request_rules", ())
        if direction == "request" and rules:
            schema["allOf"] = [*schema.get("allOf", []), *rules]
        return schema

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        """DRF's checks the schema did not state, on request fields: a trimmed string that may not be blank has
        a character other than whitespace; a list that may not be empty has an item."""
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction != "request" or not schema or "$ref" in schema:
            return schema
        if (
            isinstance(field, serializers.CharField)
            and field.trim_whitespace
            and not field.allow_blank
            and not any(isinstance(v, RegexValidator) for v in field.validators)  # its pattern says more
        ):
            schema["pattern"] = NON_BLANK
        if isinstance(field, serializers.ListField) and not field.allow_empty:
            schema["minItems"] = max(schema.get("minItems", 0), 1)
        return schema

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        codes = ["400", "401", "403", "429"]
        has_body = self.method in ("POST", "PUT", "PATCH")
        if "{" in self.path or has_body:  # a body may name a parent (an agent, a ticket) that is not found
            codes.append("404")
        if has_body:
            codes.append("413")
        for code in codes:
            if code not in responses:
                responses[code] = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                responses[code]["description"] = ERROR_DESCRIPTIONS[code]
        return responses


def page_of(item_serializer, *, name: str, offset: bool = True):
    """The schema of a page answer {"count", ["offset", "limit",] "results": [...]} of `item_serializer` rows."""
    fields = {"count": serializers.IntegerField(), "results": item_serializer(many=True)}
    if offset:
        fields |= {"offset": serializers.IntegerField(), "limit": serializers.IntegerField()}
    return inline_serializer(name=name, fields=fields)
