"""Go constants for folding: package-level ``const`` values and string ``var`` initialisers of any file of a
package (``pkg.Name`` through an import too), concatenation, and ``fmt.Sprintf`` with ``%s``/``%d``/``%v`` and
constant arguments. A variable that code assigns at run time (``baseUrl = os.Getenv(...)``) is not a
constant: only its initialiser is known, so a ``var`` is folded only when no function assigns it."""

from __future__ import annotations

from ...model import FileFacts
from ..folding import Folded, Folder, literal, printf, unescape, unknown


class GoValues:
    """Every package's foldable values by name (``package import path -> name -> expression``)."""

    def __init__(self, files: list[tuple[str, FileFacts]]) -> None:
        self.values: dict[str, dict[str, str]] = {}
        assigned: dict[str, set[str]] = {}
        for package, facts in files:
            self.values.setdefault(package, {}).update(facts.extra.get("values", {}))
            assigned.setdefault(package, set()).update(facts.extra.get("assigned", ()))
        for package, names in assigned.items():
            for name in names:
                self.values[package].pop(name, None)


class GoFolder(Folder):
    """Folds a Go expression written in ``facts`` (a file of ``package``)."""

    def __init__(self, values: GoValues, package: str, facts: FileFacts) -> None:
        super().__init__()
        self.values = values
        self.package = package
        self.facts = facts

    def string(self, kind: str, text: str) -> Folded:
        if kind == "tpl":   # a raw string `...`
            return literal(text[1:-1])
        return literal(unescape(text[1:-1]))

    def _qualifier(self, name: str) -> str | None:
        for imp in self.facts.imports:
            for target, alias in imp.names:
                if alias == name:
                    return target
        return None

    def name(self, name: str) -> Folded:
        head, dot, rest = name.partition(".")
        package = self._qualifier(head) if dot else self.package
        key = rest if dot else name
        expr = self.values.values.get(package or "", {}).get(key)
        if expr is None:
            return unknown(f"{name} is not a constant (a variable, a field or a parameter: known at run time only)")
        inner = GoFolder(self.values, package or "", self.facts if package == self.package else _NO_IMPORTS)
        inner.depth = self.depth + 1
        return inner.fold(expr)

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        folded = [self.fold_tokens(a) for a in args]
        if name == "fmt.Sprintf" and folded:
            return printf(folded[0], folded[1:], "sdv", "fmt.Sprintf")
        return unknown(f"the result of {name}(...)")


_NO_IMPORTS = FileFacts(path="", language="go", content_hash="", loc=0)
