r"""What the JVM frameworks read from a Java or Kotlin file: its annotations by simple name, an annotation's
attributes, and expressions folded with the project's JVM constants (Java ``static final`` fields, Kotlin
``const val``\s) and the module's settings. A Kotlin expression is read as the Java one it stands for: string
templates (``"$BASE/x/${id}"``) as concatenations, ``arrayOf(a, b)`` as an array."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..languages.folding import Folded, array_items, literal
from ..languages.java.constants import JavaConstants, JavaFolder
from ..languages.symbols import Bound
from ..model import AnnotationFact, FileFacts, SymbolFact
from ..services.settings import Values
from .base import Project


def annotations(sym: SymbolFact) -> dict[str, AnnotationFact]:
    return {a.name.rsplit(".", 1)[-1]: a for a in sym.annotations}


def attr(annotation: AnnotationFact | None, *keys: str) -> str | None:
    """The first of ``keys`` the annotation sets (``value`` also matches a positional argument)."""
    if annotation is None:
        return None
    args = dict(annotation.args)
    for key in keys:
        if key in args:
            return args[key]
        if key == "value" and "" in args:
            return args[""]
    return None


def constants(project: Project) -> JavaConstants:
    """Every Java constant of the project (built once per update, whichever framework asks first)."""
    return project.shared("java.constants", lambda: JavaConstants(project.table, JVM_LANGUAGES))


#: the languages whose files the JVM frameworks read
JVM_LANGUAGES = ("java", "kotlin")
_TEMPLATE = re.compile(r"\$\{([^{}]*)\}|\$([A-Za-z_]\w*)")


def java_expression(expr: str) -> str:
    """A Kotlin expression as the Java one it stands for (see the module docstring)."""
    expr = expr.strip()
    if expr.startswith("arrayOf(") and expr.endswith(")"):
        return "[" + expr[len("arrayOf("):-1] + "]"
    if '"' not in expr or "$" not in expr:
        return expr
    out: list[str] = []
    for part in re.split(r'("(?:[^"\\]|\\.)*")', expr):
        if not (part.startswith('"') and part.endswith('"') and len(part) >= 2):
            out.append(part)
            continue
        pieces, last = [], 1
        for match in _TEMPLATE.finditer(part, 1, len(part) - 1):
            pieces.append(f'"{part[last:match.start()]}"')
            pieces.append(f"({match.group(1) or match.group(2)})")
            last = match.end()
        pieces.append(f'"{part[last:-1]}"')
        out.append(" + ".join(p for p in pieces if p != '""') or '""')
    return "".join(out)


@dataclass
class JavaFile:
    """One Java file with what folding its values needs."""

    bound: Bound
    constants: JavaConstants
    values: Values

    @property
    def facts(self) -> FileFacts:
        return self.bound.facts

    def fold(self, expr: str | None, class_key: str, owner: str | None = None, line: int = 0) -> Folded:
        """A Java expression folded in ``class_key`` (given the calling symbol and line, with its locals), then its
        placeholders resolved with the module's values."""
        if expr is None:
            return literal("")
        if self.facts.language != "java":
            expr = java_expression(expr)
        folder = JavaFolder(self.constants, self.facts, class_key)
        if owner is not None:
            folder.at(self.facts, owner, line)
        return self.settle(folder.fold(expr))

    def settle(self, value: Folded) -> Folded:
        if "${" not in value.text:
            return value
        text, missing = self.values.resolve(value.text)
        why = tuple(f"placeholder ${{{key}}} is not in the module's settings ({', '.join(self.values.files) or 'none'})"
                    for key in missing)
        return Folded(text, value.known and not missing, value.why + why)

    def folds(self, expr: str | None, class_key: str) -> list[tuple[str, Folded]]:
        """Each element of an annotation attribute (an array or one value): (as written, folded)."""
        items = array_items(java_expression(expr) if self.facts.language != "java" else expr) if expr else []
        return [(item, self.fold(item, class_key)) for item in items] or [("", literal(""))]
