"""The public module of `brain`: the only thing `tickets` and `intelligence` import from it.

It takes and returns plain typed values (dataclasses), never querysets (DESIGN.md, "Layout").
"""

# Client Brain learning (tickets → evidence → producers → promote()).
from brain.client_brain.producers import (  # noqa: E402,F401
    LearningResult,
    TicketEvidence,
    learn_from_evidence,
    learning_unusable_reason,
)
from brain.providers import ProviderError  # noqa: E402,F401

# Recall: hybrid retrieval with explanations (brain/retrieval.py).
from brain.retrieval import RecalledMemory, RecallInputError, Reranker, recall  # noqa: E402,F401

# Client Brain recall, continuation, the copilot memory tool (brain/client_brain/).
from brain.client_brain.copilot import client_brain_copilot  # noqa: E402,F401
from brain.client_brain.recall import client_brain_context  # noqa: E402,F401
from brain.client_brain.types import ClientBrainContext, ContextMemory, CopilotMemory  # noqa: E402,F401
