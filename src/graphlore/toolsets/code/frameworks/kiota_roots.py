"""The base URL each Kiota root client (Java) is built with, from where the project constructs it.

Kiota's root client (``new CatalogClient(adapter)``) takes its base URL from the request adapter it is given
(``adapter.setBaseUrl(endpoint)``), else sets the generated default itself. A service with several root clients
gives each its own adapter, so the base is traced per construction of the root, outside generated code:

- the adapter is a local the constructing method gives a ``setBaseUrl(...)`` before the construction (several, as in
  an ``if``/``else``: each a value, branches are not read; or a local made by one of the forms below);
- the adapter is made by a method of the same class (``new CatalogClient(adapter(this.props.getCatalog()))``,
  ``this.adapter(url)``): that method's ``setBaseUrl(...)`` on a request adapter, a parameter of it bound to what
  the construction passes (folded there: its constants, locals, ``@Value`` fields, ``@ConfigurationProperties``
  getters, and the environment variables the deployment files set);
- the adapter is a parameter of a ``@Bean`` method (Spring injects it): the ``setBaseUrl(...)`` of each ``@Bean``
  method of the service that makes a request adapter (several such beans: each a value; one with none: unknown);
- a request adapter made in place (``new OkHttpRequestAdapter(auth)``): the root's generated default.

An adapter from elsewhere (a field, a parameter of a method Spring does not call with beans, a method of the class
that sets no base) gives what the service's one ``setBaseUrl`` gives (None here: `Generated.kiota_base`'s rule for a
service). Every construction's value counts: several different ones leave the base unknown
(`generated_clients._one`), never one picked.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..languages.folding import Folded, choice, split_top, unknown
from ..languages.java.constants import JavaFolder
from ..languages.symbols import Bound
from ..model import CallFact, SymbolFact
from .base import Project, declared_type
from .jvm import JavaFile, constants

#: ``m(args)`` or ``this.m(args)``: a call of a method of the constructing class (group 1: name, 2: arguments)
_OWN_CALL = re.compile(r"^(?:this\s*\.\s*)?([A-Za-z_$][\w$]*)\s*\((.*)\)$", re.S)
_NEW_ADAPTER = re.compile(r"^new\s+[\w.]*RequestAdapter\b")
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")


def is_adapter_receiver(bound: Bound, call: CallFact) -> bool | None:
    """Whether a ``setBaseUrl`` call's receiver is a Kiota request adapter (a local, parameter or field declared of a
    type named ``...RequestAdapter``); None when its type is not known (``client.getRequestAdapter()``)."""
    tree = call.receiver
    if isinstance(tree, list) and (tree[:1] == ["name"] or (tree[:2] == ["field", ["this"]] and len(tree) > 2)):
        written = declared_type(bound, call.owner, tree[1] if tree[0] == "name" else tree[2], call.line)
        written = written.lstrip("~").split("<", 1)[0].split("(", 1)[0].strip().rsplit(".", 1)[-1]
        return written.endswith("RequestAdapter") if written else None
    return None


class KiotaRoots:
    """See the module docstring: ``bases()`` maps each root client's fqn to the value each construction gives."""

    def __init__(self, project: Project, java: list[Bound], roots: set[str], generated: Callable[[Bound], bool],
                 defaults: dict[str, list[Folded]], where: dict[str, str]) -> None:
        self.project, self.roots, self.defaults, self.where = project, roots, defaults, where
        self.own = [bound for bound in java if not generated(bound)]
        self.constants = constants(project)

    def bases(self) -> dict[str, list[Folded | None]]:
        out: dict[str, list[Folded | None]] = {}
        for bound in self.own:
            file = JavaFile(bound, self.constants, self.project.values(bound.ctx.module))
            for call in bound.facts.calls:
                if call.kind != "new" or not call.args:
                    continue
                cls = call.owner.partition("#")[0]
                fqn = JavaFolder(self.constants, bound.facts, cls).type_fqn(call.name.split("<", 1)[0].strip())
                if fqn in self.roots:
                    out.setdefault(fqn, []).append(self._given(file, call, call.args[0].strip(), fqn, 0))
        return out

    def _given(self, file: JavaFile, call: CallFact, expr: str, root: str, depth: int) -> Folded | None:
        """The base URL the adapter ``expr`` (written at ``call``, the root's construction) carries (None: the
        service's, see the module docstring)."""
        bound = file.bound
        at = f"new {call.name}(..) at {bound.path}:{call.line}"
        if _NEW_ADAPTER.match(expr):
            return self._default(root, at)
        made = _OWN_CALL.match(expr)
        if made and depth < 2:
            return self._made_by(file, call, made.group(1), split_top(made.group(2)), at)
        if not _NAME.match(expr) or depth >= 2:
            return unknown(f"the request adapter given to {at} is not traced")
        set_here = [c for c in bound.facts.calls if c.owner == call.owner and c.name == "setBaseUrl" and c.args
                    and c.receiver == ["name", expr] and c.line <= call.line]
        assigns = [(line, values) for line, values in
                   bound.facts.extra.get("assigns", {}).get(call.owner, {}).get(expr, []) if line <= call.line]
        made_at = max((line for line, _ in assigns), default=0)
        set_here = [c for c in set_here if c.line >= made_at]   # those on the adapter the construction is given
        if set_here:   # each one may be the one it carries (branches are not read): several are a choice
            values = [file.fold(c.args[0], call.owner.partition("#")[0], call.owner, c.line) for c in set_here]
            return values[0] if len(values) == 1 else choice(values)
        assigned = [v for _, values in assigns for v in values]
        if len(assigned) == 1:
            return self._given(file, call, assigned[0].strip(), root, depth + 1)
        owner = bound.facts.symbols[bound.by_key[call.owner]] if call.owner in bound.by_key else None
        if owner is not None and any(name == expr for name, _ in owner.params) and _is_bean(owner):
            return self._beans(bound, at)
        return None

    def _made_by(self, file: JavaFile, call: CallFact, name: str, args: list[str], at: str) -> Folded | None:
        """The base a method of the constructing class gives the adapter it makes, its parameters bound to ``args``."""
        bound = file.bound
        cls = call.owner.partition("#")[0]
        methods = [bound.facts.symbols[i] for i in bound.members(cls)]
        methods = [m for m in methods if m.kind == "method" and m.name == name and len(m.params) == len(args)]
        if len(methods) != 1:
            return unknown(f"the method {name}(..) that makes the request adapter given to {at} is not one of its class's")
        method = methods[0]
        sets = [c for c in bound.facts.calls if c.owner == method.key and c.name == "setBaseUrl" and c.args
                and is_adapter_receiver(bound, c)]
        if not sets:
            return None
        if len(sets) > 1:
            return unknown(f"{name}(..), which makes the request adapter given to {at}, has {len(sets)} "
                           "setBaseUrl(..) on a request adapter")
        given = sets[0].args[0].strip()
        params = [p for p, _ in method.params]
        if given in params and not _assigned(bound, method, given):
            return file.fold(args[params.index(given)], cls, call.owner, call.line)
        return file.fold(given, cls, method.key, sets[0].line)

    def _beans(self, bound: Bound, at: str) -> Folded:
        """The ``setBaseUrl`` values of the service's ``@Bean`` methods that make a request adapter."""
        values: list[Folded] = []
        for other in self.own:
            if other.ctx.microservice != bound.ctx.microservice:
                continue
            file = JavaFile(other, self.constants, self.project.values(other.ctx.module))
            for method in other.facts.symbols:
                if method.kind != "method" or not _is_bean(method) or not method.type.endswith("RequestAdapter"):
                    continue
                sets = [c for c in other.facts.calls if c.owner == method.key and c.name == "setBaseUrl" and c.args
                        and is_adapter_receiver(other, c)]
                values += [file.fold(c.args[0], method.key.partition("#")[0], method.key, c.line) for c in sets] or [
                    unknown(f"the request adapter bean {method.name}() sets no base URL")]
        if not values:
            return unknown(f"no @Bean method of the service makes the request adapter injected into {at}")
        distinct = {v.text: v for v in values}
        if len(distinct) == 1:
            return next(iter(distinct.values()))
        return unknown(f"the service's request adapter beans, one of which is injected into {at}, have "
                       f"{len(distinct)} base URLs")

    def _default(self, root: str, at: str) -> Folded:
        found = self.defaults.get(self.where.get(root, ""), [])
        texts = {v.text for v in found}
        if len(texts) == 1:
            return found[0]
        return unknown(f"{at} is given a new request adapter and the generated client sets "
                       f"{'no' if not texts else len(texts)} default base URL")


def _is_bean(method: SymbolFact) -> bool:
    return any(a.name.rsplit(".", 1)[-1] == "Bean" for a in method.annotations)


def _assigned(bound: Bound, method: SymbolFact, name: str) -> bool:
    """Whether the method assigns its parameter ``name`` (then its value at a later line is not the caller's)."""
    return bool(bound.facts.extra.get("assigns", {}).get(method.key, {}).get(name))
