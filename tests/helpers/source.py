"""graphlore's own source, read once per test run: the architecture and dependency checks
(tests/test_architecture.py, tests/test_dependencies.py) each look at every import of every module.

Only what they read is kept (the import statements, the size of a module's body), not the syntax trees:
a million live AST nodes would slow every later garbage collection of the run."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

import graphlore

SRC = Path(graphlore.__file__).parent


@dataclass(frozen=True)
class ImportStatement:
    """One ``import`` or ``from ... import`` statement, wherever it is in the module."""

    module: str | None       # ``from X import``: X as written (None for ``from . import``); ``import``: None
    names: tuple[str, ...]   # the names taken (``from``) or the modules imported (``import``)
    level: int               # the leading dots of a relative ``from`` import
    type_checking: bool      # inside an ``if TYPE_CHECKING:`` block (never runs)


@dataclass(frozen=True)
class ModuleSource:
    imports: tuple[ImportStatement, ...]
    body_length: int         # top-level statements (an ``__init__.py`` of one holds only its docstring)


def source_files() -> tuple[Path, ...]:
    """Every module of ``src/graphlore``, in path order."""
    return _source_files(SRC)


@functools.cache
def _source_files(root: Path) -> tuple[Path, ...]:
    return tuple(sorted(root.rglob("*.py")))


@functools.cache
def module_source(path: Path) -> ModuleSource:
    """The import statements of the module at ``path`` (module level and inside functions), in source order."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[ImportStatement] = []
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, type_checking = stack.pop()
        if isinstance(node, ast.Import):
            found.append(ImportStatement(None, tuple(a.name for a in node.names), 0, type_checking))
        elif isinstance(node, ast.ImportFrom):
            found.append(ImportStatement(node.module, tuple(a.name for a in node.names), node.level, type_checking))
        inner = type_checking or (isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                                  and node.test.id == "TYPE_CHECKING")
        stack.extend((child, inner) for child in reversed(list(ast.iter_child_nodes(node)))
                     if isinstance(child, HOLDS_STATEMENTS))
    return ModuleSource(tuple(found), len(tree.body))


#: The only nodes an import statement can be in: statements (a ``def``'s, ``if``'s, ``try``'s... body) and the
#: ``except`` and ``case`` clauses that hold bodies. Expressions hold no statements (a lambda's body is one
#: expression), so the walk skips them: nine in ten nodes of a module, and most of the time its read took.
HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)
