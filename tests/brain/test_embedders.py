"""The embedder contract (decision 6), run against every implementation: the real MiniLM model, the
OpenAI-compatible client against a real HTTP server on loopback, and the hashing fallback."""

import math

import numpy as np
import pytest
from django.core.cache import cache

from brain.embedders import (
    EMBEDDING_DIMENSIONS,
    EmbedderError,
    EmbedderInputError,
    EmbedderKeyMissing,
    HashingEmbedder,
    OpenAICompatibleEmbedder,
    SentenceTransformerEmbedder,
    TransientEmbedderError,
    clear_query_cache,
    embed_query,
    get_embedder,
)
from brain.onnx_minilm import OnnxMiniLMEmbedder
from tests.loopback import LoopbackOpenAI


def hashing_vector_scaled(text: str, dimensions: int) -> list[float]:
    """What the loopback endpoint answers: a meaningful vector, deliberately not normalised (length 3)."""
    return (3 * np.asarray(HashingEmbedder().embed([text])[0])).tolist()


@pytest.fixture
def loopback():
    with LoopbackOpenAI() as server:
        server.embedding_fn = hashing_vector_scaled
        yield server


def openai_settings(server: LoopbackOpenAI, **extra) -> dict:
    return {
        "BACKEND": "brain.embedders.OpenAICompatibleEmbedder",
        "BASE_URL": server.base_url,
        "MODEL": "loopback-embed",
        "API_KEY": "test-key",
        **extra,
    }


@pytest.fixture(autouse=True)
def fresh_query_cache():
    clear_query_cache()
    cache.clear()
    yield
    clear_query_cache()


@pytest.fixture(params=["minilm", "minilm-onnx", "minilm-int8", "openai", "hashing"])
def embedder(request):
    if request.param == "minilm":
        yield SentenceTransformerEmbedder()
    elif request.param == "minilm-onnx":
        yield OnnxMiniLMEmbedder()
    elif request.param == "minilm-int8":
        yield OnnxMiniLMEmbedder(QUANTIZE="int8")
    elif request.param == "openai":
        with LoopbackOpenAI() as server:
            server.embedding_fn = hashing_vector_scaled
            yield OpenAICompatibleEmbedder(**openai_settings(server))
    else:
        yield HashingEmbedder()


TEXTS = [
    "Refunds for damaged orders are issued within 30 days of delivery.",
    "Customers may request a refund on a damaged order up to 30 days after it arrives.",
    "Our office dog is called Rex and he likes tennis balls.",
    "Always greet the customer by first name and sign off as the Acme team.",
    "Shipping to Canada takes five to seven business days.",
]


class TestEmbedderContract:
    def test_has_a_stable_name_and_384_dimensions(self, embedder):
        assert embedder.name and isinstance(embedder.name, str)
        assert embedder.dimensions == EMBEDDING_DIMENSIONS == 384
        vectors = embedder.embed(TEXTS[:2])
        assert [len(v) for v in vectors] == [384, 384]
        assert all(isinstance(x, float) for x in vectors[0])

    def test_vectors_are_l2_normalised(self, embedder):
        for vector in embedder.embed(TEXTS):
            assert math.isclose(float(np.linalg.norm(vector)), 1.0, abs_tol=1e-5)

    def test_same_text_gives_the_same_vector(self, embedder):
        alone = embedder.embed([TEXTS[0]])[0]
        again = embedder.embed([TEXTS[0]])[0]
        in_a_batch = embedder.embed(TEXTS)[0]
        assert np.allclose(alone, again, atol=1e-6)
        assert np.allclose(alone, in_a_batch, atol=1e-5)

    def test_similar_texts_are_closer_than_unrelated_ones(self, embedder):
        refund_a, refund_b, dog, greeting, shipping = (np.asarray(v) for v in embedder.embed(TEXTS))
        similar = float(refund_a @ refund_b)
        assert similar > float(refund_a @ dog)
        assert similar > float(refund_a @ greeting)
        assert similar > float(refund_a @ shipping)

    def test_batching_preserves_input_order(self, embedder):
        embedder.batch_size = 2  # 5 texts: batches of 2, 2, 1
        batched = embedder.embed(TEXTS)
        one_by_one = [embedder.embed([text])[0] for text in TEXTS]
        assert len(batched) == len(TEXTS)
        for got, expected in zip(batched, one_by_one, strict=True):
            assert np.allclose(got, expected, atol=1e-5)

    def test_empty_input_gives_no_vectors_and_blank_text_is_refused(self, embedder):
        assert embedder.embed([]) == []
        with pytest.raises(EmbedderInputError, match="position 1 is blank"):
            embedder.embed(["a real sentence", "   "])


class TestOpenAICompatibleEmbedder:
    def test_sends_model_dimensions_key_and_one_request_per_batch(self, loopback):
        embedder = OpenAICompatibleEmbedder(**openai_settings(loopback, BATCH_SIZE=2))
        embedder.embed(TEXTS)
        assert [len(r["body"]["input"]) for r in loopback.requests] == [2, 2, 1]
        first = loopback.requests[0]
        assert first["path"] == "/v1/embeddings"
        assert first["body"]["model"] == "loopback-embed"
        assert first["body"]["dimensions"] == 384
        assert first["auth"] == "Bearer test-key"
        assert embedder.name == "openai:loopback-embed"

    def test_server_errors_are_transient(self, loopback):
        loopback.fail_next = 1
        embedder = OpenAICompatibleEmbedder(**openai_settings(loopback))
        with pytest.raises(TransientEmbedderError, match="HTTP 500"):
            embedder.embed(["hello"])
        assert len(embedder.embed(["hello"])[0]) == 384  # the next call works

    def test_a_refused_key_is_not_transient_and_says_what_to_fix(self, loopback):
        embedder = OpenAICompatibleEmbedder(**openai_settings(loopback, API_KEY="wrong"))
        with pytest.raises(EmbedderError, match="BRAIN_EMBEDDER_API_KEY") as caught:
            embedder.embed(["hello"])
        assert not caught.value.transient

    def test_a_missing_key_fails_before_any_request(self, loopback):
        embedder = OpenAICompatibleEmbedder(**openai_settings(loopback, API_KEY=""))
        with pytest.raises(EmbedderKeyMissing):
            embedder.embed(["hello"])
        assert loopback.requests == []

    def test_a_model_ignoring_dimensions_is_refused(self, loopback):
        loopback.embedding_fn = lambda text, dimensions: [0.1] * 1536
        embedder = OpenAICompatibleEmbedder(**openai_settings(loopback))
        with pytest.raises(EmbedderError, match="ignored dimensions=384"):
            embedder.embed(["hello"])

    def test_an_unreachable_endpoint_is_transient(self):
        embedder = OpenAICompatibleEmbedder(BASE_URL="http://127.0.0.1:9/v1", API_KEY="k", TIMEOUT=2)
        with pytest.raises(TransientEmbedderError, match="failed"):
            embedder.embed(["hello"])


class TestChoosingAndCaching:
    def test_get_embedder_builds_the_configured_backend_once(self, settings, loopback):
        settings.BRAIN_EMBEDDER = {"BACKEND": "brain.embedders.HashingEmbedder"}
        assert isinstance(get_embedder(), HashingEmbedder)
        assert get_embedder() is get_embedder()
        settings.BRAIN_EMBEDDER = openai_settings(loopback)
        assert get_embedder().name == "openai:loopback-embed"

    def test_query_embeddings_are_cached_in_process_and_in_the_django_cache(self, settings, loopback):
        settings.BRAIN_EMBEDDER = openai_settings(loopback)
        first = embed_query("where is my refund")
        assert embed_query("where is my refund") == first
        assert len(loopback.requests) == 1
        clear_query_cache()  # another process: only the Django cache is shared
        assert embed_query("where is my refund") == first
        assert len(loopback.requests) == 1
        embed_query("a different question")
        assert len(loopback.requests) == 2

    def test_a_search_embeds_its_query_and_raises_its_errors_before_any_statement(
        self, settings, loopback, tenant
    ):
        from brain.search import recall
        from tests.brain.search.test_recall import remember

        settings.BRAIN_EMBEDDER = openai_settings(loopback)
        clear_query_cache()
        refund = remember(tenant, "Refunds are issued within 14 days", key="refund policy")
        loopback.fail_next = 1  # the query's embedding fails: the search says so, its transaction untouched
        with pytest.raises(TransientEmbedderError, match="HTTP 500"):
            recall(tenant_id=tenant.pk, query="when do refunds arrive", limit=3)
        found = recall(tenant_id=tenant.pk, query="when do refunds arrive", limit=3)
        assert [m.id for m in found] == [refund.id] and "vector" in found[0].explanation["tiers"]
        assert loopback.requests[-1]["body"]["input"] == ["when do refunds arrive"]  # embedded by the search

    def test_query_cache_is_keyed_by_model_so_a_switch_never_serves_a_stale_vector(self, settings, loopback):
        loopback.embedding_fn = lambda text, dimensions: [1.0] + [0.0] * (dimensions - 1)
        settings.BRAIN_EMBEDDER = openai_settings(loopback)
        assert embed_query("where is my refund")[:2] == [1.0, 0.0]
        settings.BRAIN_EMBEDDER = {"BACKEND": "brain.embedders.HashingEmbedder"}
        from_hashing = embed_query("where is my refund")
        assert np.allclose(from_hashing, HashingEmbedder().embed(["where is my refund"])[0], atol=1e-6)
        assert from_hashing[:2] != [1.0, 0.0]


class TestEmbedderSetting:
    """`BRAIN_EMBEDDER` in config/settings/brain.py, read from the environment."""

    def embedder_setting_with(self, monkeypatch, **env):
        import importlib

        import config.settings.brain as brain_settings

        for name in (
            "BRAIN_EMBEDDER",
            "BRAIN_EMBEDDER_QUERY_QUANTIZE",
            "BRAIN_EMBEDDER_BASE_URL",
            "BRAIN_EMBEDDER_MODEL",
            "BRAIN_EMBEDDER_API_KEY",
        ):
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        try:
            return dict(importlib.reload(brain_settings).BRAIN_EMBEDDER)  # reloading again resets it
        finally:
            monkeypatch.undo()
            importlib.reload(brain_settings)

    def test_defaults_to_minilm_on_onnx_runtime_when_the_embeddings_extra_is_installed(self, monkeypatch):
        setting = self.embedder_setting_with(monkeypatch)
        # Stored rows float32 (torch's vectors and name); search queries encoded by the int8 export.
        assert setting == {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder", "QUERY_QUANTIZE": "int8"}

    def test_queries_can_be_encoded_by_the_rows_float32_model(self, monkeypatch):
        setting = self.embedder_setting_with(monkeypatch, BRAIN_EMBEDDER_QUERY_QUANTIZE="")
        assert setting == {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder", "QUERY_QUANTIZE": ""}

    def test_minilm_names_torch_and_int8_the_quantised_onnx_model(self, monkeypatch):
        assert self.embedder_setting_with(monkeypatch, BRAIN_EMBEDDER="minilm") == {
            "BACKEND": "brain.embedders.SentenceTransformerEmbedder"
        }
        assert self.embedder_setting_with(monkeypatch, BRAIN_EMBEDDER="minilm-int8") == {
            "BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder",
            "QUANTIZE": "int8",
        }

    def test_openai_reads_base_url_model_and_key(self, monkeypatch):
        setting = self.embedder_setting_with(
            monkeypatch,
            BRAIN_EMBEDDER="openai",
            BRAIN_EMBEDDER_BASE_URL="http://127.0.0.1:8001/v1",
            BRAIN_EMBEDDER_MODEL="nomic-embed",
            BRAIN_EMBEDDER_API_KEY="secret",
        )
        assert setting == {
            "BACKEND": "brain.embedders.OpenAICompatibleEmbedder",
            "BASE_URL": "http://127.0.0.1:8001/v1",
            "MODEL": "nomic-embed",
            "API_KEY": "secret",
        }

    def test_hashing_needs_nothing_else(self, monkeypatch):
        setting = self.embedder_setting_with(monkeypatch, BRAIN_EMBEDDER="hashing")
        assert setting == {"BACKEND": "brain.embedders.HashingEmbedder"}

    def test_an_unknown_name_is_refused_with_the_valid_ones(self, monkeypatch):
        from django.core.exceptions import ImproperlyConfigured

        with pytest.raises(
            ImproperlyConfigured,
            match=r"one of \['hashing', 'minilm', 'minilm-int8', 'minilm-onnx', 'openai'\]",
        ):
            self.embedder_setting_with(monkeypatch, BRAIN_EMBEDDER="word2vec")


def test_query_embeddings_still_work_when_the_shared_cache_is_down(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
        }
    }
    settings.BRAIN_EMBEDDER = {"BACKEND": "brain.embedders.HashingEmbedder"}
    vector = embed_query("where is my parcel")
    assert np.allclose(vector, HashingEmbedder().embed(["where is my parcel"])[0], atol=1e-6)
