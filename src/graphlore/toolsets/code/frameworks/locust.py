"""Locust load tests (Python) as HTTP clients of the service they load.

**Who calls.** In a file that imports ``locust``: ``self.client.get(path)`` ... ``request(method, path)`` in a
method of a class deriving (in the file, or through a class of the file) from ``HttpUser``, ``FastHttpUser``,
``TaskSet`` or ``SequentialTaskSet``; and ``l.client.get(path)`` in a module function a ``tasks`` attribute of
such a class names, on its first parameter (the user or task set Locust hands it). Nothing else in the file is
taken for Locust's client.

**Where to.** What Locust reads first: ``--host`` in the service's Dockerfile (``services.deployment``) or
``LOCUST_HOST``, both settled with the environment the project's deployment files give the service (they
override a class's ``host``); else the ``host`` attribute of the calling class, else of the file's user classes
when they all give the same one. No host at all leaves the client unresolved, saying ``LOCUST_HOST`` is set by
none of them. A call whose URL is not readable (``**kwargs``) is a client too, unresolved, saying why.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import CHOICE_OPEN, ENV_OPEN, Folded, env, unknown
from ..languages.python.constants import PythonFolder
from ..languages.symbols import Bound
from ..services.endpoints import Item
from .base import Framework, Project, Reader
from .python_web import kwarg, positional

BASES = frozenset({"HttpUser", "FastHttpUser", "TaskSet", "SequentialTaskSet"})
USERS = frozenset({"HttpUser", "FastHttpUser"})
VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})


def _imports_locust(bound: Bound) -> bool:
    return any(imp.target == "locust" or imp.target.startswith("locust.") for imp in bound.facts.imports)


def _classes(bound: Bound) -> dict[str, str]:
    """The file's Locust classes: key -> the Locust base it derives from (``HttpUser`` ... ``TaskSet``)."""
    found: dict[str, str] = {}
    classes = [sym for sym in bound.facts.symbols if sym.kind == "class"]
    changed = True
    while changed:
        changed = False
        for sym in classes:
            if sym.key in found:
                continue
            for _relation, written in sym.supers:
                name = written.rsplit(".", 1)[-1]
                base = name if name in BASES else next(
                    (found[c.key] for c in classes if c.name == name and c.key in found), None)
                if base is not None:
                    found[sym.key] = base
                    changed = True
                    break
    return found


def _assigned(bound: Bound, owner: str, name: str) -> list[str]:
    return [expr for _, exprs in bound.facts.extra.get("assigns", {}).get(owner, {}).get(name, ()) for expr in exprs]


def read_locust(bound: Bound) -> Iterator[Item]:
    facts = bound.facts
    classes = _classes(bound)
    if not classes:
        return
    functions = {sym.key: sym for sym in facts.symbols if sym.kind == "function" and sym.parent is None}
    tasks: set[str] = set()
    for sym in facts.symbols:   # ``tasks = [a, b]`` / ``{a: 1, b: 5}`` on a Locust class
        if sym.kind == "field" and sym.name == "tasks" and sym.parent in classes:
            tasks |= set(re.findall(r"[A-Za-z_]\w*", sym.signature.partition("=")[2])) & set(functions)
    folder = PythonFolder({bound.ctx.module_name: facts}, bound.ctx.module_name)
    hosts = {key: _assigned(bound, key, "host") for key in classes}
    user_hosts = {tuple(exprs) for key, exprs in hosts.items() if classes[key] in USERS}
    by_key = {sym.key: index for index, sym in enumerate(facts.symbols)}
    for call in facts.calls:
        if call.name not in VERBS | {"request"} or not call.receiver or call.receiver[0] != "field" \
                or call.receiver[2] != "client":
            continue
        base = call.receiver[1]
        owner_class = call.owner.rsplit(".", 1)[0] if "." in call.owner else ""
        if base in (["self"], ["name", "self"]) and owner_class in classes:
            host_exprs = hosts[owner_class] or (list(next(iter(user_hosts))) if len(user_hosts) == 1 else [])
        elif base[0] == "name" and call.owner in tasks and functions[call.owner].params and \
                functions[call.owner].params[0][0] == base[1]:
            host_exprs = list(next(iter(user_hosts))) if len(user_hosts) == 1 else []
        else:
            continue
        args = positional(call.args)
        at = 1 if call.name == "request" else 0   # where the URL is
        if any(a.startswith("*") for a in args[:at + 1]):   # ``*args`` / ``**kwargs``: positions unknown
            args = args[:[a.startswith("*") for a in args].index(True)]
        if call.name == "request":
            method_value = folder.fold(args[0]) if args else unknown("no method")
            method = method_value.text.upper() if method_value.known else None
        else:
            method = call.name.upper()
        written = args[at] if len(args) > at else kwarg(call.args, "url") or ""
        host = _host(folder.at(facts, owner_class, call.line).fold(host_exprs[0]) if len(host_exprs) == 1 else None)
        path = folder.at(facts, call.owner, call.line).fold(written) if written else \
            unknown(f"the call's URL is not readable ({', '.join(call.args) or 'no argument'})")
        if path.text.startswith("/"):   # Locust joins the host and a path; a full URL goes where it says
            path = Folded(host.text.rstrip("/"), host.known, host.why) + path
        index = by_key.get(call.owner)
        yield Item(kind="client", owner=bound.ids[index] if index is not None else bound.file_id,
                   owner_fqn=bound.fqns[index] if index is not None else bound.file_fqn,
                   microservice=bound.ctx.microservice, module=bound.ctx.module, file=bound.path, line=call.line,
                   flavor="locust", http_method=method, path=path, written=written)


def _host(own: Folded | None) -> Folded:
    """The host a client calls: Locust's ``--host``/``LOCUST_HOST`` when the deployment gives one (it overrides
    the class's ``host``), else the class's host; a class host that is not a plain value is not guessed at."""
    if own is None:
        return env("LOCUST_HOST")
    if own.known and not any(m in own.text for m in (ENV_OPEN, CHOICE_OPEN)):
        return env("LOCUST_HOST", own.text)
    found = env("LOCUST_HOST")
    return Folded(found.text, False, found.why + ("the class's host is not a plain value",))


def prepare(files: list[Bound], project: Project) -> Reader:
    return lambda bound: read_locust(bound) if project.memo.get("locust", bound, _imports_locust) else ()


FRAMEWORK = Framework("locust", ("python",), prepare)
