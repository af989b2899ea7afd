"""Toolsets: each a self-contained product on the shared core; none imports another.

:data:`TOOLSETS` is the only registration point: the CLI and ``graphlore serve`` list
what is here, and import a toolset's package (its ``TOOLSET``) only when it is used.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping, Sequence

from graphlore.errors import ConfigError, InvalidInput
from graphlore.tools import Toolset

#: toolset name -> the package that defines ``TOOLSET``
TOOLSETS: dict[str, str] = {
    "items": "graphlore.toolsets.items",
    "facts": "graphlore.toolsets.facts",
    "code": "graphlore.toolsets.code",
    "skills": "graphlore.toolsets.skills",
}

#: toolset name -> (the extra of pyproject.toml it needs, the top-level modules that extra installs)
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "code": ("code", ("tree_sitter", "tree_sitter_java", "tree_sitter_python", "tree_sitter_typescript",
                      "tree_sitter_javascript", "tree_sitter_go", "tree_sitter_c_sharp", "tree_sitter_kotlin", "tree_sitter_php",
                      "tree_sitter_ruby",
                      "tree_sitter_rust", "tree_sitter_cpp",
                      "proto_schema_parser", "antlr4", "yaml")),
}


class ExtraMissing(ConfigError):
    """A toolset whose optional dependencies are not installed: :attr:`install` says how to add them."""

    def __init__(self, toolset: str, extra: str, module: str) -> None:
        self.install = f"pip install 'graphlore[{extra}]'"
        super().__init__(f"the {toolset} toolset needs the '{extra}' extra, which is not installed (no module "
                         f"{module!r}): {self.install}")


def load_toolset(name: str, registry: Mapping[str, str] | None = None) -> Toolset:
    """The toolset's declaration; :class:`ExtraMissing` when it needs an extra that is not installed."""
    registry = TOOLSETS if registry is None else registry
    if name not in registry:
        raise ConfigError(f"no toolset {name!r}; toolsets: {', '.join(sorted(registry))}")
    try:
        toolset = importlib.import_module(registry[name]).TOOLSET
    except ModuleNotFoundError as exc:
        extra, modules = EXTRAS.get(name, ("", ()))
        if (exc.name or "").split(".")[0] not in modules:
            raise
        raise ExtraMissing(name, extra, exc.name or "") from exc
    if toolset.name != name:
        raise ConfigError(f"{registry[name]}.TOOLSET is named {toolset.name!r}, registered as {name!r}")
    return toolset


def select(names: Sequence[str], registry: Mapping[str, str] | None = None, what: str = "toolset") -> list[str]:
    """``names`` checked against the registry (an unknown, empty or repeated name is refused, naming the valid
    ones), in registry order; every toolset when ``names`` is empty. ``what`` names the input in errors."""
    registry = TOOLSETS if registry is None else registry
    valid = ", ".join(sorted(registry))
    for name in names:
        if not name:
            raise InvalidInput(f"{what} has an empty name; separate names with commas, e.g. items,code "
                               f"(toolsets: {valid})")
        if name not in registry:
            close = difflib.get_close_matches(name, list(registry), n=1, cutoff=0.6)
            guess = f"did you mean {close[0]!r}? " if close else ""
            raise InvalidInput(f"{what}: no toolset {name!r}; {guess}toolsets: {valid}")
        if names.count(name) > 1:
            raise InvalidInput(f"{what} names {name!r} twice; name each toolset once")
    return [name for name in registry if name in names or not names]
