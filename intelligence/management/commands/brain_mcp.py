"""`manage.py brain_mcp --key brn_...`: the Brain's MCP server over stdio, every call made with that key.

An MCP client (an IDE, an agent framework) starts this command and talks MCP over its stdin/stdout.
"""

from django.core.management.base import BaseCommand, CommandError

from intelligence.mcp import build_server
from tickets.tenancy.models import ApiKey


class Command(BaseCommand):
    help = "Serve the Brain's MCP tools over stdio with one tenant API key."

    def add_arguments(self, parser):
        parser.add_argument("--key", required=True, help="The tenant API key (brn_<prefix>_<secret>).")

    def handle(self, *args, key: str, **options):
        if ApiKey.parse(key) is None:
            raise CommandError("That is not a Brain API key (they look like brn_<prefix>_<secret>).")
        build_server(default_key=key).run("stdio")
