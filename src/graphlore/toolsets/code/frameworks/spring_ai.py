"""Spring AI tools: a chat client given a tool object calls its ``@Tool`` methods when the model asks for them.

``ChatClient.builder(model).defaultTools(tools).build()`` gives every prompt of the client the ``@Tool`` methods of
``tools``; ``chatClient.prompt().tools(tools)...call()`` gives them to one prompt. No call in the code names a tool
method (the model picks them at run time), so each is a ``TRIGGERS`` edge (``kind: ai_tool``) from the method that
sends the prompt (a ``call()`` or ``stream()`` on a ``prompt()`` chain) to every ``@Tool`` method of the object's
class: for ``defaultTools``, from each such method of the class whose code builds the client (it keeps the client in
a field); for ``tools``, from the method whose chain holds it. The object's class is what the argument is declared
as (a parameter of the method, a field of the class) or made as (``new T(..)``), a project class with ``@Tool``
methods found by its simple name as javac finds it (a single-type import, the file's package, an on-demand
import; two at one place: none, never a guess). A client
built in one class (a ``@Bean``) and used in another is not followed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.symbols import Bound
from ..model import GraphEdge, make_edge

PACKAGE = "org.springframework.ai"
DEFAULT, PER_PROMPT = "defaultTools", "tools"
SENDS = frozenset({"call", "stream"})
_NEW = re.compile(r"^new\s+([\w.]+)\s*\(")


def _holds(tree, name: str) -> bool:
    """Whether a receiver tree holds a call of ``name`` (``prompt()`` somewhere in the chain)."""
    if not isinstance(tree, list) or not tree:
        return False
    if tree[0] == "call" and len(tree) > 2 and tree[2] == name:
        return True
    return any(_holds(part, name) for part in tree[1:] if isinstance(part, list))


def _tool_classes(files: list[Bound]) -> dict[str, list[tuple[Bound, str, list[str]]]]:
    """simple name -> (file, class key, the ids of its ``@Tool`` methods) of the project's classes with any."""
    out: dict[str, list[tuple[Bound, str, list[str]]]] = {}
    for bound in files:
        for sym in bound.facts.symbols:
            if sym.kind != "class":
                continue
            tools = [bound.ids[m] for m in bound.members(sym.key) if bound.facts.symbols[m].kind == "method"
                     and any(a.name == "Tool" for a in bound.facts.symbols[m].annotations)]
            if tools:
                out.setdefault(sym.name, []).append((bound, sym.key, tools))
    return out


def _argument_class(bound: Bound, owner: str, arg: str) -> str | None:
    """The simple name of the class an argument is declared or made as (a parameter, a field, ``new T(..)``)."""
    made = _NEW.match(arg)
    if made:
        return made.group(1).rsplit(".", 1)[-1]
    if not re.fullmatch(r"(?:this\.)?\w+", arg):
        return None
    name = arg.removeprefix("this.")
    index = bound.by_key.get(owner)
    method = bound.facts.symbols[index] if index is not None else None
    declared = [t for p, t in method.params if p == name] if method is not None and not arg.startswith("this.") \
        else []
    if not declared and method is not None and method.parent is not None:
        declared = [bound.facts.symbols[m].type for m in bound.members(method.parent)
                    if bound.facts.symbols[m].kind == "field" and bound.facts.symbols[m].name == name]
    return re.sub(r"<.*", "", declared[0]).rsplit(".", 1)[-1] if len(declared) == 1 and declared[0] else None


def _visible(bound: Bound, candidates: list[tuple[Bound, str, list[str]]]) -> list[list[str]]:
    """The tool methods of the class of that name the file sees, as javac finds it: a single-type import, else its
    own package's, else the one on-demand import (``import a.b.*``) that has one; two at one place: none."""
    single = {i.target for i in bound.facts.imports if i.names != (("*", "*"),)}
    demand = {i.target for i in bound.facts.imports if i.names == (("*", "*"),)}
    for place in (lambda o, k: f"{o.facts.package}.{k}" in single, lambda o, k: o.facts.package == bound.facts.package,
                  lambda o, k: o.facts.package in demand):
        seen = [tools for owner, key, tools in candidates if place(owner, key)]
        if seen:
            return seen if len(seen) == 1 else []
    return []


def ai_tool_edges(files: list[Bound]) -> Iterator[GraphEdge]:
    """The ``TRIGGERS`` edges of Spring AI tool objects (see the module docstring)."""
    users = [b for b in files if any(i.target == PACKAGE or i.target.startswith(PACKAGE + ".")
                                     for i in b.facts.imports)]
    if not users:
        return
    classes = _tool_classes(files)
    for bound in users:
        for call in bound.facts.calls:
            if call.name not in (DEFAULT, PER_PROMPT) or call.kind != "call" or not call.args:
                continue
            index = bound.by_key.get(call.owner)
            if index is None:
                continue
            if call.name == DEFAULT:
                parent = bound.facts.symbols[index].parent
                senders = {c.owner for c in bound.facts.calls if c.name in SENDS and _holds(c.receiver, "prompt")
                           and c.owner in bound.by_key and bound.facts.symbols[bound.by_key[c.owner]].parent == parent}
            elif _holds(["call", call.receiver, call.name], "prompt"):
                senders = {call.owner}
            else:
                continue
            for arg in call.args:
                name = _argument_class(bound, call.owner, arg.strip())
                for tools in _visible(bound, classes.get(name or "", [])):
                    for sender in sorted(senders):
                        for tool in tools:
                            yield make_edge(bound.ids[bound.by_key[sender]], "TRIGGERS", tool,
                                            {"kind": "ai_tool", "via": f"{call.name}({arg.strip()})",
                                             "line": call.line})
