"""Terraform as a deployment file: the environment each container resource gives its service.

A small reader for the HCL forms HashiCorp documents (blocks with labels, ``name = expression`` attributes,
strings with ``${...}``, lists, objects, heredocs, comments), not a full evaluator: an expression is kept as
written, and settled only where the files fix it (a literal; ``var.x`` from the module call's argument or the
variable's ``default``; ``local.x``; a string template of those). Anything else (``module.db.endpoint``, a
resource attribute, a function call) stays as written and is known only when Terraform applies it: never a
guessed value.

**Read.** Every ``resource`` of each root module (a folder with ``.tf`` files that no other module calls by a local
``source``), and of each module it calls with a local ``source`` (``./service``), with that call's arguments as
the module's ``var``; a root module's variables take the value its folder's ``terraform.tfvars``/``*.auto.tfvars`` give
over their ``default``, and none where another ``.tfvars`` file of the project sets them (a ``-var-file`` picked when
it is applied). Its environment: ``env { name = ... value = ... }`` blocks at any depth (Cloud Run,
Kubernetes, Azure Container Apps; one whose value is a ``value_source``/``value_from`` block, a secret's, is known at
run time), ``dynamic "env"`` blocks over a list (``var.envs``, ``local.default_envs``, ``concat(...)`` of those, a
list literal) of ``{name, value}`` objects or over a map (``env.key``/``env.value``; an object, ``merge(...)``),
``environment { variables = {...} }`` (AWS Lambda), ``app_settings = {...}`` (Azure App Service; both also a map
as ``var.x``, ``local.x``, ``merge(...)``) and an ECS task's
``container_definitions`` (``jsonencode([...])`` or a JSON heredoc: each container's ``environment``, ``name``,
``image``). **Its names**: its ``name`` and a nested
``metadata { name }`` (a Lambda's ``function_name``), settled, and the last path segment of its ``image`` (a
Lambda's ``image_uri``; a ``data`` source's ``name`` when the image is that data source's attribute).
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

_IDENT = re.compile(r"[A-Za-z_][\w-]*")
_HEREDOC = re.compile(r"<<-?\s*([A-Za-z_]\w*)[ \t]*\n")
_REF = re.compile(r"(var|local)\.([A-Za-z_][\w-]*)")
_TEMPLATE_REF = re.compile(r"(?<!\$)\$\{\s*(var|local)\.([A-Za-z_][\w-]*)\s*\}")   # ``$${`` is a literal ``${``
#: how deep a chain of references (``local.a`` naming ``var.b`` naming ...) is followed
_MAX_DEPTH = 32
_ESCAPE = re.compile(r'\\([\\"nrt])')


@dataclass
class Expr:
    """An expression as written (``raw``), at ``line``; a list's items or an object's entries when it is one."""

    raw: str
    line: int
    kind: str = "other"        # string | list | object | other
    items: list[Expr] = field(default_factory=list)
    entries: dict[str, Expr] = field(default_factory=dict)
    text: str | None = None    # a string's content, its ``${...}`` kept


@dataclass
class Block:
    type: str
    labels: list[str]
    line: int
    attrs: dict[str, Expr] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str) -> None:
        self.s, self.i = text, 0
        self.starts = [m.end() for m in re.finditer("\n", text)]   # where each line after the first begins
        self.unclosed: int | None = None   # the line of the outermost block the file never closes

    def line(self, at: int | None = None) -> int:
        return bisect.bisect_right(self.starts, self.i if at is None else at) + 1

    def skip(self, newlines: bool = True) -> None:
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t\r" or (c == "\n" and newlines):
                self.i += 1
            elif c == "#" or s.startswith("//", self.i):
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
            elif s.startswith("/*", self.i):
                end = s.find("*/", self.i + 2)
                self.i = len(s) if end < 0 else end + 2
            else:
                return

    def body(self, end: str | None) -> Block:
        block = Block("", [], self.line())
        while True:
            self.skip()
            if self.i >= len(self.s) or (end and self.s[self.i] == end):
                self.i += 1
                return block
            start = self.i
            name = _IDENT.match(self.s, self.i)
            if name is None:   # not HCL we read: skip the line
                stop = self.s.find("\n", self.i)
                self.i = len(self.s) if stop < 0 else stop + 1
                continue
            self.i = name.end()
            self.skip(newlines=False)
            if self.s.startswith("=", self.i) and not self.s.startswith("==", self.i):
                self.i += 1
                self.skip(newlines=False)
                block.attrs[name.group()] = self.expr()
                continue
            labels = []
            while self.i < len(self.s) and self.s[self.i] != "{":
                if self.s[self.i] == '"':
                    labels.append(self.string().text or "")
                elif (label := _IDENT.match(self.s, self.i)) is not None:
                    labels.append(label.group())
                    self.i = label.end()
                else:
                    break
                self.skip(newlines=False)
            if not self.s.startswith("{", self.i):
                stop = self.s.find("\n", start)
                self.i = len(self.s) if stop < 0 else stop + 1
                continue
            self.i += 1
            inner = self.body("}")
            if self.i > len(self.s):   # the text ended inside it (the outermost such block is set last)
                self.unclosed = self.line(start)
            inner.type, inner.labels, inner.line = name.group(), labels, self.line(start)
            block.blocks.append(inner)

    def string(self) -> Expr:
        start, line = self.i, self.line()
        self.i += 1
        depth = 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == "\\":
                self.i += 2
                continue
            if self.s.startswith("${", self.i) or self.s.startswith("%{", self.i):
                depth += 1
                self.i += 2
                continue
            if depth and c == '"':
                self.string()   # a string inside an interpolation
                continue
            if depth and c == "{":   # an object inside an interpolation: its ``}`` does not end the interpolation
                depth += 1
            elif depth and c == "}":
                depth -= 1
            elif not depth and c == '"':
                self.i += 1
                break
            self.i += 1
        raw = self.s[start:self.i]
        return Expr(raw, line, "string", text=raw[1:-1])

    def expr(self) -> Expr:
        """One expression up to the end of its line (or a ``,``, ``]``, ``}`` outside brackets)."""
        start, line = self.i, self.line()
        c = self.s[self.i] if self.i < len(self.s) else ""
        parsed: Expr | None = None
        if c == "[":
            self.i += 1
            parsed = Expr("", line, "list")
            while True:
                self.skip()
                if self.i >= len(self.s) or self.s[self.i] == "]":
                    self.i += 1
                    break
                before = self.i
                parsed.items.append(self.expr())
                if self.i == before:   # a bracket that closes something else: the list ends unclosed
                    break
                self.skip()
                if self.s.startswith(",", self.i):
                    self.i += 1
        elif c == "{":
            self.i += 1
            parsed = Expr("", line, "object")
            while True:
                self.skip()
                if self.i >= len(self.s) or self.s[self.i] == "}":
                    self.i += 1
                    break
                before = self.i
                key = self._key()
                if key is None:
                    self._to_end()
                    if self.i == before:   # a bracket that closes something else: the object ends unclosed
                        break
                    continue
                self.skip(newlines=False)
                if self.i < len(self.s) and self.s[self.i] in "=:":
                    self.i += 1
                    self.skip(newlines=False)
                    parsed.entries[key] = self.expr()
                self.skip()
                if self.s.startswith(",", self.i):
                    self.i += 1
        elif c == '"':
            parsed = self.string()
        elif (text := self._heredoc()) is not None:
            return Expr(self.s[start:self.i], line, "string", text=text)
        primary_end = self.i
        self._to_end()
        raw = self.s[start:self.i].strip()
        if parsed is None or self.s[primary_end:self.i].strip():
            return Expr(raw, line)   # a reference, a call, an operator after a literal: kept as written
        parsed.raw = raw
        return parsed

    def _key(self) -> str | None:
        if self.s.startswith('"', self.i):
            return self.string().text
        found = _IDENT.match(self.s, self.i)
        if found is None:
            return None
        self.i = found.end()
        return found.group()

    def _heredoc(self) -> str | None:
        """A heredoc here (``<<EOT``, ``<<-EOT``): past its end marker, its text; None when there is none."""
        heredoc = _HEREDOC.match(self.s, self.i)
        if heredoc is None:
            return None
        end = re.compile(rf"^\s*{heredoc.group(1)}\s*$", re.M).search(self.s, heredoc.end())
        self.i = end.end() if end else len(self.s)
        return self.s[heredoc.end():end.start() if end else len(self.s)]

    def _to_end(self) -> None:
        """Past the rest of an expression: to a newline, ``,``, ``]`` or ``}`` outside brackets, strings and
        heredocs (``trimspace(<<EOT``: a quote or a bracket of its text is text)."""
        depth = 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == '"':
                self.string()
                continue
            if c == "<" and self._heredoc() is not None:
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    return
                depth -= 1
            elif depth == 0 and c in ",\n":
                return
            elif c == "#" or self.s.startswith(("//", "/*"), self.i):
                if depth == 0:
                    return   # a comment ends the expression's text
                self.skip(newlines=False)
                continue
            self.i += 1


def parse(text: str) -> Block:
    """The top-level body of one ``.tf`` file (Windows line ends read as ``\n``: a heredoc's marker ends its line)."""
    return _Parser(text.replace("\r\n", "\n")).body(None)


def _parsed(text: str) -> tuple[Block, int | None]:
    """The top-level body and the line of the outermost block the file never closes (None: closed)."""
    parser = _Parser(text.replace("\r\n", "\n"))
    return parser.body(None), parser.unclosed


def syntax_problem(text: str) -> str | None:
    """Why a ``.tf``/``.tfvars`` file is not read (one line, for `services.unreadable`), or None: a block the file
    never closes would take the rest of the file in, so nothing is read from it, as other readers do."""
    unclosed = _parsed(text)[1]
    return None if unclosed is None else (f"Terraform: the block opened at line {unclosed} is not closed at the end "
                                          "of the file")


def _whole(path: Path) -> Block | None:
    """A file's top-level body, or None when it cannot be read or leaves a block unclosed (said by `unreadable`)."""
    try:
        body, unclosed = _parsed(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return body if unclosed is None else None


@dataclass
class EnvEntry:
    """One variable a resource is given: its value as written and where, and the value when the files fix it."""

    name: str
    written: str
    file: str
    line: int
    value: str | None
    #: the Terraform variable the value waits for (``var.project`` with no default, no argument): given at apply time
    needs: str | None = None
    #: a module output it is (``module.x.endpoint``): what that output is made of (`_Scope.output`)
    output: str | None = None
    #: the sensitive variable it goes through (``sensitive = true``): its value is never shown
    sensitive: str | None = None


@dataclass
class Resource:
    """A resource of a module instance: what to call it, its names, images and environment."""

    address: str               # google_cloud_run_service.service (module cloud_run_trainer_grpc)
    file: str
    line: int
    names: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    env: list[EnvEntry] = field(default_factory=list)


@dataclass
class _Module:
    folder: str
    blocks: list[tuple[Block, str]]   # (top-level block, its file)
    #: every folder's blocks (the modules this one calls, by their ``source``)
    folders: dict[str, list[tuple[Block, str]]] = field(default_factory=dict)


class _Scope:
    """What ``var.x`` and ``local.x`` mean in one module instance."""

    def __init__(self, module: _Module, args: dict[str, tuple[Expr, _Scope | None, str]]) -> None:
        self.module = module
        self.vars: dict[str, tuple[Expr, _Scope | None, str]] = {}
        self.locals: dict[str, tuple[Expr, _Scope, str]] = {}
        self.data: dict[str, Block] = {}
        #: the variables declared ``sensitive = true``: their values (a default, a call's argument) are never shown
        self.sensitive: set[str] = set()
        for block, file in module.blocks:
            if block.type == "variable" and block.labels and "sensitive" in block.attrs:
                self.sensitive |= {block.labels[0]} if block.attrs["sensitive"].raw == "true" else set()
            if block.type == "variable" and block.labels and "default" in block.attrs:
                self.vars[block.labels[0]] = (block.attrs["default"], self, file)
            elif block.type == "locals":
                for name, expr in block.attrs.items():
                    self.locals[name] = (expr, self, file)
            elif block.type == "data" and len(block.labels) == 2:
                self.data[".".join(block.labels)] = block
        self.vars.update(args)
        self._memo: dict[tuple[str, str, str], object] = {}

    def lookup(self, kind: str, name: str) -> tuple[Expr, _Scope | None, str] | None:
        return (self.vars if kind == "var" else self.locals).get(name)

    def follow(self, method: str, kind: str, name: str, depth: int, empty=None):  # noqa: ANN001, ANN201
        """``method`` (settle, needs, secret, pairs, objects) of what ``var.x``/``local.x`` stands for, once per name
        in this scope: a name used many times is read once, and one that reaches itself (a cycle, which Terraform
        refuses) is ``empty`` (reading it again each time stalled on a few lines of locals that name each other)."""
        key = (method, kind, name)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = empty   # while it is read: a cycle ends here
        found = self.lookup(kind, name)
        if found is None or found[1] is None:
            value = empty
        elif method in ("pairs", "objects"):
            value = getattr(found[1], method)(found[0], found[2], depth + 1)
        else:
            value = getattr(found[1], method)(found[0], depth + 1)
        self._memo[key] = value
        return value

    def secret(self, expr: Expr, depth: int = 0) -> str | None:
        """The sensitive variable (``sensitive = true``) a ``var.x``/``local.x`` chain, or a string template's, goes
        through, if any: its value is not shown."""
        if depth > _MAX_DEPTH:
            return None
        refs = ([(m.group(1), m.group(2)) for m in _TEMPLATE_REF.finditer(expr.text)]
                if expr.kind == "string" and expr.text is not None else
                [(m.group(1), m.group(2)) for m in [_REF.fullmatch(expr.raw)] if m])
        for kind, name in refs:
            if kind == "var" and name in self.sensitive:
                return name
            inner = self.follow("secret", kind, name, depth)
            if inner:
                return inner
        return None

    def settle(self, expr: Expr, depth: int = 0) -> str | None:
        """The expression's value when the files fix it, else None."""
        if depth > _MAX_DEPTH:
            return None
        if expr.kind == "string" and expr.text is not None and "%{" not in expr.text:
            text = expr.text

            def one(match: re.Match) -> str:
                value = self.follow("settle", match.group(1), match.group(2), depth)
                if value is None:
                    raise LookupError
                return value

            try:
                text = _TEMPLATE_REF.sub(one, text)
            except LookupError:
                return None
            if re.search(r"(?<!\$)\$\{", text):
                return None
            text = text.replace("$${", "${").replace("%%{", "%{")
            if expr.raw.startswith('"'):   # a quoted string's escapes (a heredoc has none)
                text = _ESCAPE.sub(lambda m: {"n": "\n", "r": "\r", "t": "\t"}.get(m.group(1), m.group(1)), text)
            return text
        ref = _REF.fullmatch(expr.raw)
        if ref is not None:
            return self.follow("settle", ref.group(1), ref.group(2), depth)
        if expr.kind == "other" and re.fullmatch(r"-?\d+(\.\d+)?|true|false", expr.raw):
            return expr.raw
        return None

    def needs(self, expr: Expr, depth: int = 0) -> str | None:
        """The root module's variables an unsettled ``var.x`` chain, or a string template's, ends at (what the
        deployment must give), if any: ``db_password, region``."""
        if depth > _MAX_DEPTH:
            return None
        if expr.kind == "string" and expr.text is not None:
            names = [self.needs(Expr(f"{m.group(1)}.{m.group(2)}", expr.line), depth + 1)
                     for m in _TEMPLATE_REF.finditer(expr.text)]
            return ", ".join(dict.fromkeys(n for n in names if n)) or None
        ref = _REF.fullmatch(expr.raw)
        if ref is None:
            return None
        if self.lookup(ref.group(1), ref.group(2)) is None:
            return ref.group(2) if ref.group(1) == "var" else None
        return self.follow("needs", ref.group(1), ref.group(2), depth)

    def output(self, expr: Expr) -> str | None:
        """``module.NAME.OUT`` of a local module this one calls: the resources that output is made of, settled with
        the call's arguments (``output endpoint of module cloud_run_trainer_grpc: google_cloud_run_service.service
        trainer-grpc``), the value itself known only when Terraform applies it."""
        ref = re.fullmatch(r"module\.([\w-]+)\.([\w-]+)", expr.raw)
        call = next((b for b, _ in self.module.blocks if ref and b.type == "module" and b.labels == [ref.group(1)]),
                    None)
        source = call.attrs.get("source") if call is not None else None
        target = _source_folder(self.module.folder, source.text or "") if source is not None and source.kind == \
            "string" else None
        if ref is None or call is None or target not in self.module.folders:
            return None
        blocks = self.module.folders[target]
        inner = _Scope(_Module(target, blocks, self.module.folders),
                       {k: (v, self, "") for k, v in call.attrs.items() if k != "source"})
        out = next((b for b, _ in blocks if b.type == "output" and b.labels == [ref.group(2)]), None)
        value = out.attrs.get("value") if out is not None else None
        if value is None:
            return None
        made = []
        for block, _ in blocks:
            address = ".".join(block.labels)
            if block.type == "resource" and len(block.labels) == 2 and re.search(
                    rf"(?<![\w.]){re.escape(address)}\.", value.raw):
                name = inner.settle(block.attrs["name"]) if "name" in block.attrs else None
                made.append(address + (f" {name}" if name else ""))
        return f"output {ref.group(2)} of module {ref.group(1)}" + (f": {', '.join(made)}" if made else "")

    def pairs(self, expr: Expr, file: str, depth: int = 0) -> list[tuple[str, Expr, _Scope, str]]:
        """The entries of a map expression (an object literal, ``var.x``, ``local.x``, ``merge(...)`` of those), each
        with the scope and file it is written in; later ones win, as ``merge`` does."""
        if depth > _MAX_DEPTH:
            return []
        if expr.kind == "object":
            return [(key, value, self, file) for key, value in expr.entries.items()]
        ref = _REF.fullmatch(expr.raw)
        if ref is not None:
            return self.follow("pairs", ref.group(1), ref.group(2), depth, [])
        call = re.fullmatch(r"merge\((.*)\)", expr.raw, re.S)
        if call is None:
            return []
        merged: dict[str, tuple[str, Expr, _Scope, str]] = {}
        for item in _Parser(f"[{call.group(1)}]").expr().items:
            for entry in self.pairs(item, file, depth + 1):
                merged[entry[0]] = entry
        return list(merged.values())

    def objects(self, expr: Expr, file: str, depth: int = 0) -> list[tuple[Expr, _Scope, str]]:
        """The object items of a list expression (a literal, ``var.x``, ``local.x``, ``concat(...)``), each with the
        scope and file it is written in."""
        if depth > _MAX_DEPTH:
            return []
        if expr.kind == "list":
            return [(item, self, file) for item in expr.items if item.kind == "object"]
        ref = _REF.fullmatch(expr.raw)
        if ref is not None:
            return self.follow("objects", ref.group(1), ref.group(2), depth, [])
        call = re.fullmatch(r"concat\((.*)\)", expr.raw, re.S)
        if call is not None:
            args = _Parser(f"[{call.group(1)}]").expr()
            return [o for item in args.items for o in self.objects(Expr(item.raw, expr.line, item.kind, item.items,
                                                                        item.entries, item.text), file, depth + 1)]
        return []


def _files(root: Path, paths: list[str]) -> dict[str, list[tuple[Block, str]]]:
    """Folder -> its parsed ``.tf`` files."""
    out: dict[str, list[tuple[Block, str]]] = {}
    for rel in sorted(p for p in paths if p.endswith(".tf")):
        body = _whole(root / rel)
        if body is None:
            continue
        folder = PurePosixPath(rel).parent.as_posix()
        out.setdefault(folder, []).extend((block, rel) for block in body.blocks)
    return out


def _source_folder(folder: str, source: str) -> str | None:
    if not source.startswith(("./", "../")):
        return None   # a registry or git module: not in the project
    parts: list[str] = [] if folder == "." else folder.split("/")
    for part in source.rstrip("/").split("/"):
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts) or "."


def _auto_loaded(name: str) -> bool:
    return name == "terraform.tfvars" or name.endswith(".auto.tfvars")


def _tfvars(root: Path, paths: list[str]) -> tuple[dict[str, dict[str, tuple[Expr, str]]], set[str]]:
    """The variable files: folder -> the values its auto-loaded files (``terraform.tfvars``, ``*.auto.tfvars``, in
    Terraform's order, later wins) give its root module's variables; and the names any other ``.tfvars`` file sets
    (one ``-var-file`` picks when it is applied: not fixed by the files)."""
    auto: dict[str, dict[str, tuple[Expr, str]]] = {}
    chosen: set[str] = set()
    for rel in sorted((p for p in paths if p.endswith(".tfvars")),
                      key=lambda p: (PurePosixPath(p).name != "terraform.tfvars", p)):
        body = _whole(root / rel)
        if body is None:
            continue
        if _auto_loaded(PurePosixPath(rel).name):
            values = auto.setdefault(PurePosixPath(rel).parent.as_posix(), {})
            values.update({name: (expr, rel) for name, expr in body.attrs.items()})
        else:
            chosen |= set(body.attrs)
    return auto, chosen


def read_terraform(root: Path, paths: list[str]) -> list[Resource]:
    """Every resource that runs a container (an image or an environment), of every root module and the local
    modules it calls; a root module's variables from its folder's auto-loaded ``.tfvars`` over their defaults, and
    not fixed where another ``.tfvars`` file sets them."""
    folders = _files(root, paths)
    auto, chosen = _tfvars(root, paths)
    called: set[str] = set()
    for folder, blocks in folders.items():
        for block, _ in blocks:
            source = block.attrs.get("source")
            if block.type == "module" and source is not None and source.kind == "string":
                target = _source_folder(folder, source.text or "")
                if target is not None and target != folder:
                    called.add(target)
    found: list[Resource] = []
    for folder in sorted(set(folders) - called):
        _instance(folders, folder, {}, "", found, (), (auto.get(folder, {}), chosen))
    return found


def _instance(folders: dict[str, list[tuple[Block, str]]], folder: str,
              args: dict[str, tuple[Expr, _Scope | None, str]], within: str, found: list[Resource],
              path: tuple[str, ...], tfvars: tuple[dict[str, tuple[Expr, str]], set[str]] = ({}, set())) -> None:
    """The resources of one module instance (``path``: the folders of the calls that led here; a call of a folder
    on it is a cycle Terraform refuses, not read again)."""
    if len(path) > 5 or folder in path or folder not in folders:
        return
    scope = _Scope(_Module(folder, folders[folder], folders), args)
    auto, chosen = tfvars   # a root module's: what its variable files set (a -var-file's over the auto-loaded)
    scope.vars.update({name: (expr, scope, file) for name, (expr, file) in auto.items()})
    for name in chosen:
        scope.vars.pop(name, None)
    for block, file in folders[folder]:
        if block.type == "module" and block.labels:
            source = block.attrs.get("source")
            target = _source_folder(folder, source.text or "") if source is not None and source.kind == "string" else None
            if target is not None:
                given = {name: (expr, scope, file) for name, expr in block.attrs.items() if name != "source"}
                _instance(folders, target, given, f"module {block.labels[0]}", found, (*path, folder))
        elif block.type == "resource" and len(block.labels) == 2:
            resource = _resource(block, file, scope, within)
            definitions = block.attrs.get("container_definitions")
            containers = _containers(definitions, file, scope, resource.address) if definitions is not None else []
            # a container it runs (a bucket or a repository is no service); an ECS task's containers each apart
            found += [one for one in [resource, *containers] if one.env or one.images]


def _resource(block: Block, file: str, scope: _Scope, within: str) -> Resource:
    address = ".".join(block.labels) + (f" ({within})" if within else "")
    out = Resource(address, file, block.line)
    names = [block.attrs.get("name"), block.attrs.get("function_name")]   # a Lambda's is its function_name
    for expr in names + [b.attrs.get("name") for b in block.blocks if b.type == "metadata"]:
        value = scope.settle(expr) if expr is not None else None
        if value:
            out.names.append(value)
    _walk(block, file, scope, out)
    return out


def _walk(block: Block, file: str, scope: _Scope, out: Resource) -> None:
    image = block.attrs.get("image", block.attrs.get("image_uri"))   # a Lambda's image is its image_uri
    if image is not None:
        value = scope.settle(image)
        ref = re.fullmatch(r"data\.([\w-]+\.[\w-]+)\.[\w.\[\]]+", image.raw)
        if value is None and ref is not None and ref.group(1) in scope.data:
            data_name = scope.data[ref.group(1)].attrs.get("name")
            value = scope.settle(data_name) if data_name is not None else None
        if value:
            out.images.append(value)
    settings = block.attrs.get("app_settings")
    if settings is not None:   # an object, var.x, local.x or merge(...) of those
        out.env += [_entry(key, expr, at_file, at) for key, expr, at, at_file in scope.pairs(settings, file)]
    for inner in block.blocks:
        if inner.type == "env" and "name" in inner.attrs:
            key = scope.settle(inner.attrs["name"])
            source = next((b for b in inner.blocks if b.type in ("value_source", "value_from")), None)
            if key and "value" in inner.attrs:
                out.env.append(_entry(key, inner.attrs["value"], file, scope))
            elif key and source is not None:   # a secret's or a field's value: known at run time
                what = "/".join(b.type for b in source.blocks) or source.type
                out.env.append(EnvEntry(key, f"{source.type} {what}", file, source.line, None))
        elif inner.type == "dynamic" and inner.labels == ["env"]:
            out.env += _dynamic_env(inner, file, scope)
        elif inner.type == "environment" and inner.attrs.get("variables") is not None:
            variables = inner.attrs["variables"]
            out.env += [_entry(key, expr, at_file, at) for key, expr, at, at_file in scope.pairs(variables, file)]
        else:
            _walk(inner, file, scope, out)


def _containers(definitions: Expr, file: str, scope: _Scope, address: str) -> list[Resource]:
    """An ECS task definition's ``container_definitions``: ``jsonencode([{name, image, environment = [{name,
    value}]}])`` or the same as a JSON string (a heredoc); each container apart (its name, image and environment: a
    sidecar's are not the application's)."""
    out: list[Resource] = []
    call = re.fullmatch(r"jsonencode\((.*)\)", definitions.raw, re.S)
    if call is not None:
        parsed = _Parser(call.group(1)).expr()
        for index, container in enumerate(parsed.items if parsed.kind == "list" else []):
            name = scope.settle(container.entries["name"]) if "name" in container.entries else None
            image = scope.settle(container.entries["image"]) if "image" in container.entries else None
            one = Resource(f"{address} container {name or index}", file, definitions.line + container.line - 1,
                           [name] if name else [], [image] if image else [])
            environment = container.entries.get("environment")
            for entry in environment.items if environment is not None and environment.kind == "list" else []:
                key = scope.settle(entry.entries["name"]) if "name" in entry.entries else None
                if key and "value" in entry.entries:
                    value = entry.entries["value"]
                    value.line = definitions.line + value.line - 1   # its line in the file, not in the call
                    one.env.append(_entry(key, value, file, scope))
            out.append(one)
        return out
    try:
        data = json.loads(definitions.text or "") if definitions.kind == "string" else None
    except ValueError:
        return out
    for index, container in enumerate(data if isinstance(data, list) else []):
        if not isinstance(container, dict):
            continue
        name = container["name"] if isinstance(container.get("name"), str) else None
        one = Resource(f"{address} container {name or index}", file, definitions.line, [name] if name else [],
                       [container["image"]] if isinstance(container.get("image"), str) else [])
        for entry in container.get("environment") or []:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str) and "value" in entry:
                one.env.append(EnvEntry(entry["name"], str(entry["value"]), file, definitions.line,
                                        None if "${" in str(entry["value"]) else str(entry["value"])))
        out.append(one)
    return out


def _dynamic_env(block: Block, file: str, scope: _Scope) -> list[EnvEntry]:
    """``dynamic "env" { for_each = LIST  content { name = env.value.name  value = env.value.value } }``: each
    object of the list, its attributes picked as ``content`` names them."""
    for_each = block.attrs.get("for_each")
    content = next((b for b in block.blocks if b.type == "content"), None)
    if for_each is None or content is None:
        return []
    iterator = scope.settle(block.attrs["iterator"]) if "iterator" in block.attrs else None
    iterator = iterator or (block.attrs["iterator"].raw if "iterator" in block.attrs else "env")

    def pick(expr: Expr | None) -> str | None:
        found = re.fullmatch(rf"{re.escape(iterator)}\.value\.([\w-]+)", expr.raw) if expr is not None else None
        return found.group(1) if found else None

    name, value = content.attrs.get("name"), content.attrs.get("value")
    if name is not None and value is not None and (name.raw, value.raw) == (f"{iterator}.key", f"{iterator}.value"):
        # ``for_each`` over a map: ``name = env.key``, ``value = env.value``
        return [_entry(key, expr, item_file, item_scope)
                for key, expr, item_scope, item_file in scope.pairs(for_each, file)]
    name_key, value_key = pick(name), pick(value)
    out = []
    for item, item_scope, item_file in scope.objects(for_each, file):
        name = item.entries.get(name_key or "")
        value = item.entries.get(value_key or "")
        key = item_scope.settle(name) if name is not None else None
        if key and value is not None:
            out.append(_entry(key, value, item_file, item_scope))
    return out


def _entry(name: str, expr: Expr, file: str, scope: _Scope) -> EnvEntry:
    written = expr.text if expr.kind == "string" and expr.text is not None and "${" not in expr.text else expr.raw
    secret = scope.secret(expr)
    if secret:
        return EnvEntry(name, written, file, expr.line, None, sensitive=secret)
    return EnvEntry(name, written, file, expr.line, scope.settle(expr), scope.needs(expr), scope.output(expr))
