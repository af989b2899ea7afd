"""Declarative C# HTTP clients (Refit, RestEase): an interface method with a verb attribute (``[Get("/items/{id}")]``,
``[Post(...)]``, ``[Put]``, ``[Delete]``, ``[Patch]``, ``[Head]``, ``[Options]``) in a file that imports ``Refit`` or
``RestEase`` (its own usings or its project's) is a client of that path, under the base address the interface is
given:

- ``RestService.For<I>(url)`` / RestEase's ``RestClient.For<I>(url)``: the URL;
- ``RestService.For<I>(httpClient, ...)``: the ``httpClient.BaseAddress = new Uri(...)`` the same method sets;
- ``AddRefitClient<I>().ConfigureHttpClient(c => c.BaseAddress = new Uri(...))`` registrations.

Each read where it is written (locals and .NET configuration fold, `CSharpFolder`); several distinct base addresses
are a choice (each value a candidate, none picked); none leaves the client's URL a path, unresolved, saying so. A
registration gives its address only to an interface its file can name (its namespace, one inside it, or a using of
it) whose code runs in the registering process (its own service's, or a library's): another deployed service's
interface of the same name is not the one it registers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.csharp.constants import CSharpFolder
from ..languages.folding import Folded, choice, literal
from ..languages.symbols import Bound, reaches
from ..model import FileContext, FileFacts
from ..services.endpoints import Item
from .aspnet import csharp_constants, names_class
from .base import Framework, Project, Reader, item

VERBS = {"Get": "GET", "Post": "POST", "Put": "PUT", "Delete": "DELETE", "Patch": "PATCH", "Head": "HEAD",
         "Options": "OPTIONS"}
LIBRARIES = ("Refit", "RestEase")
#: the static factories that make a client of an interface: ``X.For<I>(...)``
FACTORIES = frozenset({"RestService", "RestClient"})
_HTTP_CLIENT_VAR = re.compile(r"[A-Za-z_]\w*")


def _uses_library(bound: Bound) -> bool:
    return any(imp.target.split(".", 1)[0] in LIBRARIES for imp in bound.facts.imports)


class Bases:
    """The base addresses each interface is given across the project (see the module docstring)."""

    def __init__(self, files: list[Bound], project: Project) -> None:
        self.constants = csharp_constants(project)
        #: interface name -> (base address, the type as written, the registering file's facts and context)
        self.by_interface: dict[str, list[tuple[Folded, str, FileFacts, FileContext]]] = {}
        for bound in files:
            facts = bound.facts
            generic = {(line, name): types for line, name, types in facts.extra.get("generic_calls", [])}
            for call in facts.calls:
                types = generic.get((call.line, call.name))
                receiver = call.receiver
                if call.name != "For" or not types or not call.args or not receiver or receiver[0] != "name" or \
                        receiver[1].rsplit(".", 1)[-1] not in FACTORIES:
                    continue
                class_key = call.owner.rpartition(".")[0]
                folder = CSharpFolder(self.constants, facts, class_key).at(facts, call.owner, call.line)
                first = call.args[0].strip()
                set_here = [b for b in facts.extra.get("base_addresses", []) if b["owner"] == call.owner and
                            b["target"] == f"{first}.BaseAddress" and b["line"] <= call.line] \
                    if _HTTP_CLIENT_VAR.fullmatch(first) else []
                if set_here:   # an HttpClient given its base address before the call
                    last = max(set_here, key=lambda b: b["line"])
                    value = CSharpFolder(self.constants, facts, class_key).at(facts, call.owner, last["line"] + 1) \
                        .fold(last["value"])
                else:
                    value = folder.fold(first)
                    if value.text.startswith("{?"):
                        continue   # an HttpClient made elsewhere: no address here
                self.by_interface.setdefault(types[0].rsplit(".", 1)[-1], []).append(
                    (value, types[0], facts, bound.ctx))
            for base in facts.extra.get("base_addresses", []):
                if base.get("registrar") == "AddRefitClient" and base.get("client"):
                    owner = base["owner"]
                    folder = CSharpFolder(self.constants, facts, owner.rpartition(".")[0]).at(facts, owner,
                                                                                             base["line"])
                    self.by_interface.setdefault(base["client"].rsplit(".", 1)[-1], []).append(
                        (folder.fold(base["value"]), base["client"], facts, bound.ctx))

    def of(self, interface: str, bound: Bound) -> Folded | None:
        """The base address of the interface ``interface`` declared in ``bound`` (see the module docstring)."""
        found = [value for value, written, facts, where in self.by_interface.get(interface, [])
                 if reaches(where, bound.ctx) and names_class(facts, written, bound.facts.package)]
        return choice(found) if found else None


def read_clients(bases: Bases, bound: Bound) -> Iterator[Item]:
    if not _uses_library(bound):
        return
    facts = bound.facts
    kinds = {sym.key: sym.kind for sym in facts.symbols}
    for index, sym in enumerate(facts.symbols):
        if sym.kind != "method" or kinds.get(sym.parent or "") != "interface":
            continue
        for annotation in sym.annotations:
            verb = VERBS.get(annotation.name.removesuffix("Attribute"))
            written = next((value for name, value in annotation.args if name == ""), None)
            if verb is None or written is None:
                continue
            folder = CSharpFolder(bases.constants, facts, sym.parent or "")
            path = folder.fold(written)
            path = literal("/") + path if path.known and not path.text.startswith(("/", "http")) else path
            base = bases.of((sym.parent or "").rsplit(".", 1)[-1], bound)
            if base is not None and base.text.endswith("/") and path.text.startswith("/"):
                path = Folded(path.text[1:], path.known, path.why)   # ``new Uri(".../api/")`` + ``/items``
            url = base + path if base is not None else path
            found = item(bound, index, "client", "refit", None, http_method=verb, path=url, written=written)
            if base is None:
                found.problems.append("the interface's base address is not known (no RestService.For, "
                                      "AddRefitClient or RestClient.For gives it one in the project)")
            yield found


def prepare(files: list[Bound], project: Project) -> Reader:
    bases = Bases(files, project)
    return lambda bound: read_clients(bases, bound)


FRAMEWORK = Framework("refit", ("csharp",), prepare)
