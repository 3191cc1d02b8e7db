"""Request and response shapes of brain's REST views, one module per part (as `brain.rest.views`)."""

from . import client_brain, formation, search

__all__ = ["client_brain", "formation", "search"]
