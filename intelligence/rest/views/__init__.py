"""Intelligence's REST views, one module per part: `agents`, `runs`, `feedback`."""

from . import agents, feedback, runs

__all__ = ["agents", "feedback", "runs"]
