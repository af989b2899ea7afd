"""Dapr service invocation from C# (the Dapr .NET SDK): ``daprClient.InvokeMethodAsync[<T>](HttpMethod.Get,
"app-id", "method/path", ...)`` and ``daprClient.CreateInvokeMethodRequest(HttpMethod.Post, "app-id", "path", ...)``
(sent later with ``InvokeMethodAsync(request)``) are HTTP calls of ``http://<app-id>/<path>``: the caller's sidecar
sends them to the app of that Dapr app-id. Without an ``HttpMethod`` first the SDK sends a POST. The app-id and path
are folded as written (constants, configuration); one not known leaves the client unresolved, saying so. A single
argument (a request made elsewhere) is no new call: its ``CreateInvokeMethodRequest`` is the client.

``DaprClient.CreateInvokeHttpClient("app-id")``'s HttpClient is read with the other HttpClients (`aspnet`): its
base address is ``http://<app-id>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..languages.folding import literal
from ..languages.symbols import Bound
from ..services.endpoints import Item
from .aspnet import AspNet
from .base import Framework, Project, Reader, item

#: the SDK's calls that name an app and a method
INVOKE_CALLS = frozenset({"InvokeMethodAsync", "CreateInvokeMethodRequest"})
_VERB = re.compile(r"(?:System\.Net\.Http\.)?HttpMethod\.(Get|Post|Put|Delete|Patch|Head|Options)$")


def _invocations(web: AspNet, bound: Bound) -> Iterator[Item]:
    for call in bound.facts.calls:
        if call.kind != "call" or call.name not in INVOKE_CALLS or call.owner not in bound.by_key:
            continue
        args = list(call.args)
        verb = _VERB.match(args[0]) if args else None
        method = verb.group(1).upper() if verb else "POST"
        named = args[1:3] if verb else args[:2]
        if len(named) < 2 or call.argc < (3 if verb else 2):
            continue   # InvokeMethodAsync(request): the request's CreateInvokeMethodRequest is the call
        class_key = call.owner.rpartition(".")[0]
        app = web.fold(bound.facts, named[0], class_key, call.owner, call.line)
        path = web.fold(bound.facts, named[1], class_key, call.owner, call.line)
        url = literal("http://") + app + literal("/") + path if not path.text.startswith("/") else \
            literal("http://") + app + path
        found = item(bound, bound.by_key[call.owner], "client", "dapr_invoke", call.line, http_method=method,
                     path=url, written=f"{named[0]}, {named[1]}")
        if not app.known:
            found.problems.append("the Dapr app-id it invokes is not known")
        yield found


def prepare(files: list[Bound], project: Project) -> Reader:
    web = AspNet(files, project)
    return lambda bound: _invocations(web, bound)


FRAMEWORK = Framework("dapr", ("csharp",), prepare)
