"""OpenAICompatibleEmbedder against a real /v1/embeddings endpoint on loopback (served by the ONNX model)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.fake_endpoint import json_endpoint

from graphlore.embedding import OpenAICompatibleEmbedder
from graphlore.errors import ProviderError


@pytest.fixture
def endpoint(embedder):
    """A /v1/embeddings endpoint served by the local model (unnormalised, out of order on purpose)."""

    def answer(path: str, body: dict):
        if body["model"] == "broken":
            return 500, b"model exploded"
        vectors = embedder.embed(body["input"]) * 3.0
        return 200, {"data": [{"index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)][::-1]}

    with json_endpoint(answer) as found:
        yield found


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
