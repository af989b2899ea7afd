"""Rust: structs, enums, traits, ``impl`` blocks, functions, ``use`` imports, attributes and call sites
(`extract`); module paths, ``use`` imports, ``impl`` methods wherever the crate declares them, traits an ``impl``
implements, and calls by declared types (`resolve`); ``Cargo.toml`` crates and workspaces."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ...model import SymbolFact
from .. import roles
from ..base import BuildFile, BuildInfo, Language, ProjectTree
from . import extract
from .resolve import RustResolver


def crate_name(name: str) -> str:
    """The name code uses for a crate: its package name with ``-`` as ``_`` (``order-service`` ->
    ``order_service``)."""
    return name.replace("-", "_")


def read_cargo(path: Path) -> BuildInfo:
    """``[package] name`` (the service's name as written) and the crate's name as the namespace; a workspace's
    ``members`` (globs allowed). A package with a program (``src/main.rs``, ``src/bin/``, ``[[bin]]``) is an
    application, a library crate is not; ``[[bin]]`` targets are programs of the same package, not modules."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, tomllib.TOMLDecodeError):
        return BuildInfo()
    package = data.get("package") if isinstance(data.get("package"), dict) else {}
    workspace = data.get("workspace") if isinstance(data.get("workspace"), dict) else {}
    name = package.get("name") if isinstance(package.get("name"), str) else None
    members = tuple(m for m in workspace.get("members", ()) if isinstance(m, str))
    src = path.parent / "src"
    program = bool(data.get("bin")) or (src / "main.rs").is_file() or (src / "bin").is_dir()
    return BuildInfo(name, members=members, application=bool(name) and program,
                     namespace=crate_name(name) if name else None)


CARGO = BuildFile(("Cargo.toml",), read_cargo, "Cargo.toml package", rank=16)


def module_path(path: str, tree: ProjectTree) -> str:
    """A file's module path, dotted: its crate's name, then the folders and file below ``src/``
    (``src/lib.rs`` and ``src/main.rs`` are the crate, ``a/mod.rs`` is ``a``, a ``src/bin/x.rs`` program
    ``bin.x``).
    Without a ``Cargo.toml`` above it: the file's path, dotted."""
    found = tree.namespace_of(path)
    crate, below = (found[1], path[len(found[0]):].lstrip("/") if found[0] != "." else path) if found else ("", path)
    below = below.removeprefix("src/")
    if crate and below in ("lib.rs", "main.rs"):
        return crate
    parts = below.removesuffix(".rs").split("/")
    if parts[-1] == "mod":
        parts.pop()
    return ".".join(p.replace("-", "_") for p in [crate, *parts] if p)


def _main(sym: SymbolFact) -> bool:
    return bool(sym.extra.get("entry_point"))


_VERBS = ("get", "post", "put", "delete", "patch", "head", "options")
RULES = roles.Rules(
    # actix-web's and rocket's route attributes (``#[get("/p")]``, ``#[actix_web::route(..)]``)
    capabilities={**dict.fromkeys((*_VERBS, "route"), "HTTP_ENDPOINT")},
    call_capabilities=(
        # the HTTP client crates `frameworks.rust_web` reads: their own verbs (``ureq::post``) and their clients'
        *((f"{crate}.{verb}", "HTTP_CLIENT") for crate in ("reqwest", "surf", "ureq", "isahc") for verb in _VERBS),
        *((f"{client}.{call}", "HTTP_CLIENT") for client in ("reqwest.Client", "reqwest.blocking.Client",
                                                            "reqwest_middleware.ClientWithMiddleware", "awc.Client",
                                                            "surf.Client", "ureq.Agent", "isahc.HttpClient")
          for call in (*_VERBS, "request")),
        ("rdkafka.producer.", "MESSAGE_PRODUCER"), ("rdkafka.consumer.", "MESSAGE_LISTENER"),
    ),
    entry_point=_main,
)

LANGUAGE = Language(
    "rust", {".rs": "rust"}, extract.extract, RustResolver, RULES,
    module_name=module_path,
    test_files=re.compile(r"^(tests?\.rs|.*_tests?\.rs)$"),
    builds=(CARGO,),
)
