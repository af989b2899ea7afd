"""Python: classes, functions, methods, fields, imports and call sites (`extract`); names through scopes,
imports and re-exports (`resolve`); FastAPI, Flask, Celery, Django, DRF and pydantic conventions and the
HTTP client libraries as role and capability tables."""

from __future__ import annotations

import re

from .. import builds, roles
from ..base import Language, ProjectTree
from . import extract
from .resolve import PythonResolver


def module_name(path: str, tree: ProjectTree) -> str:
    """The dotted module name: the file's stem under every enclosing folder holding an ``__init__.py``
    (and the root folder's name when the root is a package)."""
    parts = path[:-3].split("/")
    stem = parts[-1]
    folder = parts[:-1]
    names: list[str] = [] if stem == "__init__" else [stem]
    while folder and "/".join(folder) in tree.package_dirs:
        names.insert(0, folder[-1])
        folder = folder[:-1]
    if not folder and "" in tree.package_dirs:
        names.insert(0, tree.root.name)
    return ".".join(names) or stem


RULES = roles.Rules(
    base_roles={**roles.DJANGO_BASES, **roles.DRF_BASES, **roles.PYDANTIC_BASES, **roles.UNITTEST_BASES},
    capabilities=roles.PYTHON_NAME_CAPABILITIES,
    attribute_capabilities=roles.PYTHON_ATTRIBUTE_CAPABILITIES,
    call_capabilities=roles.PYTHON_CALL_CAPABILITIES,
)

LANGUAGE = Language(
    "python", {".py": "python"}, extract.extract, PythonResolver, RULES,
    module_name=module_name,
    test_files=re.compile(r"(test_.*\.py|.*_test\.py|conftest\.py)$"),
    package_files=frozenset({"__init__.py"}),
    nested_modules=True,
    builds=(builds.PYPROJECT, builds.SETUP, builds.REQUIREMENTS),
)
