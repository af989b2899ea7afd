"""``graphlore doctor``: what is configured, on one screen, and every problem found with how to fix it.

It reads and changes nothing: the settings (``GRAPHLORE_*`` and ``config.toml``), the
bundled model's files and their sha256, the backend (the data folder, or the
database on a plain connection: its server, pgvector and graphlore schema
versions), the allowed roots, the LLM settings (an API key or token is only said
to be set, never shown) and what each toolset has stored (:mod:`graphlore.catalog`;
a store of an older layout is brought up to date when opened, as by any command).
Endpoints (an OpenAI-compatible embedder or LLM) are not contacted.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from graphlore import __version__
from graphlore.catalog import Problem, catalog
from graphlore.config import Settings
from graphlore.contract import Response
from graphlore.embedding import BUNDLED_FILES, ONNX_DIM, ONNX_MODEL_NAME, sha256_of
from graphlore.errors import ConfigError, EmbedderMismatch, GraphloreError, StoreUnavailable
from graphlore.llm import build_llm
from graphlore.roots import parse_roots
from graphlore.store import factory
from graphlore.tools import StoreKind

#: The oldest pgvector graphlore supports (iterative index scans) and the oldest PostgreSQL (13: a
#: transaction's id, which tells a store whether a transaction wrote).
PGVECTOR_MIN = (0, 8)
POSTGRES_MIN = 130000


class ModelFile(Response):
    what: str
    path: str | None
    sha256: str | None = Field(description="The file's; null: missing or unreadable.")
    expected_sha256: str


class EmbedderInfo(Response):
    kind: str = Field(description="onnx (bundled, local) or openai (an endpoint)")
    name: str
    dim: int | None
    files: list[ModelFile] = Field(description="The bundled model's files (onnx only).")
    url: str | None = None
    api_key_set: bool | None = None


class BackendInfo(Response):
    name: str = Field(description="sqlite or postgres")
    location: str = Field(description="The data folder, or the database URL without its password.")
    server: str | None = None
    pgvector: str | None = None
    schema_version: int | None = None


class LLMInfo(Response):
    url: str
    model: str
    api_key_set: bool


class ToolsetStores(Response):
    stores: int
    size_bytes: int


class Report(Response):
    version: str
    python: str
    executable: str
    home: str | None
    config_file: str | None = Field(description="The config.toml read, if there is one.")
    embedder: EmbedderInfo | None
    backend: BackendInfo | None
    allowed_roots: list[str] | None = Field(description="[]: any folder (an HTTP server: its working directory).")
    llm: LLMInfo | None = Field(description="The LLM that writes (extraction); null: none configured (an empty url "
                                "or model: incomplete)")
    judge_llm: LLMInfo | None = Field(description="The judge's own LLM (GRAPHLORE_JUDGE_LLM_*, each unset value "
                                      "taken from the LLM's); null: the judge uses the LLM above, if any")
    auth_token_set: bool | None
    stores: dict[str, ToolsetStores] | None = Field(description="Per toolset; null: the backend was not read.")
    problems: list[Problem]


def _check(problems: list[Problem], step: Callable[[], Any]) -> Any:
    """``step()``; a graphlore error becomes a problem (and None)."""
    try:
        return step()
    except GraphloreError as exc:
        problems.append(Problem.of(exc))
        return None


def _embedder(settings: Settings, problems: list[Problem]) -> EmbedderInfo:
    if settings.embedder == "openai":
        return EmbedderInfo(kind="openai", name=f"openai:{settings.embedder_model}", dim=None, files=[],
                            url=settings.embedder_url, api_key_set=bool(settings.embedder_api_key))
    files = []
    for bundled in BUNDLED_FILES:
        path = _check(problems, bundled.path)
        digest = None
        if path is not None:
            try:
                digest = sha256_of(path)
            except OSError as exc:
                problems.append(Problem(code=ConfigError.code, message=f"{path} cannot be read "
                                        f"({exc.strerror or exc}); {bundled.repair}"))
            if digest is not None and digest != bundled.sha256:
                problems.append(Problem(code=ConfigError.code, message=f"{path} does not match the expected "
                                        f"sha256 (it is {digest}); {bundled.repair}"))
        files.append(ModelFile(what=bundled.what, path=str(path) if path else None, sha256=digest,
                               expected_sha256=bundled.sha256))
    return EmbedderInfo(kind="onnx", name=ONNX_MODEL_NAME, dim=ONNX_DIM, files=files)


def _version(text: str | None) -> tuple[int, ...]:
    return tuple(int(part) for part in (text or "0").split(".")[:2] if part.isdigit())


def _postgres(settings: Settings, info: BackendInfo, problems: list[Problem]) -> bool:
    """Probe the database; False when it cannot be used."""
    from graphlore.store.postgres.connection import probe  # ConfigError without the postgres extra

    found = probe(settings.database_url)
    info.server, info.pgvector, info.schema_version = found["server"], found["pgvector"], found["schema"]
    if found["server_num"] < POSTGRES_MIN:
        problems.append(Problem(code=ConfigError.code, message=f"PostgreSQL {found['server']} is too old: "
                                "graphlore needs 13 or later; upgrade the server or use another one"))
    if found["pgvector"] is None and found["pgvector_available"] is None:
        problems.append(Problem(code=StoreUnavailable.code, message=(
            "pgvector is missing: the server has no 'vector' extension to create; install pgvector 0.8 or "
            "later on the server (graphlore creates the extension on first use), or use `graphlore db start`")))
        return False
    version = found["pgvector"] or found["pgvector_available"]
    if _version(version) < PGVECTOR_MIN:
        problems.append(Problem(code=StoreUnavailable.code, message=(
            f"pgvector {version} is older than 0.8 (iterative index scans): install pgvector 0.8 or later "
            "on the server, then run ALTER EXTENSION vector UPDATE")))
    return True


def _backend(settings: Settings, problems: list[Problem]) -> tuple[BackendInfo, bool]:
    """The backend and whether it holds stores to read (a database without the graphlore schema has none, and
    is left as it is: reading its stores would make the schema)."""
    name = factory.backend(settings)
    info = BackendInfo(name=name, location=factory.backend_location(settings))
    if name == "postgres":
        ok = _check(problems, lambda: _postgres(settings, info, problems))
        if ok is None:
            problems[-1].message += ("; check GRAPHLORE_DATABASE_URL (host, port, user, password, database) "
                                     "and that the server runs (a local one from `graphlore db start`: run "
                                     "that again)")
        return info, bool(ok) and info.schema_version is not None
    home = settings.home
    existing = next((p for p in (home, *home.parents) if p.exists()), Path("/"))
    if not (existing.is_dir() and os.access(existing, os.W_OK | os.X_OK)):
        problems.append(Problem(code=StoreUnavailable.code, message=(
            f"the data folder {home} cannot be {'written' if existing == home else 'created'} ({existing} is "
            "not a writable folder); fix its permissions or set GRAPHLORE_HOME to a folder you can write")))
    return info, home.is_dir()


def _stores(settings: Settings, kinds: Mapping[str, StoreKind], embedder: EmbedderInfo | None,
            problems: list[Problem]) -> dict[str, ToolsetStores]:
    found = catalog(settings, kinds)
    counts = {name: ToolsetStores(stores=0, size_bytes=0) for name in kinds}
    for store in found.stores:
        if store.problem:
            problems.append(Problem(code=store.problem.code, message=f"{store.namespace}: {store.problem.message}"))
        if store.toolset is not None:
            counts[store.toolset].stores += 1
            counts[store.toolset].size_bytes += store.size_bytes
        if embedder is not None and store.embedder is not None and store.embedder.name != embedder.name:
            problems.append(Problem(code=EmbedderMismatch.code, message=(
                f"{store.namespace} ({store.label or 'unlabelled'}) was built with embedder {store.embedder.name} "
                f"but the configured one is {embedder.name}: configure that embedder, or rebuild the store (its "
                f"toolset's index --force / reindex), or remove it with `graphlore drop {store.namespace}`")))
    return counts


def diagnose(kinds: Mapping[str, StoreKind], env: Mapping[str, str] | None = None) -> Report:
    """Everything ``graphlore doctor`` shows, read from ``env`` (default: this process's environment)."""
    problems: list[Problem] = []
    report = Report(version=__version__, python=platform.python_version(), executable=sys.executable, home=None,
                    config_file=None, embedder=None, backend=None, allowed_roots=None, llm=None, judge_llm=None,
                    auth_token_set=None, stores=None, problems=[])
    settings = _check(problems, lambda: Settings.load(dict(os.environ if env is None else env)))
    if settings is None:
        report.problems = problems
        return report
    report.home = str(settings.home)
    report.config_file = str(settings.home / "config.toml") if (settings.home / "config.toml").is_file() else None
    report.auth_token_set = bool(settings.auth_token)
    report.embedder = _embedder(settings, problems)
    roots = _check(problems, lambda: parse_roots(settings.allowed_roots))
    report.allowed_roots = [str(r) for r in roots] if roots is not None else None
    if settings.llm_url or settings.llm_model:
        report.llm = LLMInfo(url=settings.llm_url, model=settings.llm_model, api_key_set=bool(settings.llm_api_key))
        _check(problems, lambda: build_llm(settings))
    if settings.judge_llm_url or settings.judge_llm_model or settings.judge_llm_api_key:  # any: not the LLM's own
        report.judge_llm = LLMInfo(url=settings.judge_llm_url or settings.llm_url,
                                   model=settings.judge_llm_model or settings.llm_model,
                                   api_key_set=bool(settings.judge_llm_api_key or settings.llm_api_key))
        _check(problems, lambda: build_llm(settings, "judge"))
    backend = _check(problems, lambda: _backend(settings, problems))
    if backend is not None:
        report.backend, readable = backend
        if readable:
            report.stores = _check(problems, lambda: _stores(settings, kinds, report.embedder, problems))
        elif report.backend.name == "sqlite" or report.backend.server is not None:  # nothing made yet
            report.stores = {name: ToolsetStores(stores=0, size_bytes=0) for name in kinds}
    report.problems = problems
    return report
