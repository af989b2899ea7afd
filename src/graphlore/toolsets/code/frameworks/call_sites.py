"""Clients made through a project's own wrapper method (Java): each call site of the wrapper is a client of its own.

A client whose URL is not fully known, in a method whose parameters may give it (``private String get(String
path) { return rest.getForObject(BASE + path, String.class); }``), is read again once per call site of that
method in the project, the method's parameters bound to what the site passes (folded where the site is: its
constants, its locals, and its own parameters when it is itself called through; a project enum's constant stays that
constant, so ``target.getServiceName()`` in the wrapper reads its value, `JavaFolder.enum_method`). Where that gives a URL with
more known text, the site becomes a client of its own (in the caller's symbol, file, line and service, `Item.written` naming the
wrapper), linked by the usual rules; the wrapper's own client stays as it was (its URL is the caller's to give).

Only a call that surely reaches the method is followed: an unqualified call in its class (or in a class nested in
it that declares, or inherits from a project type, no method so named), a ``this.`` call in its class (neither in a
method that makes an object of a project type with a method so named: an anonymous class's body is no symbol of
the facts, its calls are the method's), ``Type.m(..)`` of a static method, ``x.m(..)`` on a local, parameter or
field declared of its class (no lambda of the caller names a parameter ``x``: an untyped one is no local of the
facts and may hide the field); with as many arguments (varargs: at least the fixed ones), no other method of that
name and count in the class or in the project types it extends or implements (none at all for a varargs method; a
supertype's method with its parameter types is the one it overrides), not a method a subclass may override (one
neither static, private nor final, in a class a project type extends), nor one that declares its clients
(``@CodebaseHttpClient``: the declaration counts the call, `declared.exclusive`). A parameter the method assigns,
or declares again (an anonymous class's method in its body), is not bound (its value at the client is not the
site's), nor one past the first three arguments (a call's facts keep three). Bounds: wrappers of wrappers to depth
`MAX_DEPTH`, `MAX_SITES` call sites per method; a cut is said on the innermost wrapper's own client.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..languages.folding import Folded, has_unknown
from ..languages.java.constants import JavaConstants, JavaFolder, enum_constant
from ..languages.symbols import Bound
from ..model import CallFact, SymbolFact
from ..services.endpoints import Item
from .base import Project, Reader
from .declared import CONTAINERS, KINDS
from .jvm import CALL_SITE, JavaFile, constants

#: wrappers of wrappers followed at most this deep
MAX_DEPTH = 3
#: call sites followed per wrapper method
MAX_SITES = 64
_UNKNOWN_PART = re.compile(r"\{\?[^{}]*\}")
#: a lambda's parameters: ``(a, b) ->`` (group 1) or ``a ->`` (group 2)
_LAMBDA = re.compile(r"\(([^()]*)\)\s*->|\b(\w+)\s*->")
#: modifiers that keep a method from being overridden
_FIXED = frozenset({"static", "private", "final"})
#: the in-source declarations of a method's clients (`declared`): they replace what the frameworks read there
_DECLARES_CLIENTS = frozenset(name for name, kind in KINDS.items() if kind == "client") | frozenset(
    name for name, one in CONTAINERS.items() if KINDS[one] == "client")


@dataclass(frozen=True)
class Site:
    """One call of ``method`` (a symbol index of ``wrapper``) at ``call`` in ``bound``, inside its symbol ``caller``."""

    wrapper: Bound
    method: int
    bound: Bound
    call: CallFact
    caller: int


def through_call_sites(read: Reader, files: list[Bound], project: Project, found: list[Item]) -> list[Item]:
    """``found`` (one framework's items) and the clients its wrapper methods' call sites make (module docstring)."""
    java = [bound for bound in files if bound.facts.language == "java"]
    wanted = [i for i in found if i.kind == "client" and i.grpc is None and i.path is not None and has_unknown(i.path.text)]
    if not java or not wanted:
        return found
    sites = project.shared("java.call_sites", lambda: _Sites(java, constants(project)))
    by_path = {bound.path: bound for bound in java}
    owners = _by_owner(i for i in found if i.kind == "client" and i.grpc is None)
    out = list(found)
    for path, owner in dict.fromkeys((i.file, i.owner) for i in wanted):
        originals = owners[(path, owner)]
        bound = by_path.get(path)
        index = bound.ids.index(owner) if bound is not None and owner in bound.ids else -1
        if index >= 0 and bound.facts.symbols[index].kind == "method":
            out += _expand(read, project, sites, bound, index, originals, originals, [], 0)
    return out


def _by_owner(items: Iterable[Item]) -> dict[tuple[str, str], list[Item]]:
    out: dict[tuple[str, str], list[Item]] = {}
    for item in items:
        out.setdefault((item.file, item.owner), []).append(item)
    return out


def _expand(read: Reader, project: Project, sites: _Sites, bound: Bound, method: int, originals: list[Item],
            values: list[Item], outer: list[Site], depth: int) -> list[Item]:
    """The clients the call sites of ``method`` make (``outer``: the sites already followed, innermost first;
    ``originals``: the innermost wrapper's clients; ``values``: them as the sites followed so far read them, which a
    site must make more known to be a client)."""
    if depth >= MAX_DEPTH or not _bindable(bound, method) or _declares_clients(bound, method):
        return []
    found, cut = sites.of(bound, method)
    if cut:   # said on the innermost wrapper's clients, whichever wrapper of the chain has too many sites
        said = f"{cut} call sites of {'its method' if not outer else bound.fqns[method]} not followed (at most {MAX_SITES})"
        for item in originals:
            if said not in item.problems:
                item.problems.append(said)
    out: list[Item] = []
    for site in found:
        chain = [*outer, site]
        inner = chain[0]
        token = CALL_SITE.set(_context(project, sites.constants, chain))
        try:
            again = [i for i in read(inner.wrapper) if i.owner == inner.wrapper.ids[inner.method]]
        finally:
            CALL_SITE.reset(token)
        own = [i for i in again if i.kind == "client"]
        if len(own) != len(originals):
            continue
        if _passes_on(site, own):   # the caller is a wrapper too: its sites, where it has some, say the value
            deeper = _expand(read, project, sites, site.bound, site.caller, originals, own, chain, depth + 1)
            if deeper:
                out += deeper
                continue
        made = [_at(new, site, chain) for old, new in zip(values, own, strict=True)
                if new.path is not None and old.path is not None and _known(new.path) > _known(old.path)]
        if depth + 1 >= MAX_DEPTH and _passes_on(site, made):
            for item in made:
                item.problems.append(f"wrappers followed {MAX_DEPTH} calls deep; the callers of "
                                     f"{site.bound.fqns[site.caller]} are not read")
        out += made
    return out


def _declares_clients(bound: Bound, method: int) -> bool:
    """Whether the method declares its clients (``@CodebaseHttpClient``): the frameworks' clients there are dropped
    (`declared.exclusive`), so its call sites are no clients either (the declaration already counts the call)."""
    return any(a.name.rsplit(".", 1)[-1] in _DECLARES_CLIENTS for a in bound.facts.symbols[method].annotations)


def _simple(written: str) -> str:
    """A type as written without its package and generic arguments (``a.b.Base<T>`` -> ``Base``; varargs keep
    their ``...``)."""
    more = "..." if written.endswith("...") else ""
    return written.removesuffix("...").partition("<")[0].rsplit(".", 1)[-1] + more


def _types(method: SymbolFact) -> tuple[str, ...]:
    """A method's parameter types as simple names (varargs keep their ``...``)."""
    return tuple(_simple(written) for _, written in method.params)


def _lambda_parameter(bound: Bound, owner: str, name: str) -> bool:
    """Whether a lambda written in ``owner`` (in a call's arguments or an assigned value) has a parameter ``name``."""
    assigned = bound.facts.extra.get("assigns", {}).get(owner, {})
    texts = [arg for call in bound.facts.calls if call.owner == owner for arg in call.args]
    texts += [expr for entries in assigned.values() for _, exprs in entries for expr in exprs]
    return any(name in (single or "").split() + [part.split()[-1] for part in (listed or "").split(",") if part.split()]
               for text in texts if "->" in text for listed, single in _LAMBDA.findall(text))


def _known(value: Folded) -> int:
    """How much of a value is known: its text without its unknown parts (a site that adds nothing known, such as
    ``getBalance(token, tx.getAccount())`` for ``/balances/{?:account}``, makes no client of its own)."""
    return len(_UNKNOWN_PART.sub("", value.text))


def _passes_on(site: Site, items: list[Item]) -> bool:
    """Whether a client read for ``site`` still takes a value from the caller's own parameters (``{?:name}``)."""
    params = [name for name, _ in site.bound.facts.symbols[site.caller].params]
    return any(f"{{?:{name}}}" in item.path.text for item in items if item.path is not None for name in params)


def _at(item: Item, site: Site, chain: list[Site]) -> Item:
    """``item`` (read again in the wrapper with a site's values) as the client of that site."""
    written = " -> ".join(f"{s.call.name}({', '.join(s.call.args)}) at {s.bound.path}:{s.call.line}"
                          for s in reversed(chain))
    inner = chain[0]
    return replace(item, owner=site.bound.ids[site.caller], owner_fqn=site.bound.fqns[site.caller],
                   microservice=site.bound.ctx.microservice, module=site.bound.ctx.module, file=site.bound.path,
                   line=site.call.line, written=f"{written} -> {item.written}",
                   problems=[*item.problems, f"through {inner.wrapper.fqns[inner.method]} "
                             f"({inner.wrapper.path}:{item.line})"])


def _bindable(bound: Bound, method: int) -> list[int]:
    """The parameters a call site can give: the first three, not variadic, not assigned in the method, not declared
    again in it (a method of an anonymous class in its body may name its own parameter so: no symbol of the facts)."""
    sym = bound.facts.symbols[method]
    assigned = bound.facts.extra.get("assigns", {}).get(sym.key, {})
    declared = bound.facts.locals.get(sym.key, {})
    return [i for i, (name, written) in enumerate(sym.params[:3])
            if name not in assigned and not written.endswith("...") and len(declared.get(name, ())) <= 1]


def _context(project: Project, consts: JavaConstants, chain: list[Site]) -> dict[tuple[str, str], tuple]:
    """Each wrapper's parameters bound to what its site passes, folded from the outermost site in (a site's own
    parameters take what the site around it passes)."""
    context: dict[tuple[str, str], tuple[tuple[str, Folded], ...]] = {}
    for site in reversed(chain):
        sym = site.wrapper.facts.symbols[site.method]
        here = JavaFile(site.bound, consts, project.values(site.bound.ctx.module))
        token = CALL_SITE.set(context)
        try:
            bindings = tuple((sym.params[i][0], _argument(here, consts, site, i))
                             for i in _bindable(site.wrapper, site.method) if i < len(site.call.args))
        finally:
            CALL_SITE.reset(token)
        context = {**context, (site.wrapper.path, sym.key): bindings}
    return context


def _argument(here: JavaFile, consts: JavaConstants, site: Site, index: int) -> Folded:
    """What ``site`` passes for the wrapper's parameter ``index``, folded where the site is; a project enum's constant
    (``call(Target.ORDERS, "/x")``, or a parameter of the caller a site around it binds to one) stays that constant,
    for the wrapper's ``target.getServiceName()`` to read (`JavaFolder.enum_method`)."""
    written, class_key = site.call.args[index].strip(), site.call.owner.partition("#")[0]
    named = JavaFolder(consts, site.bound.facts, class_key).enum_named(written) if "." in written else None
    if named is not None:
        return enum_constant(*named)
    return here.fold(written, class_key, site.call.owner, site.call.line, keep_enums=True)


class _Sites:
    """The project's Java calls by method name, and which of them surely call one method."""

    def __init__(self, files: list[Bound], consts: JavaConstants) -> None:
        self.constants = consts
        self.calls: dict[str, list[tuple[Bound, CallFact]]] = {}
        #: a project type's simple name -> the methods (name, parameter types as simple names) and the supertypes
        #: (simple names) of the types so named: what a class inherits, by simple name (several types: all of them)
        self.methods: dict[str, set[tuple[str, tuple[str, ...]]]] = {}
        self.supers: dict[str, set[str]] = {}
        for bound in files:
            for call in bound.facts.calls:
                if call.kind == "call":
                    self.calls.setdefault(call.name, []).append((bound, call))
            for sym in bound.facts.symbols:
                parent = bound.by_key.get(sym.parent or "")
                if sym.kind == "method" and parent is not None:
                    self.methods.setdefault(bound.facts.symbols[parent].name, set()).add((sym.name, _types(sym)))
                if sym.supers:
                    self.supers.setdefault(sym.name, set()).update(_simple(name) for _, name in sym.supers)

    def of(self, bound: Bound, method: int) -> tuple[list[Site], int]:
        """The call sites of ``method`` (at most `MAX_SITES`) and how many more the bound leaves out."""
        sym = bound.facts.symbols[method]
        cls = bound.by_key.get(sym.parent or "")
        variadic = bool(sym.params) and sym.params[-1][1].endswith("...")
        if cls is None or sum(s.kind == "method" and s.parent == sym.parent and s.name == sym.name and
                              (variadic or len(s.params) == len(sym.params)) for s in bound.facts.symbols) != 1:
            return [], 0   # overloads (of that count, or any with varargs): which one a call reaches is not read
        owner = bound.facts.symbols[cls]
        if any(name == sym.name and types != _types(sym) and (variadic or len(types) == len(sym.params) or
                                                              types and types[-1].endswith("..."))
               for name, types in self.inherited(_simple(name) for _, name in owner.supers)):
            return [], 0   # an overload a supertype declares (the method it overrides has its types): not told apart
        if not _FIXED & set(sym.modifiers) and (owner.kind != "class" or owner.name in self.constants.extended
                                                 or "abstract" in owner.modifiers):
            return [], 0
        found = []
        for where, call in self.calls.get(sym.name, ()):
            caller = where.by_key.get(call.owner)
            count = call.argc == len(sym.params) or variadic and call.argc >= len(sym.params) - 1
            if caller is not None and count and self._reaches(bound, cls, sym, where, call):
                found.append(Site(bound, method, where, call, caller))
        return found[:MAX_SITES], max(0, len(found) - MAX_SITES)

    def inherited(self, types: Iterable[str]) -> set[tuple[str, tuple[str, ...]]]:
        """The methods the project types named ``types`` (simple names) and their supertypes declare, through every
        level (see ``methods``)."""
        found: set[tuple[str, tuple[str, ...]]] = set()
        seen: set[str] = set()
        todo = list(types)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                found |= self.methods.get(name, set())
                todo += self.supers.get(name, ())
        return found

    def _reaches(self, bound: Bound, cls: int, sym, where: Bound, call: CallFact) -> bool:
        receiver = call.receiver
        class_key = bound.facts.symbols[cls].key
        if receiver is None or receiver == ["this"]:
            caller_class = call.owner.partition("#")[0]
            if where is not bound or receiver and caller_class != class_key:
                return False
            # an unqualified call in a nested class reaches the outer method unless a class between declares one so named
            between = caller_class
            while between != class_key:
                nested = bound.by_key.get(between)
                if not between.startswith(class_key + ".") or any(
                        s.parent == between and s.kind == "method" and s.name == sym.name for s in bound.facts.symbols) \
                        or nested is not None and any(name == sym.name for name, _ in self.inherited(
                            _simple(name) for _, name in bound.facts.symbols[nested].supers)):
                    return False
                between = between.rpartition(".")[0]
            # an anonymous class made in the caller (its body is no symbol of the facts: its calls are the caller's)
            # whose project type declares or inherits a method so named may be what the call reaches
            return not any(made.kind == "new" and made.owner == call.owner and made.line <= call.line and
                           any(name == sym.name for name, _ in self.inherited([made.name]))
                           for made in where.facts.calls)
        folder = JavaFolder(self.constants, where.facts, call.owner.partition("#")[0]).at(where.facts, call.owner,
                                                                                           call.line)
        if receiver[0] == "name":
            name = receiver[1]
            written = folder.variable_type(name)
        elif receiver[0] == "field" and receiver[1] == ["this"]:
            name = receiver[2]   # a field of the caller's own class (``this``), whatever local has its name
            written = next((s.type for s in where.facts.symbols if s.kind == "field" and s.name == name and
                            s.parent == call.owner.partition("#")[0]), "")
        else:
            return False
        if not written and receiver[0] == "name" and "static" in sym.modifiers:
            written = name   # Type.m(..)
        # an untyped lambda parameter (no local of the facts) may hide the field so named
        return bool(written) and folder.type_fqn(written.partition("<")[0]) == bound.fqns[cls] and not (
            receiver[0] == "name" and _lambda_parameter(where, call.owner, name))
