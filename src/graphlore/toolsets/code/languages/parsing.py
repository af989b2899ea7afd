"""tree-sitter languages and small helpers shared by the extractors.

The grammars come compiled inside the single-language wheels (``tree-sitter-java``,
``tree-sitter-python``, ``tree-sitter-typescript``, ``tree-sitter-javascript``): nothing is downloaded
at run time. Parsers are cheap but not thread-safe, so each thread keeps its own.
"""

from __future__ import annotations

import hashlib
import re
import threading
from functools import cache

from tree_sitter import Language, Node, Parser, Query

_local = threading.local()


@cache
def language(name: str) -> Language:
    """``java``, ``python``, ``typescript``, ``tsx`` or ``javascript``."""
    if name == "java":
        import tree_sitter_java as grammar

        return Language(grammar.language())
    if name == "python":
        import tree_sitter_python as grammar

        return Language(grammar.language())
    if name in ("typescript", "tsx"):
        import tree_sitter_typescript as grammar

        return Language(grammar.language_tsx() if name == "tsx" else grammar.language_typescript())
    if name == "javascript":
        import tree_sitter_javascript as grammar

        return Language(grammar.language())
    raise ValueError(f"no grammar for {name!r}; known: java, python, typescript, tsx, javascript")


def parser(name: str) -> Parser:
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    if name not in parsers:
        parsers[name] = Parser(language(name))
    return parsers[name]


@cache
def query(lang: str, source: str) -> Query:
    return Query(language(lang), source)


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


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


def arg_texts(args: Node | None, limit: int = 3, width: int = 200) -> tuple[str, ...]:
    """The first ``limit`` arguments of a call as written (whitespace squashed, cut at ``width``)."""
    if args is None:
        return ()
    out = []
    for arg in args.named_children:
        if arg.type in ("comment", "line_comment", "block_comment"):
            continue
        out.append(squash(text(arg))[:width])
        if len(out) == limit:
            break
    return tuple(out)

