"""Go constants for folding: package-level ``const`` values and string ``var`` initialisers of any file of a
package (``pkg.Name`` through an import too), concatenation, and ``fmt.Sprintf`` with ``%s``/``%d``/``%v`` and
constant arguments. A variable that code assigns at run time (``baseUrl = os.Getenv(...)``) is not a
constant: only its initialiser is known, so a ``var`` is folded from what the package's functions assign it
(several assignments: one of them).

A function's locals are read as every language's are (`folding.Folder.local`); ``os.Getenv("X")`` is the
environment variable. A struct field (``fe.addr``) is what the package's functions write into it: directly
(``svc.addr = v``), in a struct literal (``&client{addr: v}``, when no other struct type of the package declares
a field of that name), or through a pointer handed to a function of the package that writes it
(``mustMapEnv(&svc.addr, "ADDR")`` with ``*target = os.Getenv(envKey)``), the function's parameters bound to
the call's arguments.

**Configuration structs.** A field whose struct tag names an environment variable (cleanenv ``env:"X"`` with
``env-default:"d"``, envconfig ``envconfig:"X"`` with ``default:"d"``) is that variable wherever code reads it as
``x.Type.Field`` or ``x.field.Field`` (``cfg.ProductClient.URL``: the struct type, or a field of that type, then the
field), when every such field of the project names one variable, or as ``x.Field`` (a promoted field,
``cfg.ProductHost``) when every field of that name in the project is tagged with one variable; the deployment env settles it as any other read.
Never when ``x`` is a local or parameter declared with a type of a package outside the project (``h hooks.Hook``:
``h.URL`` is the library's field).
A ``yaml``/``mapstructure`` key alone (a value of a config file chosen at run time) is not read."""

from __future__ import annotations

import re

from ...model import CallFact, FileFacts
from ..folding import (
    CHOICE_CLOSE,
    CHOICE_OPEN,
    CHOICE_SEP,
    ENV_CLOSE,
    ENV_DEFAULT,
    ENV_OPEN,
    Folded,
    Folder,
    Scope,
    choice,
    env,
    has_unknown,
    literal,
    named_unknown,
    printf,
    unescape,
    unknown,
)

_TAG = re.compile(r'([\w-]+):"([^"]*)"')
#: struct tag keys that name a field's environment variable, with the key of its default
ENV_TAGS = {"env": "env-default", "envconfig": "default"}

#: writes of one name followed at most (a field every handler sets is no configured value)
MAX_WRITES = 8


class GoValues:
    """Every package's foldable values by name (``package import path -> name -> expression``), and what its
    functions write into package variables and struct fields."""

    def __init__(self, files: list[tuple[str, FileFacts]]) -> None:
        self.values: dict[str, dict[str, str]] = {}
        self.assigned: dict[str, set[str]] = {}
        #: package -> name (a variable, or a field's name) -> (facts, owner, target, line, expressions)
        self.writes: dict[str, dict[str, list[tuple[FileFacts, str, str, int, list[str]]]]] = {}
        #: package -> field -> (facts, call) of each call that hands ``&x.field`` to a function of the package
        self.pointers: dict[str, dict[str, list[tuple[FileFacts, CallFact]]]] = {}
        #: package -> function name -> (facts, key, parameter names)
        self.functions: dict[str, dict[str, tuple[FileFacts, str, list[str]]]] = {}
        #: "Type.Field" -> (environment variable, default) of a field whose tag names one (see the module docstring)
        self.tagged: dict[str, set[tuple[str, str | None]]] = {}
        #: a field's name -> the types fields of that name have
        self.field_types: dict[str, set[str]] = {}
        #: field name -> the variables fields of that name are tagged with ("" for a field without one)
        self.by_field: dict[str, set[tuple[str, str | None]]] = {}
        #: package -> field name -> the struct types of the package that declare a field of that name
        self.declared: dict[str, dict[str, set[str]]] = {}
        for package, facts in files:
            self._tags(facts)
            for sym in facts.symbols:
                if sym.kind == "field" and sym.parent:
                    self.declared.setdefault(package, {}).setdefault(sym.name, set()).add(sym.parent)
            self.values.setdefault(package, {}).update(facts.extra.get("values", {}))
            self.assigned.setdefault(package, set()).update(facts.extra.get("assigned", ()))
            writes = self.writes.setdefault(package, {})
            for owner, table in facts.extra.get("assigns", {}).items():
                for target, entries in table.items():
                    if owner or "{}." in target:   # a function's writes; struct literals anywhere
                        writes.setdefault(target.rsplit(".", 1)[-1], []).extend(
                            (facts, owner, target, line, exprs) for line, exprs in entries)
            for sym in facts.symbols:
                if sym.kind == "function":
                    self.functions.setdefault(package, {})[sym.name] = (facts, sym.key, [p for p, _ in sym.params])
            for call in facts.calls:
                for arg in call.args:
                    if call.receiver is None and arg.startswith("&") and "." in arg:
                        self.pointers.setdefault(package, {}).setdefault(arg.rsplit(".", 1)[-1], []).append(
                            (facts, call))
        for package, names in self.assigned.items():
            for name in names:
                self.values[package].pop(name, None)

    def _tags(self, facts: FileFacts) -> None:
        for sym in facts.symbols:
            if sym.kind != "field":
                continue
            if sym.type:
                self.field_types.setdefault(sym.name, set()).add(sym.type.rsplit(".", 1)[-1])
            tags = dict(_TAG.findall(sym.extra.get("tag", "")))
            named = self.by_field.setdefault(sym.name, set())
            for key, default in ENV_TAGS.items():
                name = tags.get(key, "").split(",", 1)[0]
                if name and name != "-":
                    self.tagged.setdefault(sym.key, set()).add((name, tags.get(default)))
                    named.add((name, tags.get(default)))
            if sym.key not in self.tagged:
                named.add(("", None))

    def tagged_env(self, name: str) -> Folded | None:
        """The environment variable ``x.Type.Field`` (or ``x.field.Field``) reads through a struct tag, if one."""
        parts = name.split(".")
        if len(parts) < 2:
            return None
        holder, field = parts[-2], parts[-1]
        found = {entry for type_ in {holder, *self.field_types.get(holder, ())}
                 for entry in self.tagged.get(f"{type_}.{field}", ())}
        if not found and len(parts) == 2:   # a promoted field: every field of its name tagged alike
            found = set(self.by_field.get(field, ()))
        if len(found) != 1 or ("", None) in found:
            return None
        variable, default = found.pop()
        return env(variable, default)


class GoFolder(Folder):
    """Folds a Go expression written in ``facts`` (a file of ``package``)."""

    def __init__(self, values: GoValues, package: str, facts: FileFacts) -> None:
        super().__init__()
        self.values, self.package, self.facts = values, package, facts

    def string(self, kind: str, text: str) -> Folded:
        if kind == "tpl":   # a raw string `...`
            return literal(text[1:-1])
        return literal(unescape(text[1:-1]))

    def _qualifier(self, name: str) -> str | None:
        for imp in self.facts.imports:
            for target, alias in imp.names:
                if alias == name:
                    return target
        return None

    def name(self, name: str) -> Folded:
        found = None if "." in name else self.local(name)
        if found is not None:
            return found
        head, dot, rest = name.partition(".")
        package = self._qualifier(head) if dot else self.package
        key = rest if dot else name
        expr = self.values.values.get(package or "", {}).get(key)
        if expr is None:
            written = self.written(name) if package is None or not dot else None
            if written is not None:
                return written
            tagged = self.values.tagged_env(name) if package is None and not self._outside_type(head) else None
            if tagged is not None:
                return tagged
            return named_unknown(name, f"{name} is not a constant (a variable, a field or a parameter: known at "
                                       "run time only)")
        inner = type(self)(self.values, package or "", self.facts if package == self.package else _NO_IMPORTS)
        inner.depth = self.depth + 1
        return inner.fold(expr)

    def _outside_type(self, head: str) -> bool:
        """Whether ``head`` is a local or parameter declared with a type of a package outside the project: its
        fields are no configuration struct's of the project, whatever their names."""
        scope = self.scope
        types = scope.facts.locals.get(scope.owner, {}).get(head, ()) if scope is not None else ()
        for _line, type_ in types:
            qualifier, dot, _ = type_.lstrip("*[]&").partition(".")
            if dot and self._qualifier(qualifier) not in self.values.values:
                return True
        return False

    def written(self, name: str) -> Folded | None:
        """What the package's functions write into a package variable or a struct field (``x.field``), or None."""
        field = name.rsplit(".", 1)[-1]
        if "." not in name and field not in self.values.assigned.get(self.package, ()):
            return None   # a local of another function is no package variable
        found: list[Folded] = []
        writes = self.values.writes.get(self.package, {}).get(field, ())
        # struct literals of one type only: a field two types of the package declare is not known to be this one
        # (a `cfg.url` read from a file is no `AuditSink{url: ...}`, even when only the sink has a literal)
        literal_types = {target.partition("{}")[0] for _, _, target, _, _ in writes if "{}." in target}
        types = literal_types | self.values.declared.get(self.package, {}).get(field, set())
        for facts, owner, target, line, exprs in writes:
            if "{}." in target and len(types) > 1:
                continue
            if target == name or ("." in name and "." in target and not target.startswith("*")):
                found.append(self._in(facts, Scope(facts, owner, line), exprs))
        if "." in name:
            for facts, call in self.values.pointers.get(self.package, {}).get(field, ()):
                found += self._through(facts, call, field)
        return choice(found) if found and len(found) <= MAX_WRITES else None

    def _through(self, facts: FileFacts, call: CallFact, field: str) -> list[Folded]:
        """The values a function writes through the pointer ``&x.field`` a call hands it (`GoValues.pointers`)."""
        callee = self.values.functions.get(self.package, {}).get(call.name)
        if callee is None:
            return []
        callee_facts, key, params = callee
        position = next((i for i, a in enumerate(call.args) if a.startswith("&") and a.endswith("." + field)), None)
        if position is None or position >= len(params):
            return []
        caller = type(self)(self.values, self.package, facts).at(facts, call.owner, call.line + 1)
        caller.depth = self.depth + 1
        bindings = tuple((param, caller.fold(arg)) for param, arg in zip(params, call.args, strict=False))
        entries = callee_facts.extra.get("assigns", {}).get(key, {}).get("*" + params[position], ())
        return [self._in(callee_facts, Scope(callee_facts, key, line, bindings), exprs) for line, exprs in entries]

    def _in(self, facts: FileFacts, scope: Scope, exprs: list[str]) -> Folded:
        inner = type(self)(self.values, self.package, facts)
        inner.depth = self.depth + 1
        return inner.fold_in(scope, exprs)

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        if found is not None:
            return found
        folded = [self.fold_tokens(a) for a in args]
        if name == "fmt.Sprintf" and folded:
            return printf(folded[0], folded[1:], "sdv", "fmt.Sprintf")
        if name == "cmp.Or" and len(folded) == 2:   # the first argument that is not empty
            return self.with_default(folded[0], folded[1], "cmp.Or")
        found = self.helper(name, args)
        return env_or_default(found) if found is not None else unknown(f"the result of {name}(...)")

    def helper(self, name: str, args: list[list[tuple[str, str]]]) -> Folded | None:
        """``f(..)`` / ``pkg.F(..)``: what a function of this package or of an imported package of the project
        returns (its first result), its parameters bound to the arguments (`Folder.returned_by`). None (the
        result unknown) when the name is no such function (a method of a value is not read here)."""
        head, dot, function = name.rpartition(".")
        package = self._qualifier(head) if dot else self.package
        if dot and (package is None or "." in head) or self.local(head or function) is not None:
            return None
        found = self.values.functions.get(package or "", {}).get(function)
        if found is None:
            return None
        facts, key, _ = found
        sym = next((s for s in facts.symbols if s.key == key), None)
        if sym is None or any(p.startswith("...") or t.startswith("...") for p, t in sym.params):
            return None
        return self.returned_by(type(self)(self.values, package or "", facts), facts, sym, args)


def env_or_default(value: Folded) -> Folded:
    """A helper that returns either one environment variable or one literal (``if v, ok := os.LookupEnv("X"); ok
    { return v }; return "d"``, ``if v := os.Getenv("X"); v != "" ...``) is that variable with that default, as
    ``os.getenv("X", "d")`` is; any other choice stays as it is."""
    parts = value.text[1:-1].split(CHOICE_SEP) if value.text.startswith(CHOICE_OPEN) else []
    if len(parts) != 2:
        return value
    variables = [m for m in (_BARE_ENV.fullmatch(p) for p in parts) if m is not None]
    literals = [p for p in parts if not any(c in p for c in _MARKERS) and not has_unknown(p)]
    if len(variables) == 1 and len(literals) == 1:
        return env(variables[0].group(1), literals[0])
    return value


_BARE_ENV = re.compile(f"{ENV_OPEN}([^{ENV_CLOSE}{ENV_DEFAULT}]+){ENV_CLOSE}")
_MARKERS = (ENV_OPEN, ENV_CLOSE, CHOICE_OPEN, CHOICE_CLOSE)
#: calls that read an environment variable
ENV_READERS = frozenset({"os.Getenv", "os.LookupEnv"})
_NO_IMPORTS = FileFacts(path="", language="go", content_hash="", loc=0)
