"""Settings, the strict request contract and the bundled embedder."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import Field

from graphlore.config import Settings
from graphlore.contract import Request, parse_request
from graphlore.embedding import ONNX_MODEL_NAME, OnnxEmbedder, OpenAICompatibleEmbedder, build_embedder
from graphlore.errors import ConfigError, InvalidInput, ProviderError


class Example(Request):
    name: str
    limit: int = Field(10, ge=1)


def test_parse_request_rejects_unknown_fields_and_names_valid_ones():
    with pytest.raises(InvalidInput) as exc:
        parse_request(Example, {"name": "x", "lmit": 3})
    assert "unknown field 'lmit'" in exc.value.message
    assert "Valid fields: name, limit?" in exc.value.message


def test_parse_request_reports_wrong_type_missing_field_and_non_object():
    with pytest.raises(InvalidInput, match="field 'limit'"):
        parse_request(Example, {"name": "x", "limit": "many"})
    with pytest.raises(InvalidInput, match="missing required field 'name'"):
        parse_request(Example, {})
    with pytest.raises(InvalidInput, match="expected an object"):
        parse_request(Example, ["name"])
    assert parse_request(Example, {"name": "x"}).limit == 10


def test_settings_from_env_and_toml(tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text('embed_threads = 2\nllm_model = "m"\n')
    s = Settings.load(env={"GRAPHLORE_HOME": str(home), "GRAPHLORE_EMBED_BATCH_SIZE": "8"})
    assert (s.home, s.embed_threads, s.embed_batch_size, s.llm_model) == (home, 2, 8, "m")


def test_settings_errors_name_the_fix(tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("colour = 1\n")
    with pytest.raises(ConfigError, match="unknown settings \\['colour'\\]"):
        Settings.load(env={"GRAPHLORE_HOME": str(home)})
    with pytest.raises(ConfigError, match="GRAPHLORE_EMBEDDER"):
        Settings.load(env={"GRAPHLORE_HOME": str(tmp_path), "GRAPHLORE_EMBEDDER": "word2vec"})
    with pytest.raises(ConfigError, match="EMBEDDER_URL"):
        Settings.load(env={"GRAPHLORE_HOME": str(tmp_path), "GRAPHLORE_EMBEDDER": "openai"})
    with pytest.raises(ConfigError, match="integer"):
        Settings.load(env={"GRAPHLORE_HOME": str(tmp_path), "GRAPHLORE_EMBED_THREADS": "two"})


def test_build_embedder_is_lazy_and_picks_the_configured_kind(tmp_path):
    onnx = build_embedder(Settings(home=tmp_path))
    assert isinstance(onnx, OnnxEmbedder) and onnx._session is None  # nothing loaded yet
    remote = build_embedder(Settings(home=tmp_path, embedder="openai", embedder_url="http://127.0.0.1:9/v1",
                                     embedder_model="m"))
    assert isinstance(remote, OpenAICompatibleEmbedder) and remote.name == "openai:m"


def test_onnx_embedder_gives_normalised_vectors_that_rank_by_meaning():
    embedder = OnnxEmbedder()  # not the session's, which remembers vectors: batching must be the model's own
    texts = ["The datanode crashed with a disk failure", "A disk failure made the datanode crash",
             "Add dark mode to the settings page"]
    v = embedder.embed(texts)
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > 0.8 > v[0] @ v[2]
    assert embedder.name == ONNX_MODEL_NAME
    # Batching and ordering do not change a text's vector.
    again = embedder.embed(list(reversed(texts)))
    assert np.allclose(again[::-1], v, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_passages_cover_long_text_in_model_sized_windows(embedder):
    short = "one short sentence"
    assert embedder.passages(short) == [short]
    long = " ".join(f"word{i}" for i in range(600))
    pieces = embedder.passages(long)
    assert len(pieces) > 1
    assert all(embedder.token_count(p) <= 254 for p in pieces)
    assert pieces[0].startswith("word0") and pieces[-1].endswith("word599")


def test_a_tokenizer_that_is_not_the_tested_one_is_refused(tmp_path, monkeypatch):
    """A changed tokenizer file would silently change every vector: it is checked like the model."""
    from graphlore import embedding

    real = embedding._resource

    def tampered(package: str, relative: str):
        path = real(package, relative)
        if relative.endswith("tokenizer.json"):
            copy = tmp_path / "tokenizer.json"
            copy.write_bytes(path.read_bytes().replace(b'"[PAD]"', b'"[PAD ]"', 1))
            return copy
        return path

    monkeypatch.setattr(embedding, "_resource", tampered)
    with pytest.raises(ConfigError, match="tokenizer.json does not match the expected sha256; reinstall graphlore"):
        OnnxEmbedder().embed(["hello"])


def test_a_model_failure_is_a_provider_error(embedder, monkeypatch):
    class Broken:
        def run(self, *args, **kwargs):
            raise RuntimeError("onnxruntime: out of memory")

    model = OnnxEmbedder()
    model._load()
    monkeypatch.setattr(model, "_session", Broken())
    from graphlore.errors import ProviderError

    with pytest.raises(ProviderError, match="the local embedding model failed on a batch of 1 texts"):
        model.embed(["hello"])


def test_a_tokenizer_failure_is_a_provider_error_like_a_model_failure():
    class Broken:
        def encode_batch(self, *args, **kwargs):
            raise RuntimeError("tokenizer exploded")

    embedder = OnnxEmbedder()
    embedder._load()
    embedder._tokenizer = embedder._splitter = Broken()
    with pytest.raises(ProviderError, match="tokenizer exploded"):
        embedder.embed_batch(["some text"])
    with pytest.raises(ProviderError, match="tokenizer exploded"):
        embedder.lengths(["some text"])
