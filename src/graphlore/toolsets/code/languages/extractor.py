"""The symbol list every extractor builds: keys unique within a file, and the spans that own call sites.

Two declarations may share a name in one scope (overloads, redefinitions, ``@property`` setters);
the second gets the key ``name~2``, the third ``name~3``, so every symbol keeps its own node id.
"""

from __future__ import annotations

from ..model import SymbolFact


class SymbolCollector:
    """Collects one file's symbols in source order with unique keys and their byte spans."""

    def __init__(self) -> None:
        self.symbols: list[SymbolFact] = []
        #: (start byte, end byte, key) of each symbol that can own a call site
        self.spans: list[tuple[int, int, str]] = []
        self.keys: set[str] = set()

    def unique(self, key: str) -> str:
        if key not in self.keys:
            self.keys.add(key)
            return key
        n = 2
        while f"{key}~{n}" in self.keys:
            n += 1
        self.keys.add(f"{key}~{n}")
        return f"{key}~{n}"

    def add(self, sym: SymbolFact, span: tuple[int, int] | None = None) -> SymbolFact:
        sym.key = self.unique(sym.key)
        self.symbols.append(sym)
        if span is not None:
            self.spans.append((span[0], span[1], sym.key))
        return sym
