"""Settings: one frozen object, built once per entry point and passed in.

Sources, later wins: defaults, ``{home}/config.toml`` (if present), then
environment variables ``GRAPHLORE_*``. Only the entry points (the CLI adapter's
commands, ``graphlore doctor``) call :meth:`Settings.load`; everything else
receives the object.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from graphlore.errors import ConfigError

ENV_PREFIX = "GRAPHLORE_"
EMBEDDER_KINDS = ("onnx", "openai")


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=lambda: Path("~/.graphlore").expanduser())
    #: "onnx" (bundled all-MiniLM-L6-v2 int8) or "openai" (any /v1/embeddings endpoint)
    embedder: str = "onnx"
    embed_threads: int = 0  # 0: onnxruntime decides
    embed_batch_size: int = 32
    #: megabytes of vectors a process keeps by text hash, so it never embeds a text twice
    #: (:mod:`graphlore.embeddings`; 0: no cache)
    embed_cache_mb: int = 64
    embedder_url: str = ""
    embedder_model: str = ""
    embedder_api_key: str = ""
    llm_url: str = ""
    llm_model: str = ""
    llm_api_key: str = ""
    #: empty: the embedded SQLite store under ``home``; ``postgresql://...``: PostgreSQL with pgvector
    database_url: str = ""
    #: HTTP server: every request must carry ``Authorization: Bearer <auth_token>``; required off loopback
    auth_token: str = field(default="", repr=False)
    #: folders the items and code toolsets may read, joined by ``os.pathsep`` (empty: any; over HTTP the
    #: server's working directory)
    allowed_roots: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "home", Path(self.home).expanduser())
        if self.embedder not in EMBEDDER_KINDS:
            raise ConfigError(
                f"embedder must be one of {', '.join(EMBEDDER_KINDS)}, got {self.embedder!r} "
                f"(set {ENV_PREFIX}EMBEDDER or 'embedder' in config.toml)"
            )
        if self.embedder == "openai" and not (self.embedder_url and self.embedder_model):
            raise ConfigError(
                f"embedder 'openai' needs {ENV_PREFIX}EMBEDDER_URL (e.g. http://127.0.0.1:8080/v1) "
                f"and {ENV_PREFIX}EMBEDDER_MODEL"
            )
        if self.embed_threads < 0 or self.embed_batch_size < 1 or self.embed_cache_mb < 0:
            raise ConfigError("embed_threads and embed_cache_mb must be >= 0 and embed_batch_size >= 1")

    @classmethod
    def load(cls, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        env = dict(os.environ if env is None else env)
        home = Path(env.get(f"{ENV_PREFIX}HOME") or overrides.get("home") or "~/.graphlore").expanduser()
        values: dict[str, Any] = {}
        config_file = home / "config.toml"
        if config_file.is_file():
            try:
                values.update(tomllib.loads(config_file.read_text()))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise ConfigError(f"{config_file} is not valid TOML: {exc}") from exc
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ConfigError(f"{config_file}: unknown settings {unknown}; valid: {', '.join(known)}")
        for name in known:
            raw = env.get(ENV_PREFIX + name.upper())
            if raw is not None and raw != "":
                values[name] = raw
        values.update({k: v for k, v in overrides.items() if v is not None})
        values["home"] = home
        for name in ("embed_threads", "embed_batch_size", "embed_cache_mb"):
            if name in values:
                try:
                    values[name] = int(values[name])
                except (TypeError, ValueError) as exc:
                    raise ConfigError(f"{name} must be an integer, got {values[name]!r} (set {ENV_PREFIX}"
                                      f"{name.upper()} or '{name}' in {config_file})") from exc
        return cls(**values)
