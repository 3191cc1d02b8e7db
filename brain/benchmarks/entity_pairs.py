"""Different facts stay different: the labelled entity-pair corpus replayed through `promote()`.

Each pair of brain/formation/corpora/entity_pairs.jsonl goes into a fresh scope of its surface: an
agent's `memory_append` notes, an operator's agent memories (the Intelligence tab), or an App's lessons.
Its first text is promoted, then its second; the pair was merged when the second left no row of its
own. Entity-swapped pairs ("... Alice Morgan ..." / "... Brian Chen ...") must never merge (a fact
lost); paraphrases of one fact should (else a near duplicate). Used by `brain_bench formation` and by
tests/brain/formation/test_entity_pairs.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from brain.formation import promote
from brain.models import BrainScopeKind, MemoryCategory, MemoryStrength, MemoryType, WriteSurface
from brain.types import MemoryCandidate

CORPUS = Path(__file__).resolve().parent.parent / "formation" / "corpora" / "entity_pairs.jsonl"


@dataclass(frozen=True)
class PairFigures:
    entity_pairs: int
    entity_pairs_merged: int
    paraphrase_pairs: int
    paraphrase_pairs_merged: int
    merged_entity_examples: tuple[str, ...]


def load_pairs() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


def _candidate(tenant_id: int, surface: str, scope_id: str, text: str) -> MemoryCandidate:
    common = {"tenant_id": tenant_id, "text": text, "actor": "process:entity-pairs"}
    if surface == "memory_append":
        return MemoryCandidate(
            **common,
            type=MemoryType.NOTE,
            surface=WriteSurface.MEMORY_APPEND,
            scope_kind=BrainScopeKind.AGENT,
            scope_id=scope_id,
            strength=MemoryStrength.CONTEXT_NOTE,
        )
    if surface == "agent_memory":
        return MemoryCandidate(
            **common,
            type=MemoryType.AGENT_MEMORY,
            surface=WriteSurface.OPERATOR,
            scope_kind=BrainScopeKind.AGENT,
            scope_id=scope_id,
            strength=MemoryStrength.PREFERENCE,
            category=MemoryCategory.FACT,
            skip_judge=True,
        )
    return MemoryCandidate(
        **common,
        type=MemoryType.LESSON,
        surface=WriteSurface.APP_LESSON,
        scope_kind=BrainScopeKind.APP,
        scope_id=scope_id,
        template=text,
    )


def replay_pairs(tenant_id: int, pairs: list[dict], *, prefix: str = "pair") -> PairFigures:
    """Promote each pair into its own scope and count the merged ones. Writes rows for `tenant_id`."""
    merged = {"entity": 0, "paraphrase": 0}
    counts = {"entity": 0, "paraphrase": 0}
    examples: list[str] = []
    for index, pair in enumerate(pairs):
        scope_id = f"{prefix}-{index}"
        first = promote(_candidate(tenant_id, pair["surface"], scope_id, pair["a"]))
        second = promote(_candidate(tenant_id, pair["surface"], scope_id, pair["b"]))
        if not first.written or not second.written:
            raise RuntimeError(f"the gate refused a corpus text: {first.reason or second.reason}: {pair}")
        counts[pair["kind"]] += 1
        if second.result == "reinforced" and second.memory_id == first.memory_id:
            merged[pair["kind"]] += 1
            if pair["kind"] == "entity":
                examples.append(f"{pair['surface']}: {pair['a']} / {pair['b']}")
    return PairFigures(
        entity_pairs=counts["entity"],
        entity_pairs_merged=merged["entity"],
        paraphrase_pairs=counts["paraphrase"],
        paraphrase_pairs_merged=merged["paraphrase"],
        merged_entity_examples=tuple(examples[:5]),
    )
