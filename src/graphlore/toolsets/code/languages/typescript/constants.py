"""TS/JS constants for folding: module-level ``const`` strings, also imported (``import { API } from
"./config"``), template literals with constant parts, a function's locals and a class's fields
(``this.baseUrl``), and environment reads (``process.env.X``, ``process.env["X"]``, ``import.meta.env.X``, k6's
``__ENV.X``), with the default a literal after ``||`` or ``??`` gives (``process.env.API || "http://api"``), also
destructured (``const { API = "http://api" } = process.env``, read as that ``??``)."""

from __future__ import annotations

import re

from ...model import FileFacts
from ..folding import (
    CHOICE_OPEN,
    ENV_OPEN,
    FileFolder,
    Folded,
    Scope,
    choice,
    env,
    literal,
    named_unknown,
    split_top,
    unescape,
    unknown,
)
from .fallbacks import conditional, fallback
from .nest_config import config_receiver, nest_config
from .sources import declaring_file, object_properties, resolve_script

__all__ = ["ScriptFolder", "declaring_file", "object_properties", "resolve_script"]

_ENV_TABLE = r"(?:process\.env|import\.meta\.env|__ENV)"
_ENV = re.compile(rf"^{_ENV_TABLE}\.([A-Za-z_]\w*)$")
#: an environment read with a fallback: ``process.env.X || "..."`` / ``?? "..."`` (also ``process.env["X"]``)
_ENV_OR = re.compile(rf"""^{_ENV_TABLE}(?:\.([A-Za-z_]\w*)|\[\s*["']([A-Za-z_]\w*)["']\s*\])\s*(?:\|\||\?\?)\s*(.+)$""",
                     re.DOTALL)

#: a property of a page's global object (``window?.APP_CONFIG?.API_BASE_URL``, ``globalThis.config.url``): a
#: configuration script served beside the bundle sets it, which no project file is
_GLOBAL = re.compile(r"^(?:window|globalThis)(?:\??\.[A-Za-z_$][\w$]*)+$")

class ScriptFolder(FileFolder):
    """Folds a TS/JS expression in a file (its ``const`` strings and the ones it imports); files by path."""

    env_tables = frozenset({"process.env", "import.meta.env", "__ENV"})
    default_operators = ("||", "??")
    conditional_of = staticmethod(conditional)
    fallback_of = staticmethod(fallback)

    def fold(self, text: str) -> Folded:
        if _GLOBAL.match(text.strip()):
            return self.global_value(text.strip().replace("?.", "."))
        found = _ENV_OR.match(text.strip()) if conditional(text) is None else None
        if found:
            fallback = super().fold(found.group(3))
            plain = fallback.known and not any(m in fallback.text for m in (ENV_OPEN, CHOICE_OPEN))
            return env(found.group(1) or found.group(2), fallback.text if plain else None)
        return super().fold(text)

    def global_value(self, read: str) -> Folded:
        """``window.X.Y``: what the project's files assign it (``window.X.Y = ...``; several: a choice), else unknown,
        saying whether a file sets ``window.X`` as a whole (not read into) or none does."""
        whole = read.rsplit(".", 1)[0] if read.count(".") > 1 else None
        found, wholes = [], []
        for facts in self.files.values():
            for owner, table in facts.extra.get("assigns", {}).items():
                found += [self.fold_in(Scope(facts, owner, line, ()), exprs) for line, exprs in table.get(read, ())]
                wholes += [f"{facts.path}:{line}" for line, _ in table.get(whole, ())] if whole else []
        if found:
            return choice(found)
        if wholes:
            return unknown(f"{read} is a part of {whole}, which {wholes[0]} sets as a whole (not read into)")
        return unknown(f"{read} is a browser global the page sets at run time, set by no file of the project")

    def name(self, name: str) -> Folded:
        found = self.scoped(name, "this")
        if found is not None:
            return found
        variable = _ENV.match(name)
        if variable:
            return env(variable.group(1))
        found = self.constructed(name)
        if found is not None:
            return found
        return super().name(name)

    def constructed(self, name: str) -> Folded | None:
        """A constructor's parameter, or a property of the options object it takes (``options.baseUrl``), as every
        ``new C(...)`` of the project passes it (several: a choice), folded where each is written; None when the
        name is no parameter of the constructor being folded or nothing constructs its class. A construction is
        read in the class's own file or in a file that imports the class from it (under any local name); a subclass's
        ``super(...)`` and an options object that spreads another over the property add a value not known."""
        scope = self.scope
        if scope is None or not scope.owner:
            return None
        symbols = {sym.key: sym for sym in scope.facts.symbols}
        ctor = symbols.get(scope.owner)
        if ctor is None or ctor.kind != "constructor" or ctor.parent not in symbols:
            return None
        head, _, prop = name.partition(".")
        params = [param.lstrip(".") for param, _ in ctor.params]
        if head not in params or "." in prop:
            return None
        index, cls, home = params.index(head), symbols[ctor.parent].name, scope.facts.path
        values: list[Folded] = []
        for path, facts in self.files.items():
            local = {cls} if path == home else self.imported_as(facts, path, home, cls)
            if not local:
                continue
            values += [unknown(f"{sym.name} at {path} extends {cls}: what its super(...) passes is not read")
                       for sym in facts.symbols if sym.kind == "class" and
                       any(base.rsplit(".", 1)[-1] in local for _, base in sym.supers)]
            for call in facts.calls:
                if call.kind != "new" or call.name not in local:
                    continue
                arg = call.args[index] if index < len(call.args) else None
                if arg is not None and prop and _spreads_over(arg, prop):
                    values.append(unknown(f"new {cls}(...) at {path}:{call.line} spreads an object that may set {name}"))
                    continue
                if arg is not None and prop:
                    arg = object_properties(arg).get(prop)
                if arg is None:
                    values.append(unknown(f"new {cls}(...) at {path}:{call.line} passes no {name}"))
                    continue
                folder = ScriptFolder(self.files, path).at(facts, call.owner, call.line + 1)
                folder.depth = self.depth + 1
                values.append(folder.fold(arg) if folder.depth <= 8 else unknown("values refer to each other too deeply"))
        return choice(values) if values else None

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        """``configService.get('a.b')`` of NestJS: the configuration value (`nest_config`); a project helper's
        returned value (`helper`); other calls unknown."""
        scope = self.scope
        if scope is not None and len(args) >= 1 and config_receiver(scope.facts, scope.owner, name):
            key = self.fold_tokens(args[0])
            if not key.known:
                return unknown(f"{name}(...) of a key that is not a constant")
            return nest_config(self.files, scope.facts.path, key.text, self._fold_written)
        found = self.helper(name, args)
        return found if found is not None else super().call(name, args)

    def _fold_written(self, facts: FileFacts, line: int, text: str) -> Folded:
        """An expression as a configuration factory of ``facts`` writes it at ``line``."""
        folder = ScriptFolder(self.files, facts.path).at(facts, "", line)
        folder.depth = self.depth + 1
        return folder.fold(text) if folder.depth <= 8 else unknown("values refer to each other too deeply")

    def imported_as(self, facts: FileFacts, path: str, home: str, cls: str) -> set[str]:
        """The names a file gives class ``cls`` of file ``home`` (``{C as D}``, ``{C: D} = require``, a default
        import or ``require``'s value); ``cls`` itself through a namespace import (``new ns.C()``)."""
        names: set[str] = set()
        for imp in facts.imports:
            if resolve_script(self.files, path, imp.target) == home:
                names |= {cls if name == "*" else alias for name, alias in imp.names
                          if name in (cls, "default", "require", "*")}
            elif imp.target.startswith(".") and not imp.reexport:   # through re-exporting barrel files
                names |= {alias for name, alias in imp.names if name == cls and declaring_file(
                    self.files, path, imp.target, name, lambda target, _: target == home) == (home, cls)}
        return names

    def string(self, kind: str, text: str) -> Folded:
        body = text[1:-1]
        if kind != "tpl":
            return literal(unescape(body))
        out = literal("")
        for piece in re.split(r"(\$\{[^{}]*\})", body):
            if piece.startswith("${") and piece.endswith("}"):
                expr = piece[2:-1].strip()
                if re.fullmatch(r"[A-Za-z_$][\w$.]*", expr):
                    out = out + self.name(expr)
                elif conditional(expr) is not None or "||" in expr or "??" in expr:   # ${process.env.H || "h"}
                    out = out + self.fold(expr)
                else:
                    out = out + unknown(f"the template part ${{{expr}}}")
            else:
                out = out + literal(unescape(piece))
        return out

    def imported(self, facts: FileFacts, key: str, name: str) -> tuple[str, str] | None:
        for imp in facts.imports:
            for imported, alias in imp.names:
                if alias == name and imp.target.startswith("."):
                    target = resolve_script(self.files, key, imp.target)
                    if target is not None:
                        return target, imported
        return None

    def unknown_name(self, name: str) -> Folded:
        return named_unknown(name, f"{name} is not a constant (a variable or parameter: known at run time only)")

    def helper(self, name: str, args: list[list[tuple[str, str]]]) -> Folded | None:
        """``f(..)``, ``ns.f(..)``, ``Cls.m(..)``: what a top-level function (or ``const f = (..) => ..``) or a static
        method of a class of the project returns, in this file or imported by name or as a namespace (``import *
        as ns``), its parameters bound to the arguments (`Folder.returned_by`). None (the result unknown) when the
        name is a local's, no such function, or an instance method (which object's is not read)."""
        facts = self.files.get(self.key)
        first, dot, rest = name.partition(".")
        if facts is None or self.local(first) is not None or any(a and a[0][1] == "..." for a in args):
            return None
        key, there = self.key, name
        if not any(s.name == first and not s.parent for s in facts.symbols):
            where = self.imported(facts, self.key, first)
            if where is not None and where[1] == "*":   # import * as ns: ns.f
                key, there = where[0], rest
            elif where is not None:
                key, there = where[0], where[1] + (dot + rest)
            else:
                return None
        home = self.files.get(key)
        found = [s for s in home.symbols if s.key == there and (
            s.kind == "function" and not s.parent or s.kind == "method" and "static" in s.modifiers)] \
            if home is not None else []
        if len(found) != 1:
            return None
        return self.returned_by(type(self)(self.files, key), home, found[0], args)



def _spreads_over(text: str, prop: str) -> bool:
    """An object literal that spreads another object (``{...defaults}``) where it may set ``prop``: after ``prop`` is
    written, or anywhere when it is not."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return False
    spread = False
    for part in split_top(text[1:-1]):
        if part.strip().startswith("..."):
            spread = True
        elif part.partition(":")[0].strip().strip("'\"") == prop:
            spread = False
    return spread
