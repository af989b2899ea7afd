"""Go constants for folding: package-level ``const`` values and string ``var`` initialisers of any file of a
package (``pkg.Name`` through an import too), concatenation, and ``fmt.Sprintf`` with ``%s``/``%d``/``%v`` and
constant arguments. A variable that code assigns at run time (``baseUrl = os.Getenv(...)``) is not a
constant: only its initialiser is known, so a ``var`` is folded from what the package's functions assign it
(several assignments: one of them).

A function's locals are read as every language's are (`folding.Folder.local`); ``os.Getenv("X")`` is the
environment variable. A struct field (``fe.addr``) is what the package's functions write into it: directly
(``svc.addr = v``), in a struct literal (``&client{addr: v}``, when no other struct type of the package has a
literal setting a field of that name), or through a pointer handed to a function of the package that writes it
(``mustMapEnv(&svc.addr, "ADDR")`` with ``*target = os.Getenv(envKey)``), the function's parameters bound to
the call's arguments."""

from __future__ import annotations

from ...model import CallFact, FileFacts
from ..folding import Folded, Folder, Scope, choice, literal, named_unknown, printf, unescape, unknown

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
        for package, facts in files:
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
            return named_unknown(name, f"{name} is not a constant (a variable, a field or a parameter: known at "
                                       "run time only)")
        inner = type(self)(self.values, package or "", self.facts if package == self.package else _NO_IMPORTS)
        inner.depth = self.depth + 1
        return inner.fold(expr)

    def written(self, name: str) -> Folded | None:
        """What the package's functions write into a package variable or a struct field (``x.field``), or None."""
        field = name.rsplit(".", 1)[-1]
        if "." not in name and field not in self.values.assigned.get(self.package, ()):
            return None   # a local of another function is no package variable
        found: list[Folded] = []
        writes = self.values.writes.get(self.package, {}).get(field, ())
        # struct literals of one type only: a field two types of the package share is not known to be this one
        literal_types = {target.partition("{}")[0] for _, _, target, _, _ in writes if "{}." in target}
        for facts, owner, target, line, exprs in writes:
            if "{}." in target and len(literal_types) > 1:
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
        return unknown(f"the result of {name}(...)")


#: calls that read an environment variable
ENV_READERS = frozenset({"os.Getenv"})
_NO_IMPORTS = FileFacts(path="", language="go", content_hash="", loc=0)
