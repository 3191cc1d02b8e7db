"""The ASGI entry point: the Django product, and the MCP server at /mcp (intelligence/mcp/http.py).

Serve it with `uvicorn config.asgi:application` (or gunicorn with uvicorn workers) to offer agents MCP over
streamable HTTP beside the REST API; the WSGI entry point (config/wsgi.py) serves everything but /mcp.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
django_application = get_asgi_application()

from intelligence.mcp.http import PATH, mcp_http_app  # noqa: E402  (needs the apps loaded)


def build_application():
    """Django, with /mcp routed to a new MCP app (its session manager runs once per server lifespan)."""
    mcp_application = mcp_http_app()

    async def application(scope, receive, send):
        if scope["type"] == "lifespan":  # the MCP session manager starts and stops with the server
            await mcp_application(scope, receive, send)
        elif scope["type"] == "http" and (scope["path"] == PATH or scope["path"].startswith(PATH + "/")):
            await mcp_application(scope, receive, send)
        else:
            await django_application(scope, receive, send)

    return application


application = build_application()
