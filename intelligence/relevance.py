"""Which of an agent's memories a conversation makes relevant (spec: Runtime Injection: "Preferences and
patterns are injected when the runtime determines they are relevant to the current conversation").

Mode "projected" (the default, `BRAIN_CONTEXT_RELEVANCE["MODE"]`) decides a preference by support intent
(intelligence/intent_projection.py): how probable the conversation makes the intents the preference's clauses
are about (the intent classifier), half and half with their similarity measured along the directions that tell
support intents apart, blended with the raw cosine (the projection). A preference at least
`PROJECTED_FLOOR` similar and at least `PROJECTED_NEAR_BEST` times as similar as the agent's most similar
preference is relevant, its relevance that similarity (the agent's `preference_min_score` compares with it);
the others are not. The raw cosine alone did not tell neighbouring support topics apart (refund / where is my
refund; edit / delete an account): precision and recall 0.64 / 0.72 on the test half, README. The query's
vector is computed once (recall's vector tier reuses it) and the preferences' stored vectors are read once
per memory state of the agent's scope (`brain_api.agent_memory_vectors`): a call adds three small
matrix-vector products, no statement (the preferences' intent affinities are kept with the vectors; a
preference's clauses are embedded once, cached per text). Rules and patterns keep the hybrid score below; a
preference without a vector yet keeps its words' score.

Mode "hybrid" (the former default) lets the engine's hybrid score decide (`brain_api.recall_scores`):

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

import numpy as np
from django.conf import settings

from brain import api as brain_api

from .intent_projection import clauses, intent_projection

STRENGTHS = ["hard_rule", "preference", "heuristic"]
DEFAULTS = {
    "MODE": "fulltext",
    "VECTOR_FLOOR": None,
    "NEAR_BEST": 0.0,
    "PROJECTED_FLOOR": 0.0,
    "PROJECTED_NEAR_BEST": 0.0,
    "CALIBRATED_FOR": (),
}


def relevance_settings() -> dict:
    return DEFAULTS | dict(getattr(settings, "BRAIN_CONTEXT_RELEVANCE", None) or {})


def memory_relevance(
    *, tenant_id: int, agent_id: int, query: str, preference_ids: set[int], config: dict | None = None
) -> dict[int, float]:
    """{memory id: relevance} of the agent's active injectable memories for this conversation (absent: 0).
    `preference_ids`: which of the agent's memories are preferences (the near-best cut applies to them)."""
    if not query.strip():
        return {}
    config = DEFAULTS | (config or relevance_settings())
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
    if mode == "projected" and intent_projection() is None:
        mode = "hybrid"  # no weights shipped: the engine's hybrid score, as before the projection
    try:
        if mode == "projected":
            return _projected(common, tenant_id, agent_id, preference_ids, config)
        scores = brain_api.recall_scores(mode=mode, vector_floor=config["VECTOR_FLOOR"], **common)
    except brain_api.EmbedderError:
        return brain_api.recall_scores(mode="fulltext", **common)
    return near_best(scores, preference_ids, float(config["NEAR_BEST"] or 0.0))


def _projected(common: dict, tenant_id: int, agent_id: int, preference_ids: set[int], config: dict) -> dict:
    """Mode "projected": the hybrid scores, the preferences with a vector decided by their similarity."""
    vector, model = brain_api.embed_search_query(common["query"].strip())
    scores = brain_api.recall_scores(
        mode="hybrid",
        vector_floor=config["VECTOR_FLOOR"],
        query_embedding=vector,
        embedding_model=model,
        **common,
    )
    similarities = preference_similarities(tenant_id, agent_id, preference_ids, np.asarray(vector), model)
    floor = float(config["PROJECTED_FLOOR"] or 0.0)
    kept = near_best(similarities, preference_ids, float(config["PROJECTED_NEAR_BEST"] or 0.0))
    decided = {mid: s for mid, s in scores.items() if mid not in similarities}
    return decided | {mid: s for mid, s in kept.items() if s >= floor}


# Per process: an agent's preference vectors stacked, with their projections, built once per memory
# state (brain's dict of the vectors is one object per state); a call then computes two matrix-vector products.
_PREFERENCE_MATRICES = brain_api.DerivedCache(
    "relevance-preference-matrices",
    bound=256,
    keyed_on="(tenant, agent, model), rebuilt when brain's cached preference vectors of the agent (one dict per"
    " memory state of the agent's scope) are another object",
)


def preference_similarities(
    tenant_id: int, agent_id: int, preference_ids: set[int], query: np.ndarray, model: str
) -> dict[int, float]:
    """{preference id: blended similarity to the query vector} of the preferences stored with a vector of
    `model` (the query encoder's rows: another model's vectors are not comparable)."""
    projection = intent_projection()
    stored = brain_api.agent_memory_vectors(tenant_id=tenant_id, agent_id=agent_id, strength="preference")

    def build() -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray | None]:
        ids = sorted(mid for mid, (stored_model, _) in stored.items() if stored_model == model)
        if not ids:
            return ids, np.zeros((0, 0), dtype=np.float32), np.zeros((0, 0), dtype=np.float32), None
        rows = np.stack([stored[mid][1] for mid in ids])
        return ids, rows, projection.project(rows), _affinities(tenant_id, agent_id, ids, projection)

    ids, rows, projected, affinities = _PREFERENCE_MATRICES.get((tenant_id, agent_id, model), stored, build)
    if not ids:
        return {}
    similarity = projection.similarity(query, rows, projected, affinities)
    return {mid: s for mid, s in zip(ids, similarity.tolist(), strict=True) if mid in preference_ids}


def _affinities(tenant_id: int, agent_id: int, ids: list[int], projection) -> np.ndarray | None:
    """Each preference's affinity to each intent (rows in the order of `ids`), from its clauses embedded by the
    query encoder (cached per text, so a preference's clauses are embedded once, not at every memory state);
    None when the shipped file holds no classifier."""
    if not projection.intent_share:
        return None
    texts = {m.id: m.text for m in brain_api.agent_memories_active(tenant_id=tenant_id, agent_id=agent_id)}
    rows = []
    for mid in ids:
        vectors = [brain_api.embed_search_query(clause)[0] for clause in clauses(texts.get(mid, ""))]
        rows.append(
            projection.affinity(np.asarray(vectors)) if vectors else np.zeros(len(projection.intents))
        )
    return np.stack(rows).astype(np.float32)


def near_best(scores: dict[int, float], preference_ids: set[int], ratio: float) -> dict[int, float]:
    """`scores` without the preferences that score under `ratio` times the best preference's score."""
    best = max((s for mid, s in scores.items() if mid in preference_ids), default=0.0)
    if ratio <= 0 or best <= 0:
        return scores
    floor = ratio * best
    return {mid: s for mid, s in scores.items() if mid not in preference_ids or s >= floor}
