"""Folding what the code says into values: string literals, constants across files, concatenation, and
(in each language's folder) ``String.format`` with constant arguments, f-strings and template literals with
constant parts.

A fold gives a `Folded`: the text, with ``{?}`` for each part that is not known statically (a
parameter, a method's result, an environment variable), whether it is fully known, and why a part is
not. Folding never guesses: a part is either a literal, a constant that folds, or ``{?}``.

Here: `Folded`, the tokens and the expression folder every language's folder builds on (`Folder`: a
language says what a string literal, a name and a call are). The constants each language reads are its
own (``languages/<lang>/constants.py``). ``${...}`` placeholders are not resolved here (see
`services.settings.Values.resolve`): a value keeps them until the module that uses it resolves them with
its settings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import FileFacts

UNKNOWN = "{?}"
_MAX_DEPTH = 12


@dataclass(frozen=True)
class Folded:
    text: str
    known: bool
    why: tuple[str, ...] = ()

    def __add__(self, other: Folded) -> Folded:
        return Folded(self.text + other.text, self.known and other.known, self.why + other.why)


def literal(text: str) -> Folded:
    return Folded(text, True)


def unknown(why: str) -> Folded:
    return Folded(UNKNOWN, False, (why,))


def split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside brackets and quotes."""
    out, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail or out:
        out.append(tail)
    return [part for part in out if part]


def array_items(text: str) -> list[str]:
    """An annotation attribute as a list of expressions: ``{"/a", B}`` -> two; ``"/a"`` -> one."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        return split_top(text[1:-1])
    if text.startswith("[") and text.endswith("]"):
        return split_top(text[1:-1])
    return [text] if text else []


# -- tokens ---------------------------------------------------------------------------------------------------

_Q3 = '"' * 3
_A3 = "'" * 3
_TOKEN = re.compile("|".join((
    rf"(?P<block>[rRbBuUfF]{{0,2}}(?:{_Q3}[\s\S]*?{_Q3}|{_A3}[\s\S]*?{_A3}))",
    r"""(?P<str>[rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))""",
    r"(?P<tpl>`(?:[^`\\]|\\.)*`)",
    r"(?P<num>\d[\w.]*)",
    r"(?P<name>[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)",
    r"(?P<op>[+(),%])",
    r"(?P<ws>\s+)",
    r"(?P<other>.)",
)))

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0", "s": " "}


def unescape(body: str) -> str:
    def one(match: re.Match) -> str:
        ch = match.group(1)
        if ch.startswith("u") and len(ch) == 5:
            return chr(int(ch[1:], 16))
        return _ESCAPES.get(ch, ch)

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", one, body)


def tokens(text: str) -> list[tuple[str, str]]:
    out = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        if kind != "ws":
            out.append((kind, re.sub(r"\s+", "", match.group()) if kind == "name" else match.group()))
    return out


# -- a small expression folder shared by the languages ----------------------------------------------------------


class Folder:
    """Folds ``a + b + "c"``-style expressions; subclasses say what a string literal, a name and a call are."""

    def __init__(self) -> None:
        self.depth = 0

    def fold(self, text: str) -> Folded:
        text = text.strip()
        if not text:
            return unknown("empty expression")
        if self.depth > _MAX_DEPTH:
            return unknown("constants refer to each other too deeply")
        self.depth += 1
        try:
            toks = tokens(text)
            value, rest = self._sum(toks)
            if rest:
                return unknown(f"not a constant expression: {text[:80]}")
            return value
        finally:
            self.depth -= 1

    def _sum(self, toks: list[tuple[str, str]]) -> tuple[Folded, list[tuple[str, str]]]:
        value, toks = self._term(toks)
        while toks and toks[0] == ("op", "+"):
            right, toks = self._term(toks[1:])
            value = value + right
        return value, toks

    def _term(self, toks: list[tuple[str, str]]) -> tuple[Folded, list[tuple[str, str]]]:
        if not toks:
            return unknown("incomplete expression"), toks
        kind, text = toks[0]
        if kind in ("str", "block", "tpl"):
            value = self.string(kind, text)
            toks = toks[1:]
            while toks and toks[0][0] == "str" and self.implicit_concat:  # Python "a" "b"
                value = value + self.string(toks[0][0], toks[0][1])
                toks = toks[1:]
            return value, toks
        if kind == "num":
            return literal(text), toks[1:]
        if kind == "op" and text == "(":
            value, rest = self._sum(toks[1:])
            if rest and rest[0] == ("op", ")"):
                return value, rest[1:]
            return unknown("unbalanced parentheses"), []
        if kind == "name":
            if len(toks) > 1 and toks[1] == ("op", "("):
                args, rest = self._args(toks[2:])
                return self.call(text, args), rest
            return self.name(text), toks[1:]
        return unknown(f"not a constant expression ({text})"), []

    def _args(self, toks: list[tuple[str, str]]) -> tuple[list[list[tuple[str, str]]], list[tuple[str, str]]]:
        args: list[list[tuple[str, str]]] = [[]]
        depth = 0
        for index, tok in enumerate(toks):
            if tok == ("op", "("):
                depth += 1
            elif tok == ("op", ")"):
                if depth == 0:
                    return [a for a in args if a], toks[index + 1:]
                depth -= 1
            elif tok == ("op", ",") and depth == 0:
                args.append([])
                continue
            args[-1].append(tok)
        return [], []

    def fold_tokens(self, toks: list[tuple[str, str]]) -> Folded:
        value, rest = self._sum(toks)
        return value if not rest else unknown("not a constant expression")

    implicit_concat = False

    def string(self, kind: str, text: str) -> Folded:
        raise NotImplementedError

    def name(self, name: str) -> Folded:
        raise NotImplementedError

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        return unknown(f"the result of {name}(...)")


class FileFolder(Folder):
    """Folds an expression in one file of a project: a name is one of the file's constants (``extra["values"]``,
    as written) or one it imports, followed from file to file (at most `HOPS` files away). ``files`` are
    the project's facts by a key the language looks imports up by (a Python module name, a TS/JS path)."""

    HOPS = 6

    def __init__(self, files: dict[str, FileFacts], key: str) -> None:
        super().__init__()
        self.files = files
        self.key = key

    def name(self, name: str) -> Folded:
        return self.lookup(self.key, name, 0)

    def lookup(self, key: str, name: str, hops: int) -> Folded:
        facts = self.files.get(key)
        if facts is None or hops > self.HOPS:
            return unknown(f"{name} is not a constant")
        values = facts.extra.get("values", {})
        if name in values:
            inner = type(self)(self.files, key)
            inner.depth = self.depth + 1
            return inner.fold(values[name])
        found = self.imported(facts, key, name)
        return self.lookup(*found, hops + 1) if found is not None else self.unknown_name(name)

    def imported(self, facts: FileFacts, key: str, name: str) -> tuple[str, str] | None:
        """(file key, name there) that an import of ``facts`` brings ``name`` from, if any."""
        return None

    def unknown_name(self, name: str) -> Folded:
        return unknown(f"{name} is not a constant")


def printf(template: Folded, args: list[Folded], verbs: str, name: str) -> Folded:
    """A printf-style format (``String.format``, ``fmt.Sprintf``) with constant arguments: each ``%`` verb in
    ``verbs`` (``"sd"``) takes the next argument, ``%%`` is ``%``; any other verb makes the result unknown."""
    if not template.known:
        return unknown(f"{name} with an unknown template")
    out = literal("")
    rest = list(args)
    for piece in re.split(rf"(%%|%[{verbs}])", template.text):
        if piece == "%%":
            out = out + literal("%")
        elif len(piece) == 2 and piece[0] == "%" and piece[1] in verbs:
            out = out + (rest.pop(0) if rest else unknown(f"{name} with too few arguments"))
        elif "%" in piece:
            return unknown(f"{name} with a format this folder does not read")
        else:
            out = out + literal(piece)
    return out
