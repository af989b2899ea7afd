"""Toolsets: each a self-contained product on the shared core; none imports another.

:data:`TOOLSETS` is the only registration point: the CLI and ``graphlore serve`` list
what is here, and import a toolset's package (its ``TOOLSET``) only when it is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from graphlore.errors import ConfigError
from graphlore.tools import Toolset

#: toolset name -> the package that defines ``TOOLSET``
TOOLSETS: dict[str, str] = {
    "items": "graphlore.toolsets.items",
    "facts": "graphlore.toolsets.facts",
    "code": "graphlore.toolsets.code",
    "skills": "graphlore.toolsets.skills",
}


def load_toolset(name: str, registry: Mapping[str, str] | None = None) -> Toolset:
    registry = TOOLSETS if registry is None else registry
    if name not in registry:
        raise ConfigError(f"no toolset {name!r}; toolsets: {', '.join(sorted(registry))}")
    toolset = importlib.import_module(registry[name]).TOOLSET
    if toolset.name != name:
        raise ConfigError(f"{registry[name]}.TOOLSET is named {toolset.name!r}, registered as {name!r}")
    return toolset
