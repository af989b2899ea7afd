"""The settings files a service's own code reads, for its ``describe``: a YAML or JSON file in one of its
module folders whose name a call of the module's code passes (``cleanenv.ReadConfig(dir+"/config.yml", cfg)``,
``open("settings.json")``, ``viper.SetConfigName("config")``), each leaf setting as ``key: value (file:line)``.
A file no call names is not shown (a fixture or another tool's file is no setting the service reads). Where a
Go struct field maps a key to an environment variable (``yaml:"product_host" env:"GRPC_PRODUCT_HOST"``), the
line says so: the deployment's value of that variable (also in the ``describe``) overrides the file's.
A credential key's value is shown ``redacted`` (`secrets.shown_value`).
Read on every update (the files are few and small); TOML and INI files are not read."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ..layout.layout import Layout
from ..model import FileFacts
from .secrets import shown_value
from .settings import _flatten
from .yaml_lines import documents

#: settings shown per file, at most
MAX_SETTINGS = 60
_SUFFIXES = (".yml", ".yaml", ".json")
#: files a build tool or editor reads, never the service's settings
_NOT_SETTINGS = frozenset({"package.json", "package-lock.json", "tsconfig.json", "composer.json", "pubspec.yaml"})
_GO_STRUCT = re.compile(r"\b(\w+)\s+struct\s*\{([^{}]*)\}")
#: a Go struct field: ``Name Type `tags` `` or an embedded ``Type `tags` ``
_GO_FIELD = re.compile(r"^\s*(?:\w+\s+)?\*?([\w.]+)\s+`([^`]*)`", re.M)
_TAG = re.compile(r'\b(yaml|json|mapstructure|env):"([\w.-]*)[^"]*"')


def _named(file: str, facts: list[FileFacts]) -> bool:
    """Whether a call of ``facts`` passes the file's name (as a string, ``./`` or ``/`` before it at most: a
    path through another folder names another file), or its stem to a ``SetConfigName``."""
    stem = file.rsplit(".", 1)[0]
    # "config.yml", "./config.yml", dir + "/config.yml": never "fixtures/config.yml" (another folder's file)
    quoted = re.compile(rf"""["'`](?:\.?/)?{re.escape(file)}["'`]""")
    return any(quoted.search(arg) or (call.name == "SetConfigName" and arg.strip("\"'`") == stem)
               for fact in facts for call in fact.calls for arg in call.args)


def _env_vars(facts: list[FileFacts], root: Path) -> dict[str, str]:
    """Setting key (``grpc.product_host``) -> the environment variable a Go struct field's tags override it with
    (``yaml:"product_host" env:"GRPC_PRODUCT_HOST"`` in a struct held under ``yaml:"grpc"``), followed from every
    struct of the module's Go files; a key two structs give different variables is left out."""
    fields: dict[str, list[tuple[str, str | None, str | None]]] = {}   # struct -> (type, key, variable)
    for fact in facts:
        if not fact.path.endswith(".go"):
            continue
        try:
            text = (root / fact.path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for struct in _GO_STRUCT.finditer(text):
            for field in _GO_FIELD.finditer(struct.group(2)):
                tags = dict(_TAG.findall(field.group(2)))
                key = tags.get("yaml") or tags.get("json") or tags.get("mapstructure")
                fields.setdefault(struct.group(1), []).append((field.group(1).rsplit(".", 1)[-1], key,
                                                               tags.get("env") or None))
    found: dict[str, set[str]] = {}

    def walk(struct: str, prefix: str, seen: frozenset[str]) -> None:
        for kind, key, variable in fields.get(struct, []):
            path = f"{prefix}.{key}" if prefix and key else (key or prefix)
            if variable and key:
                found.setdefault(path, set()).add(variable)
            if kind in fields and kind not in seen:
                walk(kind, path, seen | {kind})

    for struct in fields:
        walk(struct, "", frozenset({struct}))
    return {key: next(iter(variables)) for key, variables in found.items() if len(variables) == 1}


def _settings(rel: str, text: str, env: dict[str, str]) -> list[str]:
    """The file's leaf settings, at most `MAX_SETTINGS`, then how many more there are (never a silent drop)."""
    out: list[str] = []
    left = 0
    for doc, lines in documents(text):
        if not isinstance(doc, dict):
            continue
        flat: dict[str, str] = {}
        _flatten(doc, "", flat)
        for key, value in flat.items():
            if len(out) >= MAX_SETTINGS:
                left += 1
                continue
            line = lines.get(key)
            value = shown_value(key, value)   # a credential's value is never shown (secrets.py)
            var = env.get(key)
            over = f", overridden by environment {var}" if var else ""
            out.append(f"{key}: {value} ({rel}:{line}{over})" if line else f"{key}: {value} ({rel}{over})")
    return out + ([f"... {left} more settings in {rel}"] if left else [])


def app_config(layout: Layout, root: Path, facts: Mapping[str, FileFacts]) -> dict[str, list[str]]:
    """Per microservice, the settings of the files its code reads (see the module docstring)."""
    out: dict[str, list[str]] = {}
    for name, service in layout.services.items():
        for module_path in service.modules:
            folder = root / module_path if module_path != "." else root
            prefix = f"{module_path}/" if module_path != "." else ""
            try:
                files = sorted(p.name for p in folder.iterdir() if p.suffix in _SUFFIXES and p.is_file()
                               and p.name not in _NOT_SETTINGS and not p.name.lower().startswith("appsettings"))
            except OSError:
                continue
            if not files:
                continue
            own = [f for path, f in facts.items() if path.startswith(prefix)
                   and layout.module_of(path) == module_path]
            env = None
            for file in files:
                if not _named(file, own):
                    continue
                try:
                    text = (folder / file).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                env = _env_vars(own, root) if env is None else env
                out.setdefault(name, []).extend(_settings(prefix + file, text, env))
    return out
