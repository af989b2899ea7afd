"""How a Rust path names a module (``crate``, ``self``, ``super``, a ``mod`` the file declares), and Rust values for
folding: ``const`` and ``static`` items of any module of the project (through ``use`` imports
and paths too), a function's ``let`` bindings (`folding.Folder.local`), ``format!`` with ``{}``, ``{0}``, ``{name}``
(a named argument or a captured local), a struct's field as the struct literals of its file set it
(``InventoryClient { base, .. }`` in ``new``: ``self.base`` is the local ``base`` there; ``state.config.addr`` the
``addr`` the crate's struct literals set, when one struct type only sets a field of that name), and
``std::env::var("X")`` as the environment variable (with the default an ``unwrap_or``/``unwrap_or_else`` gives)."""

from __future__ import annotations

import re

from ...model import FileFacts
from ..folding import Folded, Folder, Scope, choice, env, env_names, literal, named_unknown, unescape, unknown

#: calls that read an environment variable
ENV_READERS = frozenset({"std.env.var", "env.var", "std.env.var_os", "env.var_os", "dotenv.var", "dotenvy.var"})
#: methods that hand back the value they are called on (for a string or a ``Result`` of one)
SAME = frozenset({"unwrap", "expect", "unwrap_or_default", "to_string", "to_owned", "as_str", "into", "clone", "parse",
                  "as_ref", "trim_end_matches"})
#: struct literal writes of one field followed at most (a field every handler sets is no configured value)
MAX_WRITES = 8
_FORMAT = re.compile(r"\{\{|\}\}|\{([^{}:]*)(?::[^{}]*)?\}")
#: a method's or function's explicit type arguments before its call (one level of ``<..>`` nesting)
_TURBOFISH = re.compile(r"::\s*<(?:[^<>]|<[^<>]*>)*>\s*\(")
_MACROS = re.compile(r"\b(format|concat)!\s*\(")


def rust_text(expr: str) -> str:
    """An expression as the shared folder reads it: ``::`` as ``.``, ``format!(`` as ``format(``, no ``&``, ``.await``,
    ``?`` or turbofish (``parse::<String>()`` as ``parse()``)."""
    expr = _MACROS.sub(lambda m: m.group(1) + "(", expr)
    expr = _TURBOFISH.sub("(", expr)
    expr = re.sub(r"&(?:mut\s+)?(?=[\w\"(])", "", expr)
    expr = re.sub(r"\.await\b|\?(?=\s*(?:$|[.),;]))", "", expr)
    return expr.replace("::", ".")


# ---- paths (the resolver and the frameworks read them so too) --------------------------------------------

def absolute_path(path: str, module: str, facts: FileFacts) -> str:
    """A dotted ``use`` or call path as the project names it (``crate.store.Store`` in crate ``orders`` ->
    ``orders.store.Store``; ``super.x`` one module up; ``memory.Repo`` after ``mod memory;`` -> ``<module>.memory.Repo``);
    any other path is a crate's as written."""
    head, _, rest = path.partition(".")
    if head == "crate":
        base = module.split(".", 1)[0]
    elif head == "self":
        base = module
    elif head == "super":
        base = module.rsplit(".", 1)[0] if "." in module else module
        while rest == "super" or rest.startswith("super."):
            base = base.rsplit(".", 1)[0] if "." in base else base
            rest = rest[6:]
    elif head in facts.extra.get("mods", ()):
        return f"{module}.{path}"
    else:
        return path
    return f"{base}.{rest}" if rest else base


def imported_paths(module: str, facts: FileFacts) -> dict[str, str]:
    """Local name -> the path a ``use`` brings it from, as the project names it."""
    return {alias: absolute_path(target, module, facts) for imp in facts.imports for target, alias in imp.names
            if alias != "*"}


def project_type(module: str, facts: FileFacts, written: str, own: frozenset[str]) -> bool:
    """Whether a type as written in a file of ``module`` (``CartClient``, ``rest::CartClient``,
    ``~CartClient.new()``) is one of ``own``, the fqns of the structs and traits the project's own code declares
    (a REST wrapper or a domain trait named like a library's or a generated one)."""
    path = re.sub(r"\.(?:new|connect)\(\)$", "", written.lstrip("~")).replace("::", ".")
    head, dot, rest = path.partition(".")
    imported = imported_paths(module, facts).get(head)
    candidates = {f"{module}.{path}", absolute_path(path, module, facts)}
    if imported is not None:
        candidates.add(f"{imported}.{rest}" if dot else imported)
    return bool(candidates & own)


class RustValues:
    """Every module's foldable values (``module path -> name -> expression``) and its file's facts."""

    def __init__(self, files: list[tuple[str, FileFacts]]) -> None:
        self.values: dict[str, dict[str, str]] = {}
        self.facts: dict[str, FileFacts] = {}
        #: crate -> field name -> (facts, owner, type, line, expressions) of each struct literal setting it
        self.fields: dict[str, dict[str, list[tuple[FileFacts, str, str, int, list[str]]]]] = {}
        #: crate -> field name -> the struct types of the crate that declare a field of that name
        self.declared: dict[str, dict[str, set[str]]] = {}
        for module, facts in files:
            self.values.setdefault(module, {}).update(facts.extra.get("values", {}))
            self.facts.setdefault(module, facts)
            crate = self.fields.setdefault(module.split(".", 1)[0], {})
            declared = self.declared.setdefault(module.split(".", 1)[0], {})
            for sym in facts.symbols:
                if sym.kind == "field" and sym.parent:
                    declared.setdefault(sym.name, set()).add(sym.parent.rsplit(".", 1)[-1])
            for owner, table in facts.extra.get("assigns", {}).items():
                for target, entries in table.items():
                    type_, marker, field = target.partition("{}.")
                    if marker:
                        crate.setdefault(field, []).extend((facts, owner, type_, line, exprs) for line, exprs in entries)


class RustFolder(Folder):
    """Folds a Rust expression written in ``facts`` (a file of module ``module``)."""

    def __init__(self, values: RustValues, module: str, facts: FileFacts) -> None:
        super().__init__()
        self.values, self.module, self.facts = values, module, facts

    def fold(self, text: str) -> Folded:
        return super().fold(rust_text(text))

    def string(self, kind: str, text: str) -> Folded:
        if text[:1] in "rb":
            return literal(text.lstrip("rb").strip("#")[1:-1])
        return literal(unescape(text[1:-1]))

    def name(self, name: str) -> Folded:
        if "." not in name:
            found = self.local(name)
            if found is not None:
                return found
        elif name.startswith("self.") and name.count(".") == 1:
            found = self.field(name[5:])
            if found is not None:
                return found
        module, key = self.locate(name)
        expr = self.values.values.get(module, {}).get(key) if module is not None else None
        if expr is None:
            found = self.literal_field(name) if "." in name else None
            if found is not None:
                return found
            return named_unknown(name, f"{name} is not a constant (a variable, a field or a parameter: known at "
                                       "run time only)")
        facts = self.values.facts.get(module, self.facts)
        inner = type(self)(self.values, module, facts)
        inner.depth = self.depth + 1
        return inner.fold(expr)

    def locate(self, name: str) -> tuple[str | None, str]:
        """(module, constant name) a name means: the file's own, one a ``use`` imports, or a path to one."""
        if "." not in name:
            imported = imported_paths(self.module, self.facts).get(name)
            if imported is not None:
                module, _, key = imported.rpartition(".")
                return module, key
            return self.module, name
        head, _, rest = name.partition(".")
        imported = imported_paths(self.module, self.facts).get(head)
        full = f"{imported}.{rest}" if imported is not None else absolute_path(name, self.module, self.facts)
        module, _, key = full.rpartition(".")
        return module, key

    def field(self, attr: str) -> Folded | None:
        """``self.attr``: what the struct literals of the file give the field of the ``impl`` type around the scope."""
        scope = self.scope
        if scope is None or not scope.owner or "." not in scope.owner:
            return None
        type_ = scope.owner.rsplit(".", 1)[0].rsplit(".", 1)[-1]
        target = f"{type_}{{}}.{attr}"
        found = [(owner, line, exprs) for owner, table in scope.facts.extra.get("assigns", {}).items()
                 for line, exprs in table.get(target, ())]
        if not found:
            return None
        return choice([self.fold_in(Scope(scope.facts, owner, line + 1), exprs) for owner, line, exprs in found])

    def literal_field(self, name: str) -> Folded | None:
        """``x.config.addr``: what the crate's struct literals set ``addr`` to, when one struct type of the crate
        declares a field of that name and only its literals set it (a field two types declare is not known to be
        this one, even when one of them is never made by a literal), at most `MAX_WRITES` of them; None
        otherwise."""
        crate, field = self.module.split(".", 1)[0], name.rsplit(".", 1)[-1]
        writes = self.values.fields.get(crate, {}).get(field, [])
        types = {type_ for _, _, type_, _, _ in writes}
        if not writes or len(writes) > MAX_WRITES or len(types) > 1 or \
                self.values.declared.get(crate, {}).get(field, set()) - types:
            return None
        out = []
        for facts, owner, _type, line, exprs in writes:
            inner = type(self)(self.values, self._module_of(facts), facts)
            inner.depth = self.depth + 1
            out.append(inner.fold_in(Scope(facts, owner, line + 1), exprs))
        return choice(out)

    def _module_of(self, facts: FileFacts) -> str:
        return next((module for module, known in self.values.facts.items() if known is facts), self.module)

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        if found is not None:
            return found
        if name in ("format", "concat") and args:
            folded = [self.fold_tokens(a) for a in args if not _named(a)]
            named = {a[0][1]: self.fold_tokens(a[2:]) for a in args if _named(a)}
            return self.format(folded[0], folded[1:], named) if name == "format" else sum(folded[1:], folded[0])
        if name in ("String.from", "str.to_string") and len(args) == 1:
            return self.fold_tokens(args[0])
        return unknown(f"the result of {name}(...)")

    def format(self, template: Folded, args: list[Folded], named: dict[str, Folded]) -> Folded:
        if not template.known:
            return unknown("format! with an unknown template")
        out, position, start = literal(""), 0, 0
        for match in _FORMAT.finditer(template.text):
            out = out + literal(template.text[start:match.start()])
            start = match.end()
            if match.group(0) in ("{{", "}}"):
                out = out + literal(match.group(0)[0])
                continue
            key = match.group(1).strip()
            if not key:
                value = args[position] if position < len(args) else unknown("format! with too few arguments")
                position += 1
            elif key.isdigit():
                value = args[int(key)] if int(key) < len(args) else unknown("format! with too few arguments")
            else:
                value = named.get(key) or self.name(key)
            out = out + value
        return out + literal(template.text[start:])

    def chained(self, value: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        if method in SAME:
            return value
        if method in ("unwrap_or", "unwrap_or_else") and args:
            names = env_names(value.text)
            toks = args[0]
            if method == "unwrap_or_else":   # |_| "default".to_string()
                bars = [i for i, t in enumerate(toks) if t == ("other", "|")]
                toks = toks[bars[1] + 1:] if len(bars) >= 2 else []
            default = self.fold_tokens(toks) if toks else unknown("a computed default")
            if len(names) == 1 and value.text == env(names[0]).text and default.known:
                return env(names[0], default.text)
            return value if value.known else unknown(f"the result of ....{method}(...)")
        return unknown(f"the result of ....{method}(...)")

    def method_of_string(self, template: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        return template if method in SAME else super().method_of_string(template, method, args)


def _named(arg: list[tuple[str, str]]) -> bool:
    """A ``name = value`` argument of ``format!``."""
    return len(arg) > 2 and arg[0][0] == "name" and arg[1] == ("other", "=") and arg[2] != ("other", "=")
