"""What the Go frameworks read from Go files: the project's types by package with their methods and fields,
the type a receiver or an argument has as written, the handler a function value names, and values folded with
the packages' constants."""

from __future__ import annotations

import re

from ..languages.folding import Folded
from ..languages.go.constants import GoFolder, GoValues
from ..languages.symbols import Bound
from ..model import CallFact

CONSTRUCTED = re.compile(r"^(?:&|new\()?\s*([\w.]+)\s*(?:\{[\s\S]*\}|\))?$")


class GoPackages:
    """The project's Go types by package, their methods and fields (wherever the package declares them)."""

    def __init__(self, bounds: list[Bound]) -> None:
        self.types: dict[tuple[str, str], tuple[Bound, int]] = {}
        self.methods: dict[tuple[str, str], dict[str, tuple[Bound, int]]] = {}
        self.fields: dict[tuple[str, str, str], str] = {}
        self.functions: dict[tuple[str, str], str] = {}
        self.function_ref: dict[tuple[str, str], tuple[Bound, int]] = {}
        #: (package, interface) -> the names of the methods it declares
        self.interface_methods: dict[tuple[str, str], set[str]] = {}
        for bound in bounds:
            if bound.facts.extra.get("build_excluded"):   # Wire's injector template beside wire_gen.go
                continue
            package = bound.ctx.module_name
            for index, sym in enumerate(bound.facts.symbols):
                if sym.kind in ("class", "interface") and sym.parent is None:
                    self.types[(package, sym.name)] = (bound, index)
                elif sym.kind == "method" and "receiver" in sym.extra:
                    self.methods.setdefault((package, sym.extra["receiver"]), {})[sym.name] = (bound, index)
                elif sym.kind == "method" and sym.parent:
                    self.interface_methods.setdefault((package, sym.parent), set()).add(sym.name)
                elif sym.kind == "field" and sym.parent:
                    self.fields[(package, sym.parent, sym.name)] = sym.type
                elif sym.kind == "function":
                    self.functions[(package, sym.name)] = sym.type
                    self.function_ref[(package, sym.name)] = (bound, index)

    def package_of(self, bound: Bound, qualifier: str) -> str | None:
        for imp in bound.facts.imports:
            for target, alias in imp.names:
                if alias == qualifier:
                    return target
        return None

    def type_key(self, bound: Bound, written: str) -> tuple[str, str] | None:
        """(package, type name) of a project type as written in ``bound``, or None."""
        written = written.lstrip("*&").split("[", 1)[0]
        head, dot, name = written.rpartition(".")
        package = self.package_of(bound, head) if dot else bound.ctx.module_name
        if package is None:
            return None
        return (package, name) if (package, name) in self.types else None

    def result_key(self, bound: Bound, callee: str) -> tuple[str, str] | None:
        """(package, type name) of the project type a project function returns first (``app.InitApp`` returning
        ``(*App, func(), error)``: the ``App`` of ``app``'s package), or None."""
        head, dot, name = callee.rpartition(".")
        package = self.package_of(bound, head) if dot else bound.ctx.module_name
        found = self.function_ref.get((package or "", name))
        written = self.functions.get((package or "", name), "")
        return self.type_key(found[0], written) if found is not None and written else None

    def result_of(self, bound: Bound, callee: str) -> str:
        """What a project function returns, as ``bound`` would write it ("" when it is not one): a type the callee's
        package declares is qualified as ``bound`` names that package (``ports.NewServer`` returning ``*Server``:
        ``*ports.Server``), so that `type_key` finds it from ``bound``."""
        head, dot, name = callee.rpartition(".")
        package = self.package_of(bound, head) if dot else bound.ctx.module_name
        written = self.functions.get((package or "", name), "")
        bare = written.lstrip("*&")
        if dot and bare and "." not in bare.split("[", 1)[0] and (package, bare.split("[", 1)[0]) in self.types:
            return f"{written[:len(written) - len(bare)]}{head}.{bare}"
        return written


def local(bound: Bound, owner: str, name: str, line: int) -> str:
    """The type a local or parameter was declared or made with, nearest before ``line`` ("" when unknown)."""
    seen = [(at, t) for at, t in bound.facts.locals.get(owner, {}).get(name, []) if t and t != "?"]
    before = [t for at, t in seen if at <= line]
    return (before or [t for _, t in seen] or [""])[-1]


def aliased(bound: Bound, owner: str, name: str) -> list | None:
    """The names-and-fields tree a local was declared from when it copies one (``svc := s.client``, ``c := other``:
    ``["field", ["name", "s"], "client"]``), else None. Go fixes a local's type where ``:=`` declares it, so a later
    reassignment does not change it."""
    declared = [at for at, type_ in bound.facts.locals.get(owner, {}).get(name, []) if type_ == "?"]
    entries = bound.facts.extra.get("assigns", {}).get(owner, {}).get(name, [])
    exprs = [exprs for at, exprs in entries if declared and at == declared[0]]
    if len(exprs) != 1 or len(exprs[0]) != 1 or not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", exprs[0][0]):
        return None
    head, *fields = exprs[0][0].split(".")
    if head == name and not fields:
        return None
    tree: list = ["name", head]
    for field in fields:
        tree = ["field", tree, field]
    return tree


def written_type(packages: GoPackages, bound: Bound, owner: str, expr, line: int, depth: int = 0) -> str:
    """The type of a receiver tree or an argument as written ("" when not known); a local copied from a field,
    parameter or other local (`aliased`) has that one's type."""
    if isinstance(expr, str):
        expr = expr.strip()
        if re.fullmatch(r"&?\w+", expr):   # a local or its address (``&svc``): the local's type
            return written_type(packages, bound, owner, ["name", expr.lstrip("&")], line)
        match = CONSTRUCTED.match(expr)
        return match.group(1) if match and ("{" in expr or expr.startswith("new(")) else ""
    if expr[0] == "name":
        found = local(bound, owner, expr[1], line) or bound.facts.extra.get("globals", {}).get(expr[1], "")
        if found.startswith("~") and found.endswith("()"):
            return packages.result_of(bound, found[1:-2]) or found
        source = aliased(bound, owner, expr[1]) if not found and depth < 4 else None
        return written_type(packages, bound, owner, source, line, depth + 1) if source is not None else found
    if expr[0] == "field":
        inner = written_type(packages, bound, owner, expr[1], line, depth)
        key = packages.type_key(bound, inner) if inner else None
        return packages.fields.get((*key, expr[2]), "") if key else ""
    if expr[0] == "call":
        return f"~{expr[2]}()"
    return ""


class GoProject:
    """The Go files of one update: packages, values, and a folder per file."""

    def __init__(self, bounds: list[Bound]) -> None:
        self.packages = GoPackages(bounds)
        self.values = GoValues([(b.ctx.module_name, b.facts) for b in bounds])

    def fold(self, bound: Bound, expr: str, owner: str | None = None, line: int = 0) -> Folded:
        """``expr`` folded in ``bound``'s package (and, given the calling symbol and line, its locals)."""
        folder = GoFolder(self.values, bound.ctx.module_name, bound.facts)
        if owner is not None:
            folder.at(bound.facts, owner, line)
        return folder.fold(expr)

    def project_call(self, bound: Bound, call: CallFact) -> bool:
        """Whether a call is of a method of the project's own type (the receiver's static type is a project struct
        with that method, or a project interface that declares it): never a library's call of the same name."""
        if not call.receiver or call.receiver[0] not in ("name", "field"):
            return False
        typed = written_type(self.packages, bound, call.owner, call.receiver, call.line)
        key = self.packages.type_key(bound, typed) if typed and not typed.startswith("~") else None
        return key is not None and (call.name in self.packages.methods.get(key, {})
                                    or call.name in self.packages.interface_methods.get(key, ()))

    def type_of(self, bound: Bound, owner: str, tree, line: int, depth: int = 0) -> tuple[str, str] | None:
        """(package, type name) of the project type a receiver tree has (a local, a parameter, a local made by a
        project function's call, then fields down the chain, each field's type read where its struct is
        declared), or None."""
        packages = self.packages
        if tree[0] == "name":
            made = local(bound, owner, tree[1], line) or bound.facts.extra.get("globals", {}).get(tree[1], "")
            if made.startswith("~") and made.endswith("()"):
                return packages.result_key(bound, made[1:-2])
            source = aliased(bound, owner, tree[1]) if not made and depth < 4 else None
            if source is not None:
                return self.type_of(bound, owner, source, line, depth + 1)
            return packages.type_key(bound, made) if made else None
        if tree[0] == "field":
            inner = self.type_of(bound, owner, tree[1], line, depth)
            declaring = packages.types.get(inner) if inner is not None else None
            written = packages.fields.get((*inner, tree[2]), "") if inner is not None else ""
            return packages.type_key(declaring[0], written) if declaring is not None and written else None
        return None

    def handler(self, bound: Bound, owner: str, expr: str, line: int) -> tuple[Bound, int] | None:
        """The project function or method a handler expression names (``h``, ``pkg.H``, ``s.handle``,
        ``s.handle()`` returning a handler is not followed), or None (a function literal, a library handler)."""
        expr = expr.strip()
        packages = self.packages
        head, dot, name = expr.rpartition(".")
        if not re.fullmatch(r"[\w.]+", expr):
            return None
        if not dot:
            return packages.function_ref.get((bound.ctx.module_name, expr))
        package = packages.package_of(bound, head)
        if package is not None:
            return packages.function_ref.get((package, name))
        key = self.type_of(bound, owner, ["name", head], line) if "." not in head else None
        return packages.methods.get(key, {}).get(name) if key is not None else None
