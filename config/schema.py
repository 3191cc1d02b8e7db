"""The OpenAPI schema tells the truth about errors: every operation documents the error answers it can give.

drf-spectacular documents what a view's extend_schema names, usually the success alone. This AutoSchema adds
the JSON error envelope (config.rest) under each status an operation can answer, whatever the view:
400 (a bad query string or body), 401 (no or a bad key), 403 (the role), 429 (the per-key throttle); 404
where the path or the body names an object; 413 where there is a body. Statuses only some views answer (405 for a
suspended feature, 409, 422) are named by those views' extend_schema.
"""

from drf_spectacular.openapi import AutoSchema
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


class BrainAutoSchema(AutoSchema):
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
