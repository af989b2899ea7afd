"""Rust resolution: module paths, ``use`` imports, ``impl`` methods wherever the crate declares them, and calls
by declared types.

A file's module is its path in the crate (`rust.module_path`, dotted). A name is looked up in the file's own
items, then through its ``use`` imports (``crate``, ``self`` and ``super`` read from the file's module), then in
the modules it ``use``s whole (``use a::*``); a path ``a::b::f`` goes through a module the file names (a ``use``,
a ``mod`` declaration, ``crate``, ``self``, ``super``, or a crate of the project by its name). A type's methods
are those of every ``impl`` block of its crate whose type names it (``impl Order`` in another file too);
``Type::f()`` and ``Self::f()`` are its associated functions, ``self.m()`` the enclosing ``impl`` type's,
``x.m()`` the type ``x`` was declared or made with (``let x = Type::new()``); ``Self(..)``, ``Wrapper(..)`` and
``Kind::Variant(..)`` make a value of the type; a type alias of a library's type has the library's members. A
receiver of unknown type stays
unresolved (no ``name_only`` guess: most Rust locals carry no written type). ``impl Trait for Type`` in any file
of the crate is an ``IMPLEMENTS`` edge.
"""

from __future__ import annotations

from ...model import CallFact
from ..resolver import Target
from ..symbols import Bound, Ref
from ..typed import DetachedMethods, TypedResolver, TypeRes
from .constants import absolute_path, imported_paths

BUILTIN_TYPES = frozenset({
    "bool", "char", "str", "String", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128",
    "isize", "f32", "f64", "Vec", "Option", "Result", "Box", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap",
    "BTreeSet", "VecDeque", "Mutex", "RwLock", "Cell", "RefCell", "Cow", "Self",
})
BUILTIN_FUNCTIONS = frozenset({"Some", "Ok", "Err", "None", "drop", "Box", "Default"})


class RustResolver(DetachedMethods, TypedResolver):
    BUILTIN_TYPES = BUILTIN_TYPES
    BUILTIN_FUNCTIONS = BUILTIN_FUNCTIONS
    SELF_RECEIVERS = frozenset({"self"})
    SUPER_RECEIVERS = frozenset()
    OBJECT_METHODS = frozenset({"clone", "to_string", "to_owned", "into", "from", "default", "eq", "fmt", "hash",
                                "unwrap", "expect", "as_ref", "iter", "len", "is_empty"})
    RELATIONS = ("extends", "implements")

    def __init__(self, table, tracker, language):
        super().__init__(table, tracker, language)
        self._methods = table.cache("rust.methods")
        self._impls = table.cache("rust.impls")

    # ---- modules ------------------------------------------------------------------------------
    def crate(self, bound: Bound) -> str:
        return bound.ctx.module_name.split(".", 1)[0]

    def absolute(self, path: str, bound: Bound) -> str:
        return absolute_path(path, bound.ctx.module_name, bound.facts)

    def is_module(self, fqn: str) -> bool:
        return any(r[1] < 0 and self.table.files[r[0]].facts.language == "rust"
                   for r in self.table.lookup(fqn, self.t))

    def imported(self, bound: Bound) -> dict[str, str]:
        return imported_paths(bound.ctx.module_name, bound.facts)

    def qualifiers(self, bound: Bound) -> dict[str, str]:
        """Names that stand for a module in a path: ``crate``, ``self``, ``super``, a ``mod`` the file declares,
        a ``use``d module, and a crate of the project by its name."""
        module = bound.ctx.module_name
        out = {"crate": self.crate(bound), "self": module,
               "super": module.rsplit(".", 1)[0] if "." in module else module}
        for name in bound.facts.extra.get("mods", ()):
            out[name] = f"{module}.{name}"
        for alias, target in self.imported(bound).items():
            if self.is_module(target):
                out[alias] = target
        return out

    def named_receiver(self, name: str, bound: Bound, owner: str | None, line: int):
        if name == "Self":
            index = self.enclosing_class(bound, owner)
            if index is not None:
                return ("static", (bound.path, index)), "same_class"
            receiver = bound.sym(bound.by_key[owner]).extra.get("receiver") if owner in bound.by_key else None
            if receiver:
                res = self.resolve_type(receiver, bound, None)
                if res[0] == "project":
                    return ("static", res[1]), "static"
        found, how = super().named_receiver(name, bound, owner, line)
        if found[0] == "unknown" and self.is_module(name):
            return ("package", name), "static"   # another crate of the project by its name
        if found[0] == "unknown" and (name in self.imported(bound) or name in bound.facts.extra.get("path_heads", ())):
            return ("package", self.imported(bound).get(name, name)), "static"   # a library crate or module
        return found, how

    def member_receiver(self, inner, name: str, bound: Bound):
        if inner[0] == "package":
            joined = self.join(inner[1], name)
            if self.is_module(joined):
                return ("package", joined)
        return super().member_receiver(inner, name, bound)

    def visible_packages(self, bound: Bound) -> list[str]:
        opened = [self.absolute(imp.target, bound) for imp in bound.facts.imports if imp.names == (("*", "*"),)]
        return [bound.ctx.module_name, *opened]

    def base_type(self, written: str) -> str:
        return written.strip().lstrip("&").removeprefix("mut ").strip().split("<", 1)[0]

    def resolve_type(self, written: str, bound: Bound, scope: str | None) -> TypeRes:
        head = written.split(".", 1)[0]
        if head in ("crate", "self", "super"):
            written = self.absolute(written, bound)
            ref = self.type_ref(written, bound)
            return ("project", ref) if ref is not None else ("external", written)
        return super().resolve_type(written, bound, scope)

    def type_ref(self, fqn: str, bound: Bound) -> Ref | None:
        """The project type with this fqn, or the one a module re-exports under it (``pub use memory::Repo``)."""
        return super().type_ref(fqn, bound) or self.reexported(fqn, bound, 0)

    def reexported(self, fqn: str, bound: Bound, hops: int) -> Ref | None:
        module, _, name = fqn.rpartition(".")
        if not module or hops > 3:
            return None
        for ref in self.table.lookup(module, self.t):
            other = self.table.files[ref[0]]
            if ref[1] >= 0 or other.facts.language != "rust":
                continue
            for imp in other.facts.imports:
                for target, alias in imp.names:
                    if alias == name:
                        found = super().type_ref(self.absolute(target, other), other) or \
                            self.reexported(self.absolute(target, other), other, hops + 1)
                        if found is not None:
                            return found
        return None

    # ---- members ------------------------------------------------------------------------------
    def crate_files(self, bound: Bound) -> list[Bound]:
        """The files of the crate, each looked up by its module path so that a change to one (a new ``impl``
        block, a new ``mod`` declaring a new file) resolves the files that read it again."""
        crate = self.crate(bound)
        out = []
        for other in list(self.table.files.values()):
            if other.facts.language == "rust" and other.ctx.module == bound.ctx.module and self.crate(other) == crate:
                self.table.lookup(other.ctx.module_name, self.t)
                out.append(other)
        return out

    def methods(self, ref: Ref) -> list[Ref]:
        """The methods of every ``impl`` block of the type's crate whose type resolves to it."""
        def compute() -> list[Ref]:
            bound = self.table.files[ref[0]]
            sym = bound.sym(ref[1])
            out = [(bound.path, i) for i in bound.members(sym.key) if bound.sym(i).kind == "method"]
            for other in self.crate_files(bound):
                for i in other.members(""):
                    method = other.sym(i)
                    if method.kind == "method" and method.extra.get("receiver", "").rsplit(".", 1)[-1] == sym.name:
                        res = self.resolve_type(method.extra["receiver"], other, None)
                        if res == ("project", ref):
                            out.append((other.path, i))
            return sorted(set(out))
        return self.t.memo(self._methods, ref, compute)

    def supers(self, ref: Ref) -> list[tuple[str, TypeRes]]:
        declared = super().supers(ref)
        sym = self.table.sym(ref)
        if sym.kind == "interface":
            return declared
        bound = self.table.files[ref[0]]

        def compute() -> list[TypeRes]:
            out = []
            for other in self.crate_files(bound):
                for type_, trait in other.facts.extra.get("impls", ()):
                    if type_.rsplit(".", 1)[-1] == sym.name and self.resolve_type(type_, other, None) == ("project", ref):
                        out.append(self.resolve_type(trait, other, None))
            return out
        found = self.t.memo(self._impls, ref, compute)
        return [*declared, *(("implements", res) for res in found)]

    def overridden(self, class_ref: Ref, method) -> list[Ref]:
        """The method of the trait the method's ``impl Trait for Type`` block names (that trait of the ones the type
        implements, by its name; none when two implemented traits share the name): never another trait's method of
        the same name."""
        trait = method.extra.get("trait")
        if not trait:
            return []
        named = [res[1] for relation, res in self.supers(class_ref) if relation == "implements"
                 and res[0] == "project" and self.table.sym(res[1]).name == trait.rsplit(".", 1)[-1]]
        if len(set(named)) != 1:
            return []
        return list(self.own_members(named[0], method.name, frozenset({"method"})))

    # ---- calls --------------------------------------------------------------------------------
    def only_candidate(self, name: str, refs: list) -> Target:
        """A receiver of unknown type stays unresolved (see the module docstring)."""
        return None, "", {"reason": "unknown_receiver",
                          "detail": f"receiver type unknown; {len(refs)} project method(s) named {name}"
                          if refs else ""}

    def unqualified(self, call: CallFact, bound: Bound) -> Target:
        """A bare ``f()`` is a function of the file's module, one a ``use`` brings in, or one of a module it opens
        (never a method: Rust calls those on ``self``); first one declared in the body of a function around it."""
        name = call.name
        if self.local_type(bound, call.owner or None, name, call.line) is not None:
            return None, "", {"reason": "dynamic", "detail": f"{name} is a local or parameter"}
        key = call.owner or None
        while key and key in bound.by_key:   # a function declared in the body of one around the call
            nested = [(bound.path, i) for i in bound.members(key) if bound.sym(i).kind == "function"
                      and bound.sym(i).name == name]
            if nested:
                return self.pick(nested, call, "local")
            key = bound.sym(bound.by_key[key]).parent
        imported = self.imported_call(call, bound)
        if imported is not None:
            return imported
        if name == "Self":   # Self(..): the impl type's tuple-struct construction
            index = self.enclosing_class(bound, call.owner or None)
            if index is not None:
                return (bound.path, index), "constructor", {}
        prefix = call.owner.rsplit(".", 1)[0] + "." if call.owner and "." in call.owner and \
            bound.sym(bound.by_key[call.owner]).kind == "function" else ""
        for position, package in enumerate(self.visible_packages(bound)):
            found = self.package_callables(package, prefix + name if position == 0 else name) or (
                self.package_callables(package, name) if prefix and position == 0 else [])
            if found:
                return self.pick(found, call, "local" if position == 0 else "static_import")
            ref = self.type_ref(self.join(package, name), bound)
            if ref is not None:   # a tuple struct made: Wrapper(x)
                return self.constructor_call(("project", ref), call)
        if name in self.BUILTIN_FUNCTIONS:
            return None, "", {"reason": "builtin", "detail": name}
        opened = [p for p in self.visible_packages(bound)[1:] if p]
        if opened:
            return None, "", {"reason": "external_name", "detail": f"{name} (from one of: {', '.join(opened[:5])})"}
        return None, "", {"reason": "undefined_name", "detail": name}

    def package_callables(self, package: str, name: str) -> list[Ref]:
        fqn = self.join(package, name)
        last = name.rsplit(".", 1)[-1]
        return [r for r in self.table.by_name(last, self.t)
                if self.table.sym(r).kind == "function" and self.table.fqn_of(r) == fqn]

    def member_call(self, what, how: str, call: CallFact, bound: Bound) -> Target:
        if what[0] == "static" and self.table.sym(what[1]).kind == "enum" and call.name[:1].isupper():
            return what[1], "constructor", {}   # Kind::Variant(..): an enum value made
        if what[0] in ("static", "instance"):
            ref = what[1] if what[0] == "static" else (what[1][1] if what[1][0] == "project" else None)
            sym = self.table.sym(ref) if ref is not None else None
            if sym is not None and "alias" in sym.modifiers and sym.type:
                aliased = self.resolve_type(sym.type, self.table.files[ref[0]], sym.parent)
                if aliased[0] != "project":   # type Response = http::Response: the library's members
                    return None, "", {"reason": "external_type", "detail": f"{aliased[1]}.{call.name}"}
                what = (what[0], aliased[1]) if what[0] == "static" else ("instance", aliased)
        if what[0] == "package":
            found = self.package_callables(what[1], call.name)
            if found:
                return self.pick(found, call, "static")
            return None, "", {"reason": "external_name", "detail": f"{what[1]}.{call.name}"}
        return super().member_call(what, how, call, bound)

    def call_result(self, call: CallFact, bound: Bound) -> TypeRes:
        """A library type's ``T::new()``/``T::default()`` is a ``T`` (Rust's convention; it only names the library
        type a later call is made on, never a project symbol)."""
        found = super().call_result(call, bound)
        if found[0] == "external" and call.name in ("new", "default") and found[1].endswith(f".{call.name}()"):
            return ("external", found[1][:-len(call.name) - 3])
        return found

    def constructor_call(self, res: TypeRes, call: CallFact) -> Target:
        """``Type(..)`` is a tuple struct or an enum variant's construction: the type itself."""
        if res[0] != "project":
            return None, "", {"reason": "external_type", "detail": str(res[1])}
        return res[1], "constructor", {}

    def import_targets(self, target: str, bound: Bound) -> list[Ref]:
        target = self.absolute(target, bound)
        ref = self.type_ref(target, bound)
        if ref is not None:
            return [ref]
        return [r for r in self.table.lookup(target, self.t) if r[1] < 0
                and self.table.files[r[0]].facts.language == "rust"]
