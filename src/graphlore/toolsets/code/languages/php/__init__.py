"""PHP: namespaces, classes, interfaces, traits, enums, members, attributes, docblock annotations and call sites
(`extract`); namespaces, ``use`` imports, base types, traits and calls (`resolve`); ``composer.json`` projects."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .. import roles
from ..base import BuildFile, BuildInfo, Language, no_module
from . import extract
from .resolve import PHPResolver


def read_composer(path: Path) -> BuildInfo:
    """The package's name without its vendor (``acme/ratings`` -> ``ratings``); a ``project`` is an application."""
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return BuildInfo()
    if not isinstance(data, dict):
        return BuildInfo()
    name = data.get("name")
    return BuildInfo(name.rsplit("/", 1)[-1] if isinstance(name, str) and name else None,
                     application=data.get("type") == "project")


COMPOSER = BuildFile(("composer.json",), read_composer, "composer.json", rank=32)

RULES = roles.Rules(annotation_roles={"AsController": "CONTROLLER"},
                    base_roles={("", "AbstractController"): "CONTROLLER"},
                    method_capabilities={"Route": "HTTP_ENDPOINT"})

LANGUAGE = Language("php", {".php": "php"}, extract.extract, PHPResolver, RULES, module_name=no_module,
                    test_files=re.compile(r".*Test\.php$"), packages=True, simple_annotations=True,
                    skip_suffixes=(".blade.php",), builds=(COMPOSER,))
