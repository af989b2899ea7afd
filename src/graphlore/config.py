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
#: Which judge ``search_skills`` uses: the calibrated score rule, the LLM, or the LLM when one is available.
SKILLS_JUDGES = ("auto", "calibrated", "llm")
_NUMBERS = {"embed_threads": int, "embed_batch_size": int, "embed_cache_mb": int, "llm_timeout": float,
            "judge_llm_timeout": float, "lock_timeout": float}


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
    #: the LLM that writes skills from conversations (extraction, merging): the expensive one
    llm_url: str = ""
    llm_model: str = ""
    llm_api_key: str = ""
    #: seconds an extraction answer may take
    llm_timeout: float = 120.0
    #: the LLM that judges search_skills' candidates (a cheap, fast one); each empty field takes llm_*'s value
    judge_llm_url: str = ""
    judge_llm_model: str = ""
    judge_llm_api_key: str = ""
    #: seconds a judge answer may take before the calibrated judge decides instead
    judge_llm_timeout: float = 10.0
    #: auto (the LLM when one is configured or the client offers sampling), calibrated, or llm
    skills_judge: str = "auto"
    #: seconds a skills write waits for another writer's lock before it fails with store_busy
    lock_timeout: float = 30.0
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
        if self.skills_judge not in SKILLS_JUDGES:
            raise ConfigError(f"skills_judge must be one of {', '.join(SKILLS_JUDGES)}, got {self.skills_judge!r} "
                              f"(set {ENV_PREFIX}SKILLS_JUDGE or 'skills_judge' in config.toml)")
        if not (self.llm_timeout > 0 and self.judge_llm_timeout > 0 and self.lock_timeout >= 0):
            raise ConfigError("llm_timeout and judge_llm_timeout must be positive numbers of seconds, lock_timeout "
                              "at least 0")

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
        for name, kind in _NUMBERS.items():
            if name in values:
                try:
                    values[name] = kind(values[name])
                except (TypeError, ValueError) as exc:
                    what = "an integer" if kind is int else "a number"
                    raise ConfigError(f"{name} must be {what}, got {values[name]!r} (set {ENV_PREFIX}"
                                      f"{name.upper()} or '{name}' in {config_file})") from exc
        return cls(**values)
