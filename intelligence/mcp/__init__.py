"""The Brain's agent surface as Model Context Protocol tools and resources (the `mcp` SDK's MCPServer).

Every tool is the REST endpoint it names, called in-process through Django's ASGI handler with the caller's
API key (`rest_client.py`): the same authentication, role check, tenant scoping, validation, throttling and error
shape as /api/v1, with no second copy of any of it. An error answer becomes a tool error whose message
carries the API's code, message and fields.

Transports: stdio (`manage.py brain_mcp --key brn_...`, every call made with that key) and streamable HTTP
inside the product at /mcp (`config/asgi.py`; each request authenticated by its own
`Authorization: Bearer brn_...` header, checked before the MCP layer sees it).
"""

from .server import build_server

__all__ = ["build_server"]
