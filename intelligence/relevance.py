"""Which of an agent's memories a conversation makes relevant (spec: Runtime Injection: "Preferences and
patterns are injected when the runtime determines they are relevant to the current conversation").

The engine's hybrid score decides (`brain_api.recall_scores`, mode `BRAIN_CONTEXT_RELEVANCE["MODE"]`):

- meaning gates: a memory less similar to the conversation than `VECTOR_FLOOR` (cosine, the embedder's
  vectors) gets no relevance, whatever words it shares with it: "I would prefer a quick answer" does not make
  every preference that says "Prefer ..." relevant;
- words and meaning order: the fused score (full text + vector tier, reciprocal rank fusion) of the memories
  that pass the gate, so a paraphrase with no shared word ("my parcel has not arrived" for a delivery
  preference) is found by the vector tier alone;
- near the best: a preference scoring under `NEAR_BEST` times the best preference's score is left out (an
  absolute cosine means different things for differently worded preferences; the preferences the
  conversation is about stand out from the agent's others).

The floor and the ratio were chosen on the calibration half of a labelled set of conversation openings x
preferences (`brain_bench preference-relevance`, README); the agent's `preference_min_score` still applies
after them (runtime.py). They hold for the embedders named in `CALIBRATED_FOR` (all-MiniLM-L6-v2): with another
(the tests' hashing embedder, an OpenAI-compatible model) relevance is by words until the benchmark is run with
it and the values set. Mode "fulltext" is the former rule: found by shared words. When the embedder cannot
answer, relevance falls back to words (full text) rather than failing the context call.
"""

from __future__ import annotations

from django.conf import settings

from brain import api as brain_api

STRENGTHS = ["hard_rule", "preference", "heuristic"]


def relevance_settings() -> dict:
    return {"MODE": "fulltext", "VECTOR_FLOOR": None, "NEAR_BEST": 0.0, "CALIBRATED_FOR": ()} | dict(
        getattr(settings, "BRAIN_CONTEXT_RELEVANCE", None) or {}
    )


def memory_relevance(
    *, tenant_id: int, agent_id: int, query: str, preference_ids: set[int], config: dict | None = None
) -> dict[int, float]:
    """{memory id: relevance} of the agent's active injectable memories for this conversation (absent: 0).
    `preference_ids`: which of the agent's memories are preferences (the near-best cut applies to them)."""
    if not query.strip():
        return {}
    config = config or relevance_settings()
    common = {
        "tenant_id": tenant_id,
        "query": query[:2000],
        "scope_kind": "agent",
        "scope_ids": [str(agent_id)],
        "types": [brain_api.MemoryType.AGENT_MEMORY.value],
        "statuses": ["active"],
        # Notes are never injected, so they are not scored. Recall returns at most 100: an agent with more
        # matching memories than that scores only its best 100.
        "strengths": STRENGTHS,
        "limit": 100,
    }
    # Meaning decides only whether a preference is injected (rules always are, patterns by scope): an agent
    # without active preferences is scored by words, and its context call embeds no query.
    mode = config["MODE"] if preference_ids else "fulltext"
    if mode != "fulltext" and brain_api.get_embedder().name not in config["CALIBRATED_FOR"]:
        mode = "fulltext"  # a floor chosen on one model's similarities means nothing for another's
    try:
        scores = brain_api.recall_scores(mode=mode, vector_floor=config["VECTOR_FLOOR"], **common)
    except brain_api.EmbedderError:
        return brain_api.recall_scores(mode="fulltext", **common)
    return near_best(scores, preference_ids, float(config["NEAR_BEST"] or 0.0))


def near_best(scores: dict[int, float], preference_ids: set[int], ratio: float) -> dict[int, float]:
    """`scores` without the preferences that score under `ratio` times the best preference's score."""
    best = max((s for mid, s in scores.items() if mid in preference_ids), default=0.0)
    if ratio <= 0 or best <= 0:
        return scores
    floor = ratio * best
    return {mid: s for mid, s in scores.items() if mid not in preference_ids or s >= floor}
