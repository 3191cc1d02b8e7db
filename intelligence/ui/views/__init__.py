"""The Intelligence pages, one module per part: `agents` (the agents list, the Intelligence tab, memories,
learning settings, budgets, the context preview and traces), `feedback` (Conversations and Suggestions),
`runs` (an action agent's Runs page)."""

from . import agents, feedback, runs

__all__ = ["agents", "feedback", "runs"]
