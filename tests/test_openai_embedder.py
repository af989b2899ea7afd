"""OpenAICompatibleEmbedder against a real /v1/embeddings endpoint on loopback (served by the ONNX model)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from graphsift.embedding import OpenAICompatibleEmbedder
from graphsift.errors import ProviderError


@pytest.fixture
def endpoint(embedder):
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
            if body["model"] == "broken":
                self.send_response(500)
                self.end_headers()
                self.wfile.write(b"model exploded")
                return
            vectors = embedder.embed(body["input"]) * 3.0  # unnormalised on purpose
            data = [{"index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)][::-1]
            payload = json.dumps({"data": data}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    server.shutdown()


def test_vectors_match_the_local_model_in_order_and_normalised(endpoint, embedder):
    url, seen = endpoint
    remote = OpenAICompatibleEmbedder(url, "minilm", api_key="secret", batch_size=2)
    texts = ["disk failure on datanode", "dark mode", "namenode out of memory"]
    vectors = remote.embed(texts)
    assert remote.dim == 384
    assert np.allclose(vectors, embedder.embed(texts), atol=1e-5)
    assert seen[0]["path"] == "/v1/embeddings" and seen[0]["auth"] == "Bearer secret"
    assert all(len(call["body"]["input"]) <= 2 for call in seen)


def test_endpoint_errors_become_provider_errors(endpoint):
    url, _ = endpoint
    with pytest.raises(ProviderError, match="answered 500"):
        OpenAICompatibleEmbedder(url, "broken").embed(["x"])
    with pytest.raises(ProviderError, match="failed"):
        OpenAICompatibleEmbedder("http://127.0.0.1:9/v1", "m", timeout=2).embed(["x"])
