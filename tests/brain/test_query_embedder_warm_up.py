"""A serving process loads the query embedder at start-up, before config.collector freezes what start-up
loaded (config/wsgi.py calls `brain.api.query_embedder_warm_up`)."""

from brain.api import query_embedder_warm_up


def test_start_up_loads_the_query_embedder_before_the_freeze(settings):
    from brain.onnx_minilm import _SESSIONS

    settings.BRAIN_EMBEDDER = {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder"}
    _SESSIONS.clear()
    query_embedder_warm_up()
    assert _SESSIONS  # the model is loaded: install() now freezes it with the rest of start-up


def test_an_embedder_that_cannot_load_does_not_stop_start_up(settings, tmp_path, caplog):
    settings.BRAIN_EMBEDDER = {
        "BACKEND": "brain.embedders.SentenceTransformerEmbedder",
        "MODEL_PATH": str(tmp_path / "no-model-here"),
    }
    query_embedder_warm_up()
    assert "query embedder not loaded at start-up" in caplog.text
