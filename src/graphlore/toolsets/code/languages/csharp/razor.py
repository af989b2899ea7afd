"""Razor files (Blazor components ``.razor``, MVC views and Razor Pages ``.cshtml``) read as the C# class they
compile to: the file's name is the class (``ItemPage.razor`` -> ``ItemPage``, partial, so a ``.razor.cs``
code-behind is the same class), ``@inject T Name`` a field of type ``T``, ``@inherits``/``@implements`` its bases,
``@using`` its usings, and the ``@code``/``@functions`` blocks its members, kept at their own lines (`to_csharp`
writes a C# text with the file's lines, so every ``file:line`` is the Razor file's). A page's ``@page`` directives
and its ``@model`` are kept in its facts (``razor_pages``, ``razor_model``) for the routes `frameworks.aspnet` reads.

Not read: C# inside the markup (``@onclick="..."``, ``@await X.Y()``, ``@if`` bodies): a call there has no owner
method of its own. A component's namespace is not written in the file unless it says ``@namespace``: the
project's usings step (`usings.shared_imports`) gives it the namespace Razor does (the nearest
``_Imports.razor``'s ``@namespace`` or the project's root namespace, then the folders below), and the ``@using``
lines of every ``_Imports.razor`` (``_ViewImports.cshtml``) in its folder and the folders above it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...model import FileFacts, content_hash
from ..parsing import count_lines

SUFFIXES = (".razor", ".cshtml")
#: files whose directives apply to every Razor file of their folder and below (they declare no class)
IMPORT_FILES = frozenset({"_Imports.razor", "_ViewImports.cshtml"})

_BLOCK = re.compile(r"@(?:code|functions)\s*\{")
_USING = re.compile(r"^\s*@using\s+(?!\()(static\s+)?([\w.]+(?:\s*=\s*[\w.<>, ]+)?)\s*;?\s*$")
_INJECT = re.compile(r"^\s*@inject\s+([\w.]+(?:<[^\r\n]*>)?\??)\s+(\w+)\s*;?\s*$")
_INHERITS = re.compile(r"^\s*@(inherits|implements)\s+([\w.<>, ]+?)\s*;?\s*$")
_NAMESPACE = re.compile(r"^\s*@namespace\s+([\w.]+)\s*;?\s*$")
#: ``@page`` (a Razor Page, routed by its file's place) or ``@page "/template"`` (a Blazor component's route, or a
#: Razor Page's template: relative, or absolute when it starts with ``/`` or ``~/``)
_PAGE = re.compile(r'^\s*@page(?:\s+"([^"]*)")?\s*;?\s*$')
_MODEL = re.compile(r"^\s*@model\s+((?:global::)?[\w.]+(?:<[^\r\n]*>)?)\s*;?\s*$")


def _string_end(text: str, i: int) -> int:
    """The index after the string literal whose opening quote is at ``i`` (regular, verbatim ``@"..."`` and raw
    ``\"\"\"...\"\"\"`` literals)."""
    if text.startswith('"""', i):
        end = text.find('"""', i + 3)
        return len(text) if end < 0 else end + 3
    verbatim = i > 0 and text[i - 1] == "@" or i > 1 and text[i - 2:i] in ("$@", "@$")
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\" and not verbatim:
            j += 2
            continue
        if c == '"':
            if verbatim and text.startswith('""', j):
                j += 2
                continue
            return j + 1
        if c == "\n" and not verbatim:
            return j
        j += 1
    return j


def block_end(text: str, start: int) -> int:
    """The index of the ``}`` closing the block whose body starts at ``start`` (strings, characters and comments
    skipped); the text's end when it is not closed."""
    depth, i, n = 1, start, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == '"':
            i = _string_end(text, i)
        elif c == "'":
            end = i + 3 if text.startswith("\\", i + 1) else i + 2
            i = end + 1 if end < n and text[end] == "'" else i + 1
        else:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return i
            i += 1
    return n


def class_name(path: str) -> str:
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return re.sub(r"\W", "_", stem) or "_"


def to_csharp(path: str, text: str, directives: dict | None = None) -> tuple[str, str]:
    """(a C# text of the Razor file's lines, the ``@namespace`` it declares or "") (see the module docstring); an
    empty file declares nothing. ``directives`` (when given) receives ``pages``: each ``@page`` directive as
    ``[line, template or None]``, and ``model``: the ``@model`` type as written (a Razor Page's page model)."""
    if not text.strip():
        return text, ""
    blocks = []
    for match in _BLOCK.finditer(text):
        if blocks and match.start() < blocks[-1][1]:
            continue   # inside the block before
        blocks.append((match.end(), block_end(text, match.end())))
    canvas = [c if c in "\r\n" else " " for c in text]
    for start, end in blocks:
        canvas[start:end] = text[start:end]
    lines = "".join(canvas).split("\n")
    usings, bases, namespace = [], [], ""
    offset = 0
    for number, line in enumerate(text.split("\n")):
        inside = any(start <= offset < end for start, end in blocks)
        offset += len(line) + 1
        if inside:
            continue
        if found := _USING.match(line):
            usings.append(f"using {found.group(1) or ''}{found.group(2)};")
        elif found := _INJECT.match(line):
            lines[number] = f"private {found.group(1)} {found.group(2)};"
        elif found := _INHERITS.match(line):
            bases.insert(0 if found.group(1) == "inherits" else len(bases), found.group(2))
        elif found := _NAMESPACE.match(line):
            namespace = found.group(1)
        elif directives is not None and (found := _PAGE.match(line)):
            directives.setdefault("pages", []).append([number + 1, found.group(1)])
        elif directives is not None and (found := _MODEL.match(line)):
            directives["model"] = found.group(1)
    if path.rsplit("/", 1)[-1] in IMPORT_FILES:
        lines = [line if not line.strip() else "" for line in lines]   # directives only: its usings
        lines[0] = " ".join(usings)
        return "\n".join(lines), namespace
    if not bases and path.endswith(".razor"):
        bases.append("ComponentBase")
    heritage = f" : {', '.join(bases)}" if bases else ""
    lines[0] = f"{' '.join(usings)} public partial class {class_name(path)}{heritage} {{ {lines[0]}"
    lines[-1] += " }"
    return "\n".join(lines), namespace


def extract(path: str, src: bytes, read_csharp: Callable[[str, bytes], FileFacts]) -> FileFacts:
    """The facts of one Razor file: those of its C# text (`to_csharp`), with the file's own hash and size, and
    ``extra["razor"]`` (the namespace it declares, "" for the project's) for `usings.shared_imports`."""
    directives: dict = {}
    code, namespace = to_csharp(path, src.decode("utf-8-sig", errors="replace"), directives)
    facts = read_csharp(path, code.encode("utf-8"))
    facts.content_hash, facts.loc = content_hash(src), count_lines(src)
    facts.extra["razor"] = namespace
    if directives.get("pages"):   # a routable page (`frameworks.aspnet` reads its routes)
        facts.extra["razor_pages"] = directives["pages"]
        if directives.get("model"):
            facts.extra["razor_model"] = directives["model"]
    return facts
