"""The Intelligence pages, one module per part: `agents` (the agents list, the Intelligence tab, memories,
learning settings, budgets, the context preview and traces), `feedback` (Conversations and Suggestions),
`notes` (what the agent wrote itself, and promoting a note), `runs` (an action agent's Runs page)."""

from . import agents, feedback, notes, runs

__all__ = ["agents", "feedback", "notes", "runs"]
