"""Brain's REST views, one module per part: `search` (search, ask), `formation` (the write surfaces and a
memory's graph neighbours), `client_brain` (the Client Brain API)."""

from . import client_brain, formation, search

__all__ = ["client_brain", "formation", "search"]
