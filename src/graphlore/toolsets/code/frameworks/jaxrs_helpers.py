"""The project's own helpers around the JAX-RS client API, and the service a registry-resolved request names.

**Helpers** (`Helpers`, read once per update from every JVM file). A *request helper* is a project method that
takes a ``WebTarget`` and returns an ``Invocation.Builder`` (``static Builder json(WebTarget t) { return
t.request(..); }``): ``Helper.json(target.path("x")).post(..)`` is a request to ``target.path("x")``. A *target
method* is a project method that returns a ``WebTarget`` (``endpoint.target()``): where the object it is called on
was made (a registry's, a load balancer's) is not read, so the URL's beginning is not known; the ``path(..)``
calls after it are.

**The service.** A request on such a ``WebTarget`` held by a name the method neither declares nor takes (a
lambda's parameter: the callback a shared helper calls with a client it picked, ``Balancer.call(Target.ORDERS,
"orders", c -> ...)``) names the service the call that hands that parameter over passes as an argument (the
nearest call before it in the method with a lambda argument taking that name; not an earlier call's, not one
inside the lambda): an enum constant of a project enum, standing for its constructor's first argument (``ORDERS("orders-service")``).
Only one such argument counts; none, several, or a constant without a value: no service (never a guess). Whether
the value is one of the project's services is for the links to tell (`services.links`), which match the known
end of the path against the ends of that service's routes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..languages.folding import Folded, literal
from ..languages.java.constants import JavaFolder
from ..model import CallFact
from .base import Project
from .jvm import JVM_LANGUAGES, JavaFile, Types

#: the return types of a request helper and the type of what it is given
BUILDER_TYPES = frozenset({"Builder", "Invocation.Builder"})
TARGET_TYPES = frozenset({"WebTarget"})
#: the WebTarget API's own methods: never a project's target method
TARGET_API = frozenset({"path", "queryParam", "matrixParam", "resolveTemplate", "resolveTemplates",
                        "resolveTemplateFromEncoded", "property", "register", "request", "target"})
#: why a URL's beginning is not known (a target method's); `jaxrs` tells such a path by it
RUNTIME_BASE = "the WebTarget comes from a project method whose object is made at run time (a registry's or a " \
               "load balancer's client): its address is not read"
#: an enum constant as an argument: ``Type.CONSTANT`` (the type may be qualified)
_ENUM_ARG = re.compile(r"((?:[A-Za-z_]\w*\.)*[A-Z]\w*)\.([A-Z][A-Z0-9_]*)")
#: a lambda's head: ``c ->`` or ``(a, final Type b) ->``
_LAMBDA = re.compile(r"(?:([A-Za-z_]\w*)|\(([^()]*)\))\s*->")


@dataclass
class Helpers:
    """The project's request helpers (name -> the index of the ``WebTarget`` parameter) and target methods."""

    requests: dict[str, int] = field(default_factory=dict)
    targets: set[str] = field(default_factory=set)

    @staticmethod
    def of(project: Project) -> Helpers:
        return project.shared("jaxrs.helpers", lambda: _read(project))

    def called_in(self, calls: list[CallFact]) -> bool:
        return any(c.name in self.requests or c.name in self.targets for c in calls)


def _read(project: Project) -> Helpers:
    out = Helpers()
    ambiguous: set[str] = set()
    for bound in project.table.files.values():
        if bound.facts.language not in JVM_LANGUAGES:
            continue
        for sym in bound.facts.symbols:
            if sym.kind != "method":
                continue
            if sym.type in BUILDER_TYPES:
                found = [i for i, (_, ptype) in enumerate(sym.params) if ptype in TARGET_TYPES]
                if len(found) == 1:
                    if out.requests.get(sym.name, found[0]) != found[0]:
                        ambiguous.add(sym.name)
                    out.requests[sym.name] = found[0]
            elif sym.type in TARGET_TYPES and not sym.params and sym.name not in TARGET_API:
                out.targets.add(sym.name)
    for name in ambiguous:   # two helpers of one name take their target at different places: neither
        out.requests.pop(name, None)
    return out


def chain_names(text: str) -> list[str]:
    """The names of a call chain as written (``c.at().path("x")`` -> ``["c", "at", "path"]``), the arguments left
    out; [] when the text is no plain chain."""
    depth, kept, quote = 0, [], ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            kept.append(ch)
    names = [part.strip() for part in "".join(kept).split(".")]
    return names if all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in names) else []


def tree_names(tree) -> list[str]:
    """The names of a receiver tree's chain from its start (``["call", ["name", "c"], "at", 0]`` -> ``["c", "at"]``)."""
    out: list[str] = []
    while tree and tree[0] == "call":
        out.append(tree[2])
        tree = tree[1]
    if tree and tree[0] == "name":
        return [tree[1], *reversed(out)]
    return []


def argument_tree(calls: list[CallFact], owner: str, text: str, line: int):
    """The receiver tree of the call chain written as ``text`` (the argument of a call at ``line``) in ``owner``:
    the longest chain of calls there whose names are the text's (a cut argument: whose names start with the text's
    whole ones). None when no chain, or two different ones, fit."""
    names = chain_names(text)
    cut = len(text) >= 200
    if cut:
        names = chain_names(text[:text.rfind(".")]) if "." in text else []
    if len(names) < 2:
        return None
    found = {}
    for call in calls:
        if call.owner != owner or call.line < line:
            continue
        tree = ["call", call.receiver, call.name, call.argc]
        mine = tree_names(tree)
        if mine == names or cut and mine[:len(names)] == names:
            found[repr(tree)] = (len(mine), tree)
    if not found:
        return None
    longest = max(n for n, _ in found.values())
    best = [t for n, t in found.values() if n == longest]
    return best[0] if len(best) == 1 else None


def named_service(jf: JavaFile, types: Types, owner: str, line: int, holder: str) -> tuple[Folded | None, str]:
    """The service the call that hands ``holder`` (the request's WebTarget holder, a lambda's parameter) over names
    by an enum argument (see the module docstring): (its value, how it was read), or (None, why not). That call is
    the nearest one before ``line`` in ``owner`` that may hand it over (`_hands_over`): an earlier call of the
    method, or one inside the lambda, names another request's service."""
    before = [c for c in jf.facts.calls if c.owner == owner and c.line <= line and c.kind == "call"]
    class_key = owner.split("#", 1)[0]
    folder = JavaFolder(types.constants, jf.facts, class_key)
    call = next((c for c in sorted(before, key=lambda c: c.line, reverse=True) if _hands_over(c, holder)), None)
    if call is None:
        return None, f"no call before it in the method hands {holder} over in a lambda"
    named = _enum_args(call, folder, types, jf)
    if not named:
        return None, f"the call that hands {holder} over ({call.name} at line {call.line}) passes no enum constant " \
                     "that could name the service"
    if len(named) > 1:
        return None, f"the call at line {call.line} passes {len(named)} enum constants ({', '.join(n[0] for n in named)})"
    written, bound, index, constant = named[0]
    enum_key = bound.facts.symbols[index].key
    sym = next((s for s in bound.facts.symbols if s.key == f"{enum_key}#{constant}"), None)
    args = (sym.extra.get("args") or []) if sym is not None else []
    if not args:
        return None, f"{written} has no value that could name a service"
    value = JavaFolder(types.constants, bound.facts, enum_key).fold(args[0])
    if not value.known or not value.text:
        return None, f"{written}'s value ({args[0]}) is not known"
    return literal(value.text), f"{written} = {args[0]} (the argument of {call.name} at line {call.line})"


def _hands_over(call: CallFact, holder: str) -> bool:
    """Whether ``call`` may be the one whose lambda takes ``holder``: a kept argument is such a lambda, or (no kept
    argument a lambda) an argument is not kept (the facts keep three) and the call passes an enum constant. A call
    with a lambda of other parameters is another request's; one with every argument kept and no such lambda is
    made inside the lambda or before it (either way not the one)."""
    lambdas = [_lambda_parameters(arg) for arg in call.args]
    if any(holder in names for names in lambdas):
        return True
    return not any(lambdas) and call.argc > len(call.args) and any(_ENUM_ARG.fullmatch(a.strip()) for a in call.args)


def _enum_args(call: CallFact, folder: JavaFolder, types: Types, jf: JavaFile) -> list[tuple]:
    """The arguments of ``call`` that are constants of a project enum: (as written, its file, its index, the
    constant)."""
    named = []
    for arg in call.args:
        match = _ENUM_ARG.fullmatch(arg.strip())
        fqn = folder.type_fqn(match.group(1)) if match else None
        enum = types.pick(fqn, jf.bound) if fqn else None
        if enum is not None and enum[0].facts.symbols[enum[1]].kind == "enum":
            named.append((arg.strip(), *enum, match.group(2)))
    return named


def _lambda_parameters(arg: str) -> list[str]:
    """The parameter names of a lambda written as ``arg`` (``c -> ..``, ``(a, b) -> ..``, ``(Client c) -> ..``);
    [] when it is no lambda."""
    match = _LAMBDA.match(arg.strip())
    if match is None:
        return []
    return [part.split()[-1] for part in (match.group(1) or match.group(2)).split(",") if part.split()]


def declared_here(jf: JavaFile, owner: str, name: str) -> bool:
    """Whether ``name`` is a local or parameter of ``owner`` or a field of its class (else: a lambda's parameter)."""
    if name in jf.facts.locals.get(owner, {}):
        return True
    symbols = {s.key: s for s in jf.facts.symbols}
    method = symbols.get(owner)
    if method is not None and any(p == name for p, _ in method.params):
        return True
    class_key = owner.split("#", 1)[0]
    return f"{class_key}#{name}" in symbols

