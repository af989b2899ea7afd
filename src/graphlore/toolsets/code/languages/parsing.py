"""tree-sitter grammars and small node helpers shared by the extractors.

A language names its grammars (`Grammar`: the compiled grammar a single-language wheel ships, such as
``tree-sitter-java``), so nothing here knows a language and nothing is downloaded at run time. Parsers
are cheap but not thread-safe, so each thread keeps its own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from tree_sitter import Language, Node, Parser, Query

_local = threading.local()


@dataclass(frozen=True)
class Grammar:
    """A tree-sitter grammar by name; ``load`` returns the wheel's compiled language (``tree_sitter_java.language()``)."""

    name: str
    load: Callable[[], object]


@cache
def language(grammar: Grammar) -> Language:
    return Language(grammar.load())


def parser(grammar: Grammar) -> Parser:
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    found = parsers.get(grammar.name)
    if found is None:
        found = parsers[grammar.name] = Parser(language(grammar))
    return found


@cache
def query(grammar: Grammar, source: str) -> Query:
    return Query(language(grammar), source)


def text(node: Node | None) -> str:
    if node is None:
        return ""
    raw = node.text
    return raw.decode("utf-8", errors="replace") if raw is not None else ""


_WS = re.compile(r"\s+")


def squash(value: str) -> str:
    """Collapse whitespace runs to one space."""
    return _WS.sub(" ", value).strip()


def clean_block_comment(raw: str, limit: int = 2000) -> str:
    """Javadoc / JSDoc body without ``/**``, ``*/`` and leading ``*`` per line."""
    body = raw.strip()
    if body.startswith("/**"):
        body = body[3:]
    elif body.startswith("/*"):
        body = body[2:]
    if body.endswith("*/"):
        body = body[:-2]
    lines = [line.strip() for line in body.splitlines()]
    lines = [line[1:].strip() if line.startswith("*") else line for line in lines]
    return "\n".join(line for line in lines).strip()[:limit]


def doc_comment(node: Node, block: str, skip: str | None = None) -> str:
    """The ``/** ... */`` comment (a ``block`` node) just before a declaration, passing over ``skip`` comments."""
    prev = node.prev_named_sibling
    while skip is not None and prev is not None and prev.type == skip:
        prev = prev.prev_named_sibling
    if prev is not None and prev.type == block:
        raw = text(prev)
        if raw.startswith("/**"):
            return clean_block_comment(raw)
    return ""


def count_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def innermost_owner(spans: list[tuple[int, int, str]], positions: list[int]) -> list[str | None]:
    """For each byte position, the key of the innermost span containing it (spans properly nested).

    ``spans`` are (start, end, key); positions need not be sorted. One sweep, O((n + m) log n).
    """
    order = sorted(range(len(positions)), key=positions.__getitem__)
    spans_sorted = sorted(spans, key=lambda s: (s[0], -s[1]))
    result: list[str | None] = [None] * len(positions)
    stack: list[tuple[int, int, str]] = []
    i = 0
    for index in order:
        pos = positions[index]
        while i < len(spans_sorted) and spans_sorted[i][0] <= pos:
            span = spans_sorted[i]
            while stack and stack[-1][1] <= span[0]:
                stack.pop()
            stack.append(span)
            i += 1
        while stack and stack[-1][1] <= pos:
            stack.pop()
        result[index] = stack[-1][2] if stack else None
    return result


def enclosing_lambda_calls(call_nodes: list[Node], outer_call: Callable[[Node], Node | bool | None]) -> list[int]:
    """For each call node, the index (in ``call_nodes``) of the call whose function literal holds it, else -1:
    what ``extra["lambda_of"]`` records (``r.Route("/api", func(r chi.Router) { r.Get(...) })``).

    ``outer_call(node)`` reads one ancestor in the language's grammar: the call a function-literal argument
    belongs to, ``False`` where the search stops (a declaration), ``None`` to go on upwards."""
    index_of = {(n.start_byte, n.end_byte): i for i, n in enumerate(call_nodes)}
    found = []
    for call in call_nodes:
        node, enclosing = call.parent, -1
        while node is not None:
            outer = outer_call(node)
            if outer is False:
                break
            if outer is not None:
                enclosing = index_of.get((outer.start_byte, outer.end_byte), -1)
                break
            node = node.parent
        found.append(enclosing)
    return found
