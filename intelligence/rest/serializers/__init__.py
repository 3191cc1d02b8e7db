"""Intelligence's REST shapes, one module per part: `agents` (agents, agent memories, the runtime context
request) and `runs` (conversations, runs, proposed actions, outcomes, verdicts)."""

from . import agents, runs

__all__ = ["agents", "runs"]
