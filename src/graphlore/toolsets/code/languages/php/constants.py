"""PHP values for folding: string literals (``'...'``, ``"..."`` with ``$x`` / ``{$this->x}`` interpolated),
``.`` concatenation, class constants (``self::X``, ``static::X``, ``Type::X`` of the project class the name
means as the file's ``use`` imports or namespace make it), locals and properties (``$this->x`` set by an
initialiser or in a method), ``sprintf`` with ``%s``/``%d``, environment reads (``getenv('X')``, ``$_ENV['X']``, ``$_SERVER['X']``) and a default given with ``?:`` or ``??``
(``getenv('X') ?: 'http://d'``: the variable, with that default)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...model import CallFact, FileFacts
from ..folding import (
    UNKNOWN,
    Folded,
    Folder,
    Scope,
    choice,
    env,
    has_unknown,
    literal,
    named_unknown,
    printf,
    split_top,
    unescape,
    unknown,
)
from ..symbols import Table

ENV_READERS = frozenset({"getenv"})

_TOKEN = re.compile("|".join((
    r"(?P<sq>'(?:[^'\\]|\\.)*')",
    r'(?P<dq>"(?:[^"\\]|\\.)*")',
    r"(?P<this>\$this\s*(?:->|\?->)\s*[A-Za-z_]\w*)",
    r"(?P<var>\$[A-Za-z_]\w*(?:\s*->\s*[A-Za-z_]\w*)*)",
    r"(?P<scoped>\\?[A-Za-z_][\w\\]*\s*::\s*[A-Za-z_]\w*)",
    r"(?P<num>\d[\w.]*)",
    r"(?P<name>\\?[A-Za-z_][\w\\]*)",
    r"(?P<arrow>->\s*[A-Za-z_]\w*)",
    r"(?P<op>[.(),])",
    r"(?P<ws>\s+)",
    r"(?P<other>.)",
)))
_INTERPOLATION = re.compile(r"\{(\$[^{}]+)\}|\$\{([A-Za-z_]\w*)\}|(\$this->[A-Za-z_]\w*|\$[A-Za-z_]\w*)")


def php_tokens(text: str) -> list[tuple[str, str]]:
    """A PHP expression as the shared folder's tokens: ``.`` is ``+``, ``$this->x`` the name ``this.x``,
    ``A::X`` the name ``A.X``, a double-quoted string its literal pieces and interpolated names."""
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        kind, value = match.lastgroup or "other", match.group()
        if kind == "ws":
            continue
        if kind == "sq":
            out.append(("str", value))
        elif kind == "dq":
            out += _interpolated(value[1:-1])
        elif kind == "this":
            out.append(("name", "this." + re.split(r"->\s*", value)[-1].strip()))
        elif kind == "var":
            out.append(("name", re.sub(r"\s*->\s*", ".", value)))
        elif kind == "scoped":
            owner, _, member = re.sub(r"\s+", "", value).partition("::")
            out.append(("name", owner.replace("\\", ".") + "." + member))   # ``\A\B::X``: ``.A.B.X``, full
        elif kind == "name":
            out.append(("name", value.lstrip("\\").replace("\\", ".")))
        elif kind == "arrow":
            out.append(("other", value))   # a property or method of something else: not folded
        elif kind == "op":
            out.append(("op", "+" if value == "." else value))
        else:
            out.append((kind, value))
    return out


def _interpolated(body: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    last = 0
    for match in _INTERPOLATION.finditer(body):
        if match.start() > last:
            parts.append(("str", '"' + body[last:match.start()] + '"'))
        inner = match.group(1) or ("$" + match.group(2) if match.group(2) else match.group(3))
        tokens = php_tokens(inner)
        parts += [("op", "("), *tokens, ("op", ")")] if len(tokens) > 1 else tokens
        last = match.end()
    if last < len(body) or not parts:
        parts.append(("str", '"' + body[last:] + '"'))
    out: list[tuple[str, str]] = [("op", "(")]
    for index, part in enumerate(parts):
        if index and part != ("op", ")") and out[-1] != ("op", "("):
            if not (part[0] == "op" and part[1] == ")"):
                out.append(("op", "+"))
        out.append(part)
    return [*out, ("op", ")")]


def _split_default(text: str) -> tuple[str, str, str]:
    """``a ?: b`` / ``a ?? b`` at the top level -> (a, operator, b); else (text, "", "")."""
    for operator in ("?:", "??"):
        parts = split_top(text, operator)
        if len(parts) > 1:
            return parts[0], operator, f" {operator} ".join(parts[1:])
    return text, "", ""


def full_name(facts: FileFacts, written: str) -> str:
    """The fully qualified name (``A.B.C``) a class name written in ``facts`` stands for: through its ``use``
    imports, else in its namespace (a name written with a leading ``\\`` is already full)."""
    name = written.replace("\\", ".")
    if name.startswith("."):
        return name[1:]
    head, dot, rest = name.partition(".")
    for imp in facts.imports:
        for target, alias in imp.names:
            if alias == head and not imp.static:
                return target + dot + rest
    return f"{facts.package}.{name}" if facts.package else name


class PHPConstants:
    """Every class constant of the project, by (the class's full name, constant name); and what makes each class's
    constructor arguments: its ``new T(...)`` sites and Symfony container registrations (by the class's full
    name), the container's parameters (``setParameter('name', value)``), and the classes a project class
    extends."""

    def __init__(self, table: Table, settings: Mapping[str, Any] | None = None) -> None:
        self.by_type: dict[tuple[str, str], list[tuple[str, FileFacts, str]]] = {}
        #: a file's Symfony service configuration (`services.settings.SymfonyServices`), by the file's path
        self.services: dict[str, Any] = {}
        self.constructions: dict[str, list[tuple[CallFact, FileFacts]]] = {}
        self.registrations: dict[str, list[tuple[dict, FileFacts]]] = {}
        self.parameters: dict[str, list[tuple[str, FileFacts, str, int]]] = {}
        self.extended: set[str] = set()
        for bound in table.files.values():
            facts = bound.facts
            if facts.language != "php":
                continue
            for sym in facts.symbols:
                if sym.kind == "field" and "const" in sym.modifiers and "value" in sym.extra and sym.parent:
                    owner = f"{facts.package}.{sym.parent}" if facts.package else sym.parent
                    self.by_type.setdefault((owner, sym.name), []).append((sym.extra["value"], facts, sym.parent))
                self.extended.update(full_name(facts, written) for relation, written in sym.supers
                                     if relation == "extends")
            for call in facts.calls:
                if call.kind == "new" and call.receiver:
                    self.constructions.setdefault(full_name(facts, call.receiver[1]), []).append((call, facts))
                elif call.name == "setParameter" and len(call.args) == 2 and call.args[0][:1] in ("'", '"'):
                    self.parameters.setdefault(call.args[0][1:-1], []).append((call.args[1], facts, call.owner,
                                                                               call.line))
            symfony = getattr((settings or {}).get(bound.ctx.module), "symfony", None)
            if symfony is not None:
                self.services[facts.path] = symfony
            for registration in facts.extra.get("registrations", []):
                self.registrations.setdefault(full_name(facts, registration["class"]), []).append((registration,
                                                                                                   facts))


_CONTAINER = re.compile(r"%env\((?:[\w-]+:)*(\w+)\)%|%([\w.]+)%")


def _container_value(written: str, parameters: Mapping[str, str], depth: int) -> Folded:
    """A Symfony container value as written: ``%env(X)%`` (``%env(string:X)%`` too) the environment variable,
    ``%name%`` the parameter, ``@id`` a service (not a string)."""
    if written.startswith("@") or depth > 6:
        return unknown(f"{written} is a service, not a value" if written.startswith("@") else "parameters nest too deeply")
    out, last = literal(""), 0
    for match in _CONTAINER.finditer(written):
        out = out + literal(written[last:match.start()])
        if match.group(1):
            out = out + env(match.group(1))
        elif match.group(2) in parameters:
            out = out + _container_value(parameters[match.group(2)], parameters, depth + 1)
        else:
            out = out + unknown(f"container parameter {match.group(2)} is set in no services.yaml")
        last = match.end()
    return out + literal(written[last:].replace("%%", "%"))


class PHPFolder(Folder):
    """Folds a PHP expression written in ``facts`` inside the class ``class_key`` ("" outside a class)."""

    env_tables = frozenset({"$_ENV", "$_SERVER"})

    def __init__(self, constants: PHPConstants, facts: FileFacts, class_key: str) -> None:
        super().__init__()
        self.constants, self.facts, self.class_key = constants, facts, class_key

    def fold(self, text: str) -> Folded:
        text = text.strip()
        left, operator, right = _split_default(text)
        if operator:
            return self.with_default(self.fold(left), self.fold(right), operator)
        if not text:
            return unknown("empty expression")
        if self.depth > 12:
            return unknown("values refer to each other too deeply")
        self.depth += 1
        try:
            value, rest = self._sum(php_tokens(text))
            return value if not rest else unknown(f"not a constant expression: {text[:80]}")
        finally:
            self.depth -= 1

    def string(self, kind: str, text: str) -> Folded:
        if text.startswith("'"):
            return literal(re.sub(r"\\([\\'])", r"\1", text[1:-1]))
        return literal(unescape(text[1:-1]))

    def name(self, name: str) -> Folded:
        if name.startswith("$") and "." not in name:
            found = self.local(name)
            if found is None:
                found = self.constructor_argument(name)
            return found if found is not None else named_unknown(name[1:], f"{name} is known at run time only")
        if name.startswith("$"):
            return unknown(f"{name.replace('.', '->')} is known at run time only")
        if name.startswith("this."):
            found = self.member(name[5:], ("this",))
            if found is None:
                found = self.promoted(name[5:])
            return found if found is not None else named_unknown(name[5:], f"$this->{name[5:]} is not set "
                                                                                 "to a constant")
        owner, dot, constant = name.rpartition(".")
        if not dot:
            return unknown(f"{name} is not a constant")
        if owner in ("self", "static"):
            owner = f"{self.facts.package}.{self.class_key}" if self.facts.package else self.class_key
        else:
            owner = full_name(self.facts, owner)   # as PHP reads the name: a use import, else the namespace's
        candidates = self.constants.by_type.get((owner, constant), [])
        if len(candidates) != 1:
            return unknown(f"{name.replace('.', '::')} is not a constant" if not candidates
                           else f"{name} names {len(candidates)} constants")
        expr, facts, class_key = candidates[0]
        inner = PHPFolder(self.constants, facts, class_key)
        inner.depth = self.depth + 1
        return inner.fold(expr)

    def constructor_argument(self, name: str) -> Folded | None:
        """A ``__construct`` parameter as everything that makes the class passes it: each ``new T(...)`` of the
        project and each Symfony container registration's arguments (``addArgument``, ``setArguments``, a
        ``getParameter('p')`` being the ``setParameter('p', value)``). None (known at run time only) when the
        scope is no constructor, a project class extends the class (its constructor may pass anything), nothing
        makes it, or one of them passes a value not known."""
        scope = self.scope
        if scope is None or self.depth > 8:
            return None
        symbols = {s.key: s for s in scope.facts.symbols}
        ctor = symbols.get(scope.owner)
        if ctor is None or ctor.kind != "constructor" or not ctor.parent:
            return None
        index = next((i for i, (param, _) in enumerate(ctor.params) if param == name), None)
        fqn = f"{scope.facts.package}.{ctor.parent}" if scope.facts.package else ctor.parent
        if index is None or fqn in self.constants.extended:
            return None
        written: list[tuple[str, FileFacts, str, int]] = []
        for call, facts in self.constants.constructions.get(fqn, ()):
            if index >= call.argc:
                continue   # a default value: not read
            if index >= len(call.args):
                return None
            written.append((call.args[index], facts, call.owner, call.line))
        for registration, facts in self.constants.registrations.get(fqn, ()):
            if index >= len(registration["args"]):
                return None   # autowired: the container passes a service
            written.append((registration["args"][index], facts, "", registration["line"]))
        configured = self.configured_argument(fqn, name, index, ctor.params[index][1])
        if configured is not None:
            if has_unknown(configured.text):
                return None
            values = [configured]
        else:
            values = []
        for expr, facts, owner, line in written:
            site = PHPFolder(self.constants, facts, owner.split(".", 1)[0] if owner else "")
            site.depth = self.depth + 1
            value = site.at(facts, owner, line).fold(expr)
            if has_unknown(value.text) or value.text == UNKNOWN:
                return None
            values.append(value)
        return choice(values) if values else None

    def configured_argument(self, fqn: str, name: str, index: int, type_: str) -> Folded | None:
        """The value the module's Symfony ``services.yaml`` gives a constructor parameter: the service's
        ``arguments`` (``$name`` or position), else a ``_defaults`` ``bind`` (``$name``, ``type $name``); None when it
        gives none. ``%env(X)%`` is environment variable ``X``, ``%p%`` the parameter ``p``, ``@id`` a service."""
        config = self.constants.services.get(self.scope.facts.path) if self.scope is not None else None
        if config is None:
            return None
        given = config.arguments.get(fqn, {})
        written = given.get(name, given.get(str(index)))
        if written is None:
            written = config.bind.get(f"{type_} {name}") or config.bind.get(name)
        return None if written is None else _container_value(written, config.parameters, 0)

    def promoted(self, field: str) -> Folded | None:
        """A promoted constructor parameter (``__construct(private string $url)``): its constructor argument."""
        if self.scope is None or not self.class_key:
            return None
        facts = self.scope.facts
        key = f"{self.class_key}.{field}"
        if not any(s.key == key and "promoted" in s.modifiers for s in facts.symbols):
            return None
        ctor = next((s for s in facts.symbols if s.key == f"{self.class_key}.__construct"), None)
        if ctor is None:
            return None
        saved = self.scope
        self.scope = Scope(facts, ctor.key, ctor.line_end + 1)
        try:
            return self.constructor_argument("$" + field)
        finally:
            self.scope = saved

    def container_parameter(self, args: list[list[tuple[str, str]]]) -> Folded:
        """``$container->getParameter('p')``: the value ``setParameter('p', value)`` gives it (one, project-wide)."""
        key = self.fold_tokens(args[0]) if len(args) == 1 else unknown("getParameter without one name")
        found = self.constants.parameters.get(key.text, []) if key.known else []
        if len(found) != 1:
            return unknown(f"container parameter {key.text} is set {len(found)} times" if key.known
                           else "a container parameter that is not named by a constant")
        expr, facts, owner, line = found[0]
        site = PHPFolder(self.constants, facts, owner.split(".", 1)[0] if owner else "")
        site.depth = self.depth + 1
        return site.at(facts, owner, line).fold(expr)

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        if found is not None:
            return found
        if name.startswith("$") and name.endswith(".getParameter"):
            return self.container_parameter(args)
        if name == "sprintf" and args:
            return printf(self.fold_tokens(args[0]), [self.fold_tokens(a) for a in args[1:]], "sd", "sprintf")
        return unknown(f"the result of {name}(...)")
