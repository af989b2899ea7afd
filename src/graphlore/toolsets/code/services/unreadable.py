"""Configuration files the readers cannot parse: said, never dropped in silence.

The settings, deployment, proxy and OpenAPI readers skip a file they cannot parse (a YAML syntax error, an
unknown tag, JSON that is not JSON even with .NET's comments and trailing commas, TOML that is not TOML, an
nginx file whose braces do not close), so the file gives nothing. This module checks the same files with the
same parsers and gives one line per file that fails: the index report lists them and ``describe`` of the
service that holds the file shows them. Nothing else changes: the index never fails for them.

Checked: every YAML file of the walk (Compose files, Kubernetes manifests, Helm charts, Spring settings,
OpenAPI documents, Envoy and Traefik configuration), .NET settings and Ocelot files (``appsettings*.json``,
``ocelot*.json``), OpenAPI JSON documents, Traefik TOML files, nginx configuration files and Terraform files
(``.tf``, ``.tfvars``: a block never closed, `terraform.syntax_problem`). A Helm chart's templates are checked
once rendered with its values (`services.deployment`: one that renders to no YAML with any of them).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import yaml

from ..layout.walk import NGINX_FILE, OPENAPI_FILE, PROXY_FILE, SYMFONY_SERVICES
from .dotnet_config import loads_settings_json
from .terraform import syntax_problem

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _TaggedLoader(_LOADER):   # type: ignore[misc,valid-type]
    """As the Symfony reader reads ``config/services.yaml`` (`services.settings`): its tags are values."""


_TaggedLoader.add_multi_constructor("!", lambda loader, suffix, node: None)
_NGINX_NOISE = re.compile(r"#[^\n]*|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\$\{\w+\}")


def _yaml(text: str, tagged: bool = False) -> str | None:
    try:
        for _ in yaml.load_all(text, Loader=_TaggedLoader if tagged else _LOADER):
            pass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}" if mark is not None else ""
        helm = " (template markup {{ }}, as in a Helm chart: not read)" if "{{" in text else ""
        return f"YAML: {exc.problem or exc.context}{where}{helm}"
    except yaml.YAMLError as exc:
        return f"YAML: {str(exc).splitlines()[0]}"
    return None


def _json(text: str, settings: bool) -> str | None:
    try:
        loads_settings_json(text) if settings else json.loads(text)
    except json.JSONDecodeError as exc:
        return f"JSON: {exc.msg} at line {exc.lineno}"
    except ValueError as exc:
        return f"JSON: {exc}"
    return None


def _toml(text: str) -> str | None:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return f"TOML: {str(exc).splitlines()[0]}"
    return None


def _nginx(text: str) -> str | None:
    depth, line = 0, 1
    for chunk in re.split(r"(\n|\{|\})", _NGINX_NOISE.sub("", text)):
        if chunk == "\n":
            line += 1
        elif chunk == "{":
            depth += 1
        elif chunk == "}":
            depth -= 1
            if depth < 0:
                return f"nginx: a '}}' closes no block at line {line}"
    return f"nginx: {depth} block(s) not closed at the end" if depth > 0 else None


def problem(name: str, text: str, tagged: bool = False) -> str | None:
    """Why a configuration file of this name cannot be read (one line), or None when it can (or is not one
    this module checks); ``tagged``: YAML whose reader takes its tags (Symfony's services)."""
    if name.endswith((".yml", ".yaml")):
        return _yaml(text, tagged)
    if PROXY_FILE.match(name) and name.endswith(".json"):
        return _json(text, settings=True)
    if OPENAPI_FILE.match(name) and name.lower().endswith(".json"):
        return _json(text, settings=False)
    if PROXY_FILE.match(name) and name.endswith(".toml"):
        return _toml(text)
    if NGINX_FILE.match(name):
        return _nginx(text)
    if name.endswith((".tf", ".tfvars")):
        return syntax_problem(text)
    return None


def unreadable_files(root: Path, layout_files: dict[str, list[str]]) -> dict[str, str]:
    """Path (relative, POSIX) -> why, for every configuration file of the walk that cannot be parsed."""
    out = {}
    charts = tuple(f"{folder}/templates/" if folder else "templates/" for folder, names in layout_files.items()
                   if "Chart.yaml" in names)
    for folder, names in sorted(layout_files.items()):
        for name in names:
            rel = f"{folder}/{name}" if folder else name
            if rel.startswith(charts):
                continue   # a Helm chart's template: checked once rendered (`services.deployment`)
            try:
                text = (root / rel).read_text(encoding="utf-8-sig", errors="replace")
            except OSError as exc:
                out[rel] = f"cannot be read: {exc.strerror or exc}"
                continue
            why = problem(name, text, tagged=bool(SYMFONY_SERVICES.search(rel)))
            if why is not None:
                out[rel] = why
    return out


def owner(path: str, roots: dict[str, str]) -> str | None:
    """The service (name -> root) whose root holds ``path`` most closely, or None."""
    best = None
    for name, root in roots.items():
        if root in ("", ".") or path == root or path.startswith(root.rstrip("/") + "/"):
            if best is None or len(root) > len(roots[best]):
                best = name
    return best
