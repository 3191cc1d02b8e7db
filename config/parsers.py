"""The JSON parser every /api/v1 endpoint reads bodies with: a depth limit and string sanity at the edge.

Python's json module parses a document nested 100,000 levels deep by recursion (a `RecursionError`), and
accepts strings no column can hold: a NUL (PostgreSQL text and jsonb refuse it) or a lone UTF-16 surrogate
(not encodable as UTF-8). Such a body is the client's mistake, so it is a 400 with a message here, before
any serializer, service or database sees it, in object keys as in values.
"""

import io
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def json_problem(document: Any, max_depth: int) -> str | None:
    """What is wrong with a parsed JSON document (too deep, a NUL or a lone surrogate), or None.

    Walks iteratively, so a document deep enough to matter cannot exhaust the stack here either.
    """
    stack: list[tuple[Any, int, str]] = [(document, 1, "")]
    while stack:
        node, depth, where = stack.pop()
        if isinstance(node, str):
            problem = string_problem(node)
            if problem:
                return f"A string{where} {problem}."
        elif isinstance(node, dict | list):
            if depth > max_depth:
                return f"The JSON is nested more than {max_depth} levels deep; send a flatter document."
            if isinstance(node, dict):
                for key, value in node.items():
                    problem = string_problem(key)
                    if problem:
                        return f"An object key{where} {problem}."
                    stack.append((value, depth + 1, f" under the key {key!r}"))
            else:
                stack.extend((item, depth + 1, where) for item in node)
    return None


def string_problem(text: str) -> str | None:
    """Why a string cannot be stored ("contains a NUL character", ...), or None when it can."""
    if "\x00" in text:
        return "contains a NUL character (\\u0000), which cannot be stored"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (\\ud800-\\udfff), which is not valid Unicode"
    return None


class SafeJSONParser(JSONParser):
    """DRF's JSON parser, refusing documents nested deeper than API_MAX_JSON_DEPTH and unstorable strings."""

    def parse(self, stream, media_type=None, parser_context=None):
        max_depth = settings.API_MAX_JSON_DEPTH
        try:
            document = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(
                f"JSON parse error - the JSON is nested more than {max_depth} levels deep; "
                "send a flatter document."
            ) from None
        problem = json_problem(document, max_depth)
        if problem:
            raise ParseError(f"JSON parse error - {problem}")
        return document


def chunked_bodies(application):
    """Wrap a WSGI application so that a body sent chunked (Transfer-Encoding: chunked, no Content-Length) is
    read, not taken as empty: Django reads only CONTENT_LENGTH bytes of `wsgi.input`, and the server
    (gunicorn) hands a chunked body over decoded but without a length. At most one byte past
    DATA_UPLOAD_MAX_MEMORY_SIZE is read, so a larger body is still refused (413) without being held whole."""

    def read_chunked(environ, start_response):
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not environ.get("CONTENT_LENGTH"):
            body = environ["wsgi.input"].read(settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return application(environ, start_response)

    return read_chunked
