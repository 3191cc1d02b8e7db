"""Brain's writes, gathered from the parts that own them: the room to open first.

Every write with side effects lives with its part and is re-exported here; code inside brain imports the part
itself, and the other apps go through the facade (`brain.api`), never here.

- formation/ (services.py, edits.py): `promote()` / `promote_many()`, the only way a memory is written (gate,
  judge, duplicate backstop), and the operator edits `memory_update`, `memory_set_status`, `memory_supersede`,
  `note_promote` (an agent's note made an operator memory, linked `derived_from` it);
- client_brain/producers.py: `learn_from_evidence`, a resolved ticket's evidence → typed memories → promote();
- verdicts.py: `apply_evaluator_verdict`, a verdict on a trace, run or conversation nudges the confidence of what
  its traces injected, at most one delta per trace and memory;
- activity.py: `memories_record_activity`, the recorded activity of memories put in a prompt;
- embedding.py: `embedding_enqueue`, rows' vectors computed in Celery after commit.
"""

from .activity import memories_record_activity
from .client_brain.producers import learn_from_evidence
from .embedding import embedding_enqueue
from .formation import promote, promote_many
from .formation.edits import memory_set_status, memory_supersede, memory_update, note_promote
from .verdicts import apply_evaluator_verdict

__all__ = [
    "apply_evaluator_verdict",
    "embedding_enqueue",
    "learn_from_evidence",
    "memories_record_activity",
    "memory_set_status",
    "memory_supersede",
    "memory_update",
    "note_promote",
    "promote",
    "promote_many",
]
