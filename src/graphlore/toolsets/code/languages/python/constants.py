"""Python constants for folding: module-level string constants, also imported (``from .settings import BASE``),
and f-strings with constant parts."""

from __future__ import annotations

import re

from ...model import FileFacts
from ..folding import Folded, Folder, literal, unescape, unknown
from .resolve import absolute


class PythonFolder(Folder):
    """Folds a Python expression in a module (its constants and the constants it imports)."""

    implicit_concat = True

    def __init__(self, modules: dict[str, FileFacts], module: str) -> None:
        super().__init__()
        self.modules = modules
        self.module = module
        self.facts = modules.get(module)

    def string(self, kind: str, text: str) -> Folded:
        match = re.match(r"^([rRbBuUfF]{0,2})('''|\"\"\"|'|\")", text)
        prefix = match.group(1).lower() if match else ""
        quote = match.group(2) if match else text[0]
        body = text[len(prefix) + len(quote): len(text) - len(quote)]
        if "r" not in prefix:
            body = unescape(body)
        if "f" not in prefix:
            return literal(body)
        return self._fstring(body)

    def _fstring(self, body: str) -> Folded:
        out = literal("")
        for piece in re.split(r"(\{\{|\}\}|\{[^{}]*\})", body):
            if piece in ("{{", "}}"):
                out = out + literal(piece[0])
            elif piece.startswith("{") and piece.endswith("}"):
                expr = piece[1:-1]
                if re.fullmatch(r"[A-Za-z_][\w.]*", expr.strip()):
                    out = out + self.name(expr.strip())
                else:
                    out = out + unknown(f"the f-string part {{{expr}}}")
            else:
                out = out + literal(piece)
        return out

    def name(self, name: str) -> Folded:
        return self._lookup(self.module, name, 0)

    def _lookup(self, module: str, name: str, hops: int) -> Folded:
        facts = self.modules.get(module)
        if facts is None or hops > 6:
            return unknown(f"{name} is not a constant")
        values = facts.extra.get("values", {})
        if name in values:
            inner = PythonFolder(self.modules, module)
            inner.depth = self.depth + 1
            return inner.fold(values[name])
        head, _, rest = name.partition(".")
        is_package = facts.path.endswith("__init__.py")
        for imp in facts.imports:
            target = absolute(module, imp.target, is_package)
            for imported, alias in imp.names:
                if imported == "*":
                    star = self.modules.get(target)
                    if star is not None and name in star.extra.get("values", {}):
                        return self._lookup(target, name, hops + 1)
                elif imported == imp.target:  # import a.b / import a.b as c
                    bound = imported if alias == imported.split(".")[0] else alias
                    if name.startswith(bound + ".") and alias == name.split(".")[0]:
                        inner_name = name[len(bound) + 1:] if bound != alias else name[len(alias) + 1:]
                        return self._lookup(target, inner_name, hops + 1)
                elif alias == head:  # from target import imported as alias
                    sub = f"{target}.{imported}" if target else imported
                    if sub in self.modules:
                        if rest:
                            return self._lookup(sub, rest, hops + 1)
                    elif not rest:
                        return self._lookup(target, imported, hops + 1)
        if head == "os" or name.startswith("settings."):
            return unknown(f"{name}: an environment or settings value, known at run time only")
        return unknown(f"{name} is not a constant")

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        if name in ("os.getenv", "os.environ.get"):
            return unknown(f"{name}(...): an environment value, known at run time only")
        if name == "str" and len(args) == 1:
            return self.fold_tokens(args[0])
        return unknown(f"the result of {name}(...)")
