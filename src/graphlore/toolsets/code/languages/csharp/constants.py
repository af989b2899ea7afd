"""C# constants for folding: ``const`` fields and ``static readonly`` string fields (in the enclosing types, or
``Type.Name`` of any project type), verbatim (``@"..."``) and interpolated (``$"...{X}..."``) strings with
constant parts, and concatenation; and the type an expression makes when it says it (`made_type`: ``new T(..)``,
Mapster's ``x.Adapt<T>()``, AutoMapper's ``mapper.Map<T>(x)``).

**.NET configuration.** A read of ``IConfiguration`` (``configuration["A:B"]``, ``GetValue<T>("A:B")``,
``GetConnectionString("X")`` for ``ConnectionStrings:X``, ``GetSection("A")["B"]``/``.GetValue<T>("B")``/``.Value``,
sections held in locals) is the setting's value: each value the module's ``appsettings.json`` and
``appsettings.<Environment>.json`` files give it (several make a choice: which environment runs is not in the
code), each overridden by the environment variable ``A__B`` where the project's deployment files set it (as .NET's
environment provider does), else unknown. The receiver must be configuration: a ``Configuration`` property
(``builder.Configuration``) or a name declared ``IConfiguration`` (a parameter, local, field or primary constructor
parameter); any other ``x["A:B"]`` is no setting. An options class bound to a section (``Configure<T>(configuration
.GetSection("A"))``, ``AddOptions<T>().Bind(...)``/``.BindConfiguration("A")``; ``Configure<T>(configuration)`` binds the root), one section per class in the process
that runs the reading code: its service, or the app binding a library's class)
gives its properties as settings: ``options.Value.Url`` on an ``IOptions<T>`` (``IOptionsSnapshot<T>``,
``IOptionsMonitor<T>.CurrentValue``) parameter, or on a field a constructor sets from one, ``settings.Url`` on a
field or local declared ``T``, and ``configuration.GetSection("A").Get<T>()`` held in a local, and ``sp.GetRequiredService<IOptions<T>>().Value``
(or ``GetService``, ``IOptionsMonitor<T>.CurrentValue``: a typed client's ``(sp, c) => ..`` registration) read or
held in a local, are ``A:Url``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...model import FileContext, FileFacts, SymbolFact
from ..folding import Folded, Folder, choice, env, literal, named_unknown, unescape, unknown
from ..symbols import Table, reaches

if TYPE_CHECKING:
    from ...services.settings import Values

#: calls that read an environment variable
ENV_READERS = frozenset({"Environment.GetEnvironmentVariable", "System.Environment.GetEnvironmentVariable"})


#: the types whose instances are the whole configuration (a section's path is not known from its type)
CONFIG_TYPES = frozenset({"IConfiguration", "IConfigurationRoot", "IConfigurationManager", "ConfigurationManager"})
_SECTIONS = r"(?:\s*\.\s*Get(?:Required)?Section\s*\([^()]*\))*"
_SECTION = re.compile(r"\.\s*Get(?:Required)?Section\s*\(([^()]*)\)")
_CONFIG_READ = re.compile(
    rf"^(?P<recv>[A-Za-z_][\w.]*?)(?P<sections>{_SECTIONS})\s*(?:\[(?P<index>[^\[\]]+)\]"
    r"|\.\s*GetValue\s*<[^<>()]+>\s*\((?P<value>[^(),]+)(?:,(?P<default>[^()]*))?\)"
    r"|\.\s*GetConnectionString\s*\((?P<connection>[^()]+)\)|\.\s*(?P<plain>Value))$")
_SECTION_ONLY = re.compile(rf"^(?P<recv>[A-Za-z_][\w.]*?)(?P<sections>{_SECTIONS})$")
_BOUND_GET = re.compile(rf"^(?P<recv>[A-Za-z_][\w.]*?)(?P<sections>{_SECTIONS})\s*\.\s*Get\s*<[^<>()]+>\s*\(\s*\)\s*!?$")
#: the options interfaces and the property that gives the bound object
OPTIONS = {"IOptions": "Value", "IOptionsSnapshot": "Value", "IOptionsMonitor": "CurrentValue"}
#: an options object taken from the service provider (``sp.GetRequiredService<IOptions<T>>().Value``), alone or read
_RESOLVED = (r"[A-Za-z_]\w*\s*\.\s*Get(?:Required)?Service\s*<\s*(?:IOptions|IOptionsSnapshot|IOptionsMonitor)\s*<\s*"
             r"(?P<type>[\w.]+)\s*>\s*>\s*\(\s*\)\s*\.\s*(?:Value|CurrentValue)")
_RESOLVED_OPTIONS = re.compile(rf"^{_RESOLVED}\s*!?$")
_RESOLVED_OPTIONS_READ = re.compile(rf"^{_RESOLVED}\s*\.\s*(?P<rest>\w+(?:\s*\.\s*\w+)*)\s*!?$")
_OPTIONS_PARAM = r"\b(?:IOptions|IOptionsSnapshot|IOptionsMonitor)\s*<\s*([\w.]+)\s*>\s*\??\s+{name}\b"


class CSharpConstants:
    """Every C# constant of the project: by (type name, field name) and by type key within a file; and each
    module's settings (``settings``, by module path), found by a file's path."""

    def __init__(self, table: Table, settings: Mapping[str, Values] | None = None) -> None:
        self.by_type: dict[tuple[str, str], list[tuple[str, FileFacts, str]]] = {}
        #: method name -> (method, its file's facts) of every method of the project (a helper building a URL)
        self.methods: dict[str, list[tuple[SymbolFact, FileFacts]]] = {}
        self.settings = settings or {}
        self.module_of: dict[str, str] = {}
        self.context_of: dict[str, FileContext] = {}
        self._files = [bound for bound in table.files.values() if bound.facts.language == "csharp"]
        #: options class name -> (the section a binding gives it, None: not known; where the binding is)
        self._options: dict[str, list[tuple[str | None, FileContext]]] | None = None
        for bound in table.files.values():
            if bound.facts.language != "csharp":
                continue
            self.module_of[bound.path] = bound.ctx.module
            self.context_of[bound.path] = bound.ctx
            for sym in bound.facts.symbols:
                if sym.kind == "method" and sym.parent:
                    self.methods.setdefault(sym.name, []).append((sym, bound.facts))
                if sym.kind == "field" and "value" in sym.extra and sym.parent and (
                        "const" in sym.modifiers or {"static", "readonly"} <= set(sym.modifiers)):
                    owner = sym.parent.rsplit(".", 1)[-1]
                    self.by_type.setdefault((owner, sym.name), []).append((sym.extra["value"], bound.facts, sym.parent))


    def options_section(self, type_name: str, reader: FileContext | None) -> str | None:
        """The section the project binds the options class ``type_name`` to, in the process of the code ``reader``
        (its own service or, for a library's code, the app binding it; never another deployed service's class of
        that name), or None: none, or several."""
        if self._options is None:
            self._options = {}
            for bound in self._files:
                facts = bound.facts
                generic = facts.extra.get("generic_calls", [])
                for call in facts.calls:
                    if call.name not in ("Configure", "Bind", "BindConfiguration") or len(call.args) != 1:
                        continue
                    name = "Configure" if call.name == "Configure" else "AddOptions"
                    if name == "AddOptions" and (not call.receiver or call.receiver[0] != "call" or
                                                 call.receiver[2] != "AddOptions"):
                        continue
                    types = [t for line, n, t in generic if n == name and line <= call.line]
                    if not types or not types[-1]:
                        continue
                    folder = CSharpFolder(self, facts, call.owner.rpartition(".")[0]).at(facts, call.owner, call.line)
                    if call.name == "BindConfiguration":
                        key = folder.fold(call.args[0])
                        section = key.text if key.known else None
                    else:
                        held = _SECTION_ONLY.match(call.args[0].strip())
                        path = folder.section_path(held.group("recv"), held.group("sections")) if held else None
                        if path is None:
                            continue   # a lambda, or no configuration
                        # ``Configure<T>(configuration)``: the root, its keys top-level ("")
                        section = ":".join(path) if None not in path else None
                    self._options.setdefault(types[-1][0].rsplit(".", 1)[-1], []).append((section, bound.ctx))
        found = {section for section, where in self._options.get(type_name.rsplit(".", 1)[-1], [])
                 if reader is None or reaches(where, reader)}
        return next(iter(found)) if len(found) == 1 else None

    def is_options(self, type_name: str) -> bool:
        self.options_section("", None)
        return type_name.rsplit(".", 1)[-1] in (self._options or {})


class CSharpFolder(Folder):
    """Folds a C# expression written in ``facts`` inside the type ``class_key``."""

    bare_field_assigns = True
    default_operators = ("??",)   # ``Environment.GetEnvironmentVariable("X") ?? "d"``

    def __init__(self, constants: CSharpConstants, facts: FileFacts, class_key: str) -> None:
        super().__init__()
        self.constants, self.facts, self.class_key = constants, facts, class_key

    def fold(self, text: str) -> Folded:
        text = text.strip()
        if text.endswith("!") and len(text) > 1:   # the null-forgiving operator: ``configuration["A:B"]!`` is the read
            text = text[:-1].rstrip()
        read = _CONFIG_READ.match(text)
        if read is not None:
            found = self.setting(read)
            if found is not None:
                return found
        resolved = _RESOLVED_OPTIONS_READ.match(text)
        if resolved is not None:   # sp.GetRequiredService<IOptions<T>>().Value.Url
            return self.bound_property(resolved.group("type"), re.split(r"\s*\.\s*", resolved.group("rest")))
        if text.startswith(("$\"", "$@\"", "@$\"")):
            return self.interpolated(text)
        if text.startswith('@"') and text.endswith('"'):
            return literal(text[2:-1].replace('""', '"'))
        return super().fold(text)

    def interpolated(self, text: str) -> Folded:
        body = text[text.index('"') + 1:-1]
        out = literal("")
        for piece in re.split(r"(\{\{|\}\}|\{[^{}]*\})", body):
            if piece in ("{{", "}}"):
                out = out + literal(piece[0])
            elif piece.startswith("{") and piece.endswith("}"):
                expr = piece[1:-1].split(":", 1)[0].strip()
                out = out + (self.name(expr) if re.fullmatch(r"[A-Za-z_][\w.]*", expr)
                             else unknown(f"the interpolation {{{expr}}}"))
            else:
                out = out + literal(unescape(piece))
        return out

    def string(self, kind: str, text: str) -> Folded:
        return literal(unescape(text[1:-1]))

    def fold_tokens(self, toks: list[tuple[str, str]]) -> Folded:
        if len(toks) > 1 and toks[-1][1] == "!":   # the null-forgiving operator, as in `fold` (an argument's tokens)
            toks = toks[:-1]
        read = _CONFIG_READ.match("".join(text for _, text in toks))
        found = self.setting(read) if read is not None else None
        return found if found is not None else super().fold_tokens(toks)

    def subscript(self, name: str, key: Folded) -> Folded:
        path = self.section_path(name, "")
        if path is None or path == [None] or not key.known:
            return super().subscript(name, key) if path is None else unknown("a configuration read of no known key")
        return self.setting_value(":".join([*path, key.text]), None)

    # -- .NET configuration (see the module docstring) ---------------------------------------------------------
    def setting(self, read: re.Match) -> Folded | None:
        """The value of a configuration read; None when the receiver is not configuration."""
        path = self.section_path(read.group("recv"), read.group("sections"))
        if path is None:
            return None
        if path == [None]:
            return unknown("a configuration section whose path is not known")
        written = read.group("index") or read.group("value") or read.group("connection")
        if written is not None:
            key = self.fold(written)
            if not key.known:
                return unknown("a configuration key that is not a constant")
            path = [*path, "ConnectionStrings", key.text] if read.group("connection") else [*path, key.text]
        elif not path:
            return None   # ``configuration.Value``: no setting
        default = self.fold(read.group("default")) if read.group("default") else None
        return self.setting_value(":".join(path), default.text if default is not None and default.known else None)

    def setting_value(self, key: str, default: str | None) -> Folded:
        module = self.constants.module_of.get(self.facts.path)
        values = self.constants.settings.get(module) if module is not None else None
        given = list(dict.fromkeys(v for v, _ in (values.dotnet.get(key.lower(), []) if values else [])))
        variable = key.replace(":", "__")
        if not given:
            return env(variable, default)
        return choice([env(variable, value) for value in given])

    def section_path(self, receiver: str, sections: str, depth: int = 0) -> list | None:
        """The configuration path ``receiver`` and its ``GetSection`` calls stand for ([] the root, [None] a section
        not known); None when the receiver is not configuration."""
        keys = []
        for written in _SECTION.findall(sections or ""):
            key = self.fold(written)
            if not key.known:
                return [None]
            keys.extend(key.text.split(":"))
        receiver = receiver.removeprefix("this.")
        if receiver == "Configuration" or receiver.endswith(".Configuration"):
            return keys
        if "." in receiver or self.scope is None or depth > 4:
            return None
        declared = self.declared_type(receiver)
        if declared in CONFIG_TYPES:
            return keys
        if declared == "IConfigurationSection":
            return [None]
        held = self.held_section(receiver)
        if held is None:
            return None
        inner = self.section_path(held.group("recv"), held.group("sections"), depth + 1)
        return inner if inner is None or inner == [None] else [*inner, *keys]

    def options_value(self, name: str) -> Folded | None:
        """A property of a bound options object (see the module docstring); None when ``name`` is none."""
        head, *rest = name.split(".")
        wrapped = self.options_type(head)
        if wrapped is not None:
            kind, bound_type = wrapped
            if len(rest) < 2 or rest[0] != OPTIONS[kind]:
                return None
            rest = rest[1:]
        else:
            declared = self.declared_type(head)
            if declared and self.constants.is_options(declared):
                bound_type = declared
            elif (resolved := self.held(head, _RESOLVED_OPTIONS)) is not None:
                bound_type = resolved.group("type")   # var o = sp.GetRequiredService<IOptions<T>>().Value
            else:
                held = self.held(head, _BOUND_GET)
                if held is None:
                    return None
                path = self.section_path(held.group("recv"), held.group("sections"))
                if path is None:
                    return None
                if None in path:
                    return unknown("a configuration section whose path is not known")
                return self.setting_value(":".join([*path, *rest]), None)
        return self.bound_property(bound_type, rest)

    def bound_property(self, bound_type: str, rest: list[str]) -> Folded:
        """The setting a property path of the options class ``bound_type`` reads (its one bound section's key)."""
        section = self.constants.options_section(bound_type, self.constants.context_of.get(self.facts.path))
        if section is None:
            return unknown(f"the project binds {bound_type} to no one configuration section")
        return self.setting_value(":".join(p for p in (section, *rest) if p), None)

    def options_type(self, name: str) -> tuple[str, str] | None:
        """(options interface, bound class) of a parameter (or a primary constructor's) declared
        ``IOptions<T>``-like, or of a field a constructor sets from one."""
        scope = self.scope
        assert scope is not None
        kind = self.declared_type(name)
        if kind not in OPTIONS:
            return None
        pattern = re.compile(_OPTIONS_PARAM.format(name=re.escape(name)))
        symbols = {sym.key: sym for sym in scope.facts.symbols}
        parents = self._parents(scope.facts)
        owner: str | None = scope.owner
        while owner is not None:
            sym = symbols.get(owner)
            found = pattern.search(sym.signature) if sym is not None else None
            if found:
                return kind, found.group(1)
            owner = parents.get(owner) if owner else None
        # a field: the constructor parameter it is set from
        for sym in scope.facts.symbols:
            if sym.kind != "constructor":
                continue
            for _line, exprs in scope.facts.extra.get("assigns", {}).get(sym.key, {}).get(name, ()):
                source = exprs[0].strip() if len(exprs) == 1 else ""
                found = re.search(_OPTIONS_PARAM.format(name=re.escape(source)), sym.signature) if source else None
                if found:
                    return kind, found.group(1)
        return None

    def declared_type(self, name: str) -> str:
        """The type a parameter, local, field or primary constructor parameter around the scope is declared with."""
        scope = self.scope
        assert scope is not None
        parents = self._parents(scope.facts)
        owner: str | None = scope.owner
        while owner is not None:
            seen = [t for line, t in scope.facts.locals.get(owner, {}).get(name, ()) if line <= scope.line]
            if seen:
                return seen[-1].split("<", 1)[0].rstrip("?").rsplit(".", 1)[-1]
            field = next((sym for sym in scope.facts.symbols if sym.parent == owner and sym.name == name
                          and sym.kind in ("field", "property")), None)
            if field is not None:
                return field.type.rstrip("?").rsplit(".", 1)[-1]
            owner = parents.get(owner) if owner else None
        return ""

    def held_section(self, name: str) -> re.Match | None:
        """``var section = configuration.GetSection("A")``: the one section expression a local is assigned."""
        found = self.held(name, _SECTION_ONLY)
        return found if found is not None and found.group("sections") else None

    def held(self, name: str, pattern: re.Pattern[str]) -> re.Match | None:
        """The one expression a local is assigned before the scope's line, when it matches ``pattern``."""
        scope = self.scope
        assert scope is not None
        entries = [e for e in scope.facts.extra.get("assigns", {}).get(scope.owner, {}).get(name, ())
                   if e[0] <= scope.line]
        if len(entries) != 1 or len(entries[0][1]) != 1:
            return None
        return pattern.match(entries[0][1][0].strip())

    def name(self, name: str) -> Folded:
        if "." in name and self.scope is not None:
            bound = self.options_value(name.removeprefix("this."))
            if bound is not None:
                return bound
        found = None if "." in name else self.local(name)
        if found is not None:
            return found
        owner, dot, field = name.rpartition(".")
        candidates = []
        if dot:
            candidates = self.constants.by_type.get((owner.rsplit(".", 1)[-1], field), [])
        else:
            scope = self.class_key
            while scope and not candidates:
                candidates = [c for c in self.constants.by_type.get((scope.rsplit(".", 1)[-1], name), [])
                              if c[1] is self.facts]
                scope = scope.rpartition(".")[0]
        if len(candidates) != 1:
            if not candidates:
                return named_unknown(name, f"{name} is not a constant")
            return unknown(f"{name} names {len(candidates)} constants")
        expr, facts, class_key = candidates[0]
        inner = CSharpFolder(self.constants, facts, class_key)
        inner.depth = self.depth + 1
        return inner.fold(expr)

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        if found is None:
            found = self.helper(name, args)
        return found if found is not None else unknown(f"the result of {name}(...)")

    def helper(self, name: str, args: list[list[tuple[str, str]]]) -> Folded | None:
        """A call of a method of the project: what it returns with its parameters bound to the arguments
        (`Folder.returned_by`). ``M(..)``/``this.M(..)`` is the method of the class around the call (or a class
        around that); ``T.M(..)``, ``Outer.Inner.M(..)`` or a namespace-qualified name, a static method of that
        type in code the caller's process runs. None (the result unknown) when the name is a variable's, names no
        method or several (an overload: which one runs is not read), a local function or delegate variable around
        the call is the one called, a subclass overrides it, or its returns are not read."""
        head, _, method = name.removeprefix("this.").rpartition(".")
        if head and "." not in head and self.scope is not None and self.declared_type(head):
            return None   # a method of a variable's object: which class's is not read here
        if not name.startswith("this.") and not head and self.scope is not None and (self.declared_type(method) or any(
                first <= self.scope.line <= last
                for first, last in self.facts.extra.get("local_functions", {}).get(method, ()))):
            return None   # a local function or a delegate variable of that name hides the method
        reader = self.constants.context_of.get(self.facts.path)
        found = []
        for sym, facts in self.constants.methods.get(method, ()):
            where = self.constants.context_of.get(facts.path)
            if reader is not None and where is not None and not reaches(reader, where):
                continue
            owner = sym.parent or ""
            if head:
                qualified = f"{facts.package}.{owner}" if facts.package else owner
                if not (owner == head or qualified == head or owner.endswith("." + head) or
                        qualified.endswith("." + head)):
                    continue
            elif facts is not self.facts or not (self.class_key == owner or self.class_key.startswith(owner + ".")):
                continue
            found.append((sym, facts))
        if not head and found:   # the innermost class declaring it hides the outer ones
            innermost = max(len(sym.parent or "") for sym, _ in found)
            found = [(sym, facts) for sym, facts in found if len(sym.parent or "") == innermost]
        if len(found) != 1:
            return None   # none, or an overload (one key holds every overload's returns)
        sym, facts = found[0]
        if _overridden(self.constants, sym, reader):
            return None   # a subclass's override may run instead: which class's is not read
        return self.returned_by(CSharpFolder(self.constants, facts, sym.parent or ""), facts, sym, args)


def _overridden(constants: CSharpConstants, method: SymbolFact, reader: FileContext | None) -> bool:
    """Whether ``method`` is ``virtual``/``abstract``/``override`` and another method of its name in code ``reader``'s
    process runs is an ``override`` (``Root()`` called in a base class runs the subclass's ``Root`` on its objects)."""
    if not {"virtual", "abstract", "override"} & set(method.modifiers):
        return False
    for other, facts in constants.methods.get(method.name, ()):
        where = constants.context_of.get(facts.path)
        if other is not method and "override" in other.modifiers and (
                reader is None or where is None or reaches(reader, where)):
            return True
    return False

# ---- the type an expression makes (frameworks read a message's or request's type with it) ----

#: ``new T(..)`` (a cast before it allowed; ``new T<A>(..)`` is ``T``)
NEW = re.compile(r"^(?:\(\s*[\w.<>, ]+\s*\)\s*)?new\s+([\w.]+)\s*[({<]")
#: Mapster's ``x.Adapt<T>()``, AutoMapper's ``mapper.Map<T>(x)`` (``Map<TSource, T>``: the last type argument)
MAPPED = re.compile(r"\.(?:Adapt|Map)\s*<\s*(?:[\w.]+\s*,\s*)?([\w.]+)\s*>\s*\([^()]*\)$")


def made_type(text: str) -> str | None:
    """The simple name of the type ``text`` makes or maps to, else None."""
    text = text.strip().removesuffix("!")
    found = NEW.match(text) or MAPPED.search(text)
    return found.group(1).rsplit(".", 1)[-1] if found else None
