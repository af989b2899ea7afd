"""What the JVM frameworks read from a Java file: its annotations by simple name, an annotation's
attributes, and expressions folded with the project's Java constants and the module's settings."""

from __future__ import annotations

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
    return project.shared("java.constants", lambda: JavaConstants(project.table))


@dataclass
class JavaFile:
    """One Java file with what folding its values needs."""

    bound: Bound
    constants: JavaConstants
    values: Values

    @property
    def facts(self) -> FileFacts:
        return self.bound.facts

    def fold(self, expr: str | None, class_key: str) -> Folded:
        """A Java expression folded in ``class_key``, then its placeholders resolved with the module's values."""
        if expr is None:
            return literal("")
        value = JavaFolder(self.constants, self.facts, class_key).fold(expr)
        return self.settle(value)

    def settle(self, value: Folded) -> Folded:
        if "${" not in value.text:
            return value
        text, missing = self.values.resolve(value.text)
        why = tuple(f"placeholder ${{{key}}} is not in the module's settings ({', '.join(self.values.files) or 'none'})"
                    for key in missing)
        return Folded(text, value.known and not missing, value.why + why)

    def folds(self, expr: str | None, class_key: str) -> list[tuple[str, Folded]]:
        """Each element of an annotation attribute (an array or one value): (as written, folded)."""
        items = array_items(expr) if expr else []
        return [(item, self.fold(item, class_key)) for item in items] or [("", literal(""))]
