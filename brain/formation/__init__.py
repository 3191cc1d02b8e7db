"""Formation: the gate, the judge and its duplicate backstop, and `promote()` (re-exported here)."""

from .edits import memory_set_status, memory_supersede, memory_update, note_promote
from .gate import GateReason, GateVerdict, gate_check, gate_reason_words
from .selectors import MemoryHistoryEntry, RejectionCount, gate_rejection_counts, memory_history
from .services import GateRejected, MemoryNotFound, MemorySuperseded, promote, promote_many

__all__ = [
    "GateReason",
    "GateRejected",
    "GateVerdict",
    "MemoryHistoryEntry",
    "MemoryNotFound",
    "MemorySuperseded",
    "RejectionCount",
    "gate_check",
    "gate_reason_words",
    "gate_rejection_counts",
    "memory_history",
    "memory_set_status",
    "memory_supersede",
    "memory_update",
    "note_promote",
    "promote",
    "promote_many",
]
