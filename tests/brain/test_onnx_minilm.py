"""The ONNX MiniLM embedder: exported offline from the package's weights, torch's vectors under torch's name
(int8 under its own), and one intra-op thread per process unless told otherwise."""

import socket

import numpy as np
import pytest

from brain.embedders import (
    EmbedderError,
    SentenceTransformerEmbedder,
    clear_query_cache,
    embed_query,
    embed_search_query,
    minilm_model_path,
)
from brain.onnx_minilm import OnnxMiniLMEmbedder, exported_path, onnx_export

TEXTS = [
    "What did Caroline research?",
    "hi",
    "Caroline (8 May 2023): I went to a LGBTQ support group yesterday and it was so powerful. "
    "[shared a photo: a group of people holding a rainbow flag]",
    "Refunds for damaged orders are issued within 30 days of delivery.",
    "tracking number " * 200,  # past the 256-token window: truncated the same way
]


@pytest.fixture(scope="module")
def torch_vectors():
    return np.asarray(SentenceTransformerEmbedder().embed(TEXTS))


def cosines(a, b) -> np.ndarray:
    return (np.asarray(a) * np.asarray(b)).sum(axis=1)


def test_float32_export_gives_torchs_vectors_under_torchs_name(torch_vectors):
    embedder = OnnxMiniLMEmbedder()
    assert embedder.name == SentenceTransformerEmbedder.name  # stored rows stay valid
    batched = embedder.embed(TEXTS)
    one_by_one = [embedder.embed([text])[0] for text in TEXTS]  # padding in a batch changes nothing
    assert cosines(batched, torch_vectors).min() >= 0.999
    assert cosines(one_by_one, torch_vectors).min() >= 0.999


def test_int8_is_close_to_torch_but_stored_under_its_own_name(torch_vectors):
    embedder = OnnxMiniLMEmbedder(QUANTIZE="int8")
    assert embedder.name == "all-MiniLM-L6-v2-int8"
    similarity = cosines(embedder.embed(TEXTS), torch_vectors)
    assert similarity.min() >= 0.97
    assert similarity.min() < 0.999  # it moves vectors: sharing torch's name would mix two models' rows


def test_queries_are_encoded_by_the_int8_export_against_float32_rows(torch_vectors):
    embedder = OnnxMiniLMEmbedder(QUERY_QUANTIZE="int8")
    encoder = embedder.query_encoder()
    assert embedder.name == "all-MiniLM-L6-v2" and encoder.name == "all-MiniLM-L6-v2-int8"
    assert encoder is embedder.query_encoder()  # one encoder per embedder, loaded once
    similarity = cosines(encoder.embed(TEXTS), torch_vectors)
    assert 0.97 <= similarity.min() < 0.999  # the same space as the stored rows, moved a little
    # Without the option, or when rows are int8 already, queries use the rows' own model.
    assert OnnxMiniLMEmbedder().query_encoder().name == "all-MiniLM-L6-v2"
    int8 = OnnxMiniLMEmbedder(QUANTIZE="int8", QUERY_QUANTIZE="int8")
    assert int8.query_encoder() is int8
    with pytest.raises(EmbedderError, match="QUERY_QUANTIZE must be one of"):
        OnnxMiniLMEmbedder(QUERY_QUANTIZE="int4")


def test_a_search_query_is_cached_apart_from_the_candidates_vectors(settings):
    settings.BRAIN_EMBEDDER = {
        "BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder",
        "QUERY_QUANTIZE": "int8",
    }
    clear_query_cache()
    text = "where is my parcel from Leeds"
    query_vector, model = embed_search_query(text)
    assert model == "all-MiniLM-L6-v2"  # compared with the rows of the float32 model
    stored = embed_query(text)  # a candidate's vector, stored: float32, not the cached query's int8 one
    float32 = OnnxMiniLMEmbedder().embed([text])[0]
    int8 = OnnxMiniLMEmbedder(QUANTIZE="int8").embed([text])[0]
    assert np.allclose(stored, float32, atol=1e-6) and np.allclose(query_vector, int8, atol=1e-6)
    assert not np.allclose(query_vector, stored, atol=1e-4)
    assert embed_search_query(text)[0] == query_vector  # cached
    clear_query_cache()


def test_export_is_offline_from_the_package_files(tmp_path, monkeypatch):
    connect = socket.socket.connect

    def loopback_only(sock, address):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(address, tuple) and host not in ("127.0.0.1", "::1", "localhost"):
            raise AssertionError(f"the export tried to reach {address}")
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", loopback_only)
    path = onnx_export(minilm_model_path(), "", tmp_path)
    assert path == exported_path(minilm_model_path(), "", tmp_path) and path.stat().st_size > 50e6
    assert onnx_export(minilm_model_path(), "", tmp_path) == path  # idempotent: kept, not exported again
    assert not [p for p in tmp_path.iterdir() if ".partial" in p.name]
    vector = OnnxMiniLMEmbedder(ONNX_DIR=str(tmp_path)).embed(["where is my parcel"])[0]
    assert len(vector) == 384


def test_one_intra_op_thread_by_default(settings):
    settings.BRAIN_EMBEDDER_THREADS = 1
    options = OnnxMiniLMEmbedder().session.get_session_options()
    assert options.intra_op_num_threads == 1
    assert OnnxMiniLMEmbedder(THREADS=2).session.get_session_options().intra_op_num_threads == 2


def test_loading_the_torch_model_caps_torchs_threads(settings):
    import torch

    settings.BRAIN_EMBEDDER_THREADS = 1
    torch.set_num_threads(2)  # what torch picks on this machine: a thread per core
    SentenceTransformerEmbedder().embed(["load the model"])
    assert torch.get_num_threads() == 1
