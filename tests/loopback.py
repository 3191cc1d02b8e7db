"""A real HTTP server on loopback standing in for an external OpenAI-compatible API (never a mock object).

    with LoopbackOpenAI() as server:
        server.chat_answers.append({"memories": [...]})   # JSON object the next chat completion returns
        settings.BRAIN_LLM_PROVIDER = server.provider_settings()
        ...
        server.requests  # every request body received, parsed

Chat completions answer with the queued JSON objects in order (the last one repeats); embeddings answer
with a deterministic vector per input unless `embedding_fn` is set. `fail_next` makes the next N
requests answer HTTP 500.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class LoopbackOpenAI:
    def __init__(self, api_key: str = "test-key"):
        self.api_key = api_key
        self.chat_answers: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.fail_next = 0
        self.embedding_fn = None
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def provider_settings(self, api_key: str | None = "test-key") -> dict[str, Any]:
        return {
            "BACKEND": "brain.providers.OpenAICompatibleProvider",
            "BASE_URL": self.base_url,
            "MODEL": "loopback-model",
            "API_KEY": api_key or "",
        }

    def _embed(self, text: str, dimensions: int) -> list[float]:
        if self.embedding_fn:
            return self.embedding_fn(text, dimensions)
        digest = hashlib.sha256(text.encode()).digest()
        return [((digest[i % len(digest)] / 255.0) - 0.5) for i in range(dimensions)]

    def __enter__(self) -> LoopbackOpenAI:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                outer.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                if self.headers.get("Authorization") != f"Bearer {outer.api_key}":
                    return self._send(401, {"error": {"message": "bad key"}})
                if outer.fail_next > 0:
                    outer.fail_next -= 1
                    return self._send(500, {"error": {"message": "injected failure"}})
                if self.path.endswith("/chat/completions"):
                    if not outer.chat_answers:
                        return self._send(500, {"error": {"message": "no answer queued"}})
                    answer = (
                        outer.chat_answers.pop(0) if len(outer.chat_answers) > 1 else outer.chat_answers[0]
                    )
                    content = answer if isinstance(answer, str) else json.dumps(answer)
                    return self._send(
                        200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
                    )
                if self.path.endswith("/embeddings"):
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    dims = int(body.get("dimensions", 384))
                    data = [{"index": i, "embedding": outer._embed(t, dims)} for i, t in enumerate(inputs)]
                    return self._send(200, {"data": data, "model": body.get("model")})
                return self._send(404, {"error": {"message": "unknown path"}})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
