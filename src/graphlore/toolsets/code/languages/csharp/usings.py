"""The usings a C# project's files share without writing them: every file's ``global using`` (it applies to the
whole compilation, not only its own file), the project's ``<Using Include="..."/>`` items (``Alias``, ``Static``;
``<Using Remove>`` drops one) in its ``.csproj`` and the nearest ``Directory.Build.props``/``.targets`` above it,
and the namespaces the SDK opens when ``ImplicitUsings`` is enabled (in the project or its
``Directory.Build.props``).

`shared_imports` gives each C# file these as imports of line 0 (no line of the file writes them), so the resolver
and every framework reader see them as the compiler does: a ``: Basket.BasketBase`` in a file whose gRPC import is
another file's ``global using Grpc.Core;`` serves gRPC. A project is a module of the layout (the folder of its
``.csproj``); a file whose module has no ``.csproj`` shares its module's ``global using`` lines only.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from ...model import FileContext, FileFacts, ImportFact

#: the namespaces ``ImplicitUsings`` opens, by SDK (Microsoft's "implicit using directives" table)
_BASE = ("System", "System.Collections.Generic", "System.IO", "System.Linq", "System.Net.Http", "System.Threading",
         "System.Threading.Tasks")
_HOSTING = ("Microsoft.Extensions.Configuration", "Microsoft.Extensions.DependencyInjection",
            "Microsoft.Extensions.Hosting", "Microsoft.Extensions.Logging")
IMPLICIT_USINGS = {
    "microsoft.net.sdk": _BASE,
    "microsoft.net.sdk.razor": _BASE,
    "microsoft.net.sdk.web": (*_BASE, "System.Net.Http.Json", "Microsoft.AspNetCore.Builder",
                              "Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Http",
                              "Microsoft.AspNetCore.Routing", *_HOSTING),
    "microsoft.net.sdk.worker": (*_BASE, *_HOSTING),
    "microsoft.net.sdk.blazorwebassembly": (*_BASE, "System.Net.Http.Json", "Microsoft.AspNetCore.Components.Forms",
                                            "Microsoft.AspNetCore.Components.Routing",
                                            "Microsoft.AspNetCore.Components.Web",
                                            "Microsoft.AspNetCore.Components.Web.Virtualization",
                                            "Microsoft.AspNetCore.Components.WebAssembly.Hosting",
                                            "Microsoft.Extensions.Configuration",
                                            "Microsoft.Extensions.DependencyInjection",
                                            "Microsoft.Extensions.Logging"),
}
_PROJECT_SUFFIXES = (".csproj",)
#: the line of an import no line of the file writes
SHARED_LINE = 0

Using = tuple[str, str, bool]   # (namespace or type, alias or "*", static)


def _tag(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


@lru_cache(maxsize=512)
def _msbuild(path: str, _stamp: tuple[int, int]) -> tuple[str, str | None, tuple[Using, ...], tuple[str, ...]]:
    """(SDK, ``ImplicitUsings`` as written or None, ``<Using Include>`` items, ``<Using Remove>`` items) of one
    MSBuild file (cached by its stamp)."""
    try:
        project = ET.fromstring(Path(path).read_text(encoding="utf-8-sig", errors="replace"))
    except (OSError, ET.ParseError):
        return "", None, (), ()
    sdk = project.get("Sdk", "")
    sdk = sdk or next((e.get("Name", "") for e in project if _tag(e) == "Sdk"), "")
    implicit: str | None = None
    included: list[Using] = []
    removed: list[str] = []
    for group in project:
        for child in group:
            tag = _tag(child)
            if tag == "ImplicitUsings" and _tag(group) == "PropertyGroup":
                implicit = (child.text or "").strip()
            elif tag == "Using" and child.get("Include"):
                for name in child.get("Include", "").split(";"):
                    if name.strip():
                        included.append((name.strip(), child.get("Alias") or "*",
                                         (child.get("Static") or "").lower() == "true"))
            elif tag == "Using" and child.get("Remove"):
                removed.extend(n.strip() for n in child.get("Remove", "").split(";") if n.strip())
    return sdk.split("/", 1)[0].strip(), implicit, tuple(included), tuple(removed)


def _read(path: Path) -> tuple[str, str | None, tuple[Using, ...], tuple[str, ...]] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return _msbuild(str(path), (stat.st_size, stat.st_mtime_ns))


def _nearest(root: Path, folder: str, name: str) -> Path | None:
    """The nearest ``name`` in ``folder`` or a folder above it, inside the tree (MSBuild imports only that one)."""
    while True:
        candidate = root / folder / name if folder else root / name
        if candidate.is_file():
            return candidate
        if not folder:
            return None
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""


def project_usings(root: Path, folder: str) -> tuple[Using, ...]:
    """What the project files of ``folder`` (a module's) and the ``Directory.Build`` files above it open."""
    try:
        projects = sorted(e.name for e in os.scandir(root / folder if folder else root)
                          if e.is_file() and e.name.endswith(_PROJECT_SUFFIXES))
    except OSError:
        return ()
    if not projects:
        return ()
    props, targets = _nearest(root, folder, "Directory.Build.props"), _nearest(root, folder, "Directory.Build.targets")
    out: list[Using] = []
    removed: set[str] = set()
    for name in projects:
        # MSBuild's order: Directory.Build.props, the project, Directory.Build.targets (a later value wins)
        read = [_read(p) for p in (props, root / folder / name if folder else root / name, targets) if p]
        read = [r for r in read if r is not None]
        sdk = next((r[0] for r in read if r[0]), "")
        implicit = next((r[1] for r in reversed(read) if r[1] is not None), "")
        if implicit.lower() in ("enable", "true"):
            out.extend((namespace, "*", False) for namespace in IMPLICIT_USINGS.get(sdk.lower(), ()))
        for _sdk, _implicit, included, dropped in read:
            out.extend(included)
            removed.update(dropped)
    return tuple(dict.fromkeys(u for u in out if u[0] not in removed))


def _as_import(using: Using) -> ImportFact:
    target, alias, static = using
    return ImportFact(target, ((target, alias),) if alias != "*" else (("*", "*"),), SHARED_LINE, static=static)


def _own(imp: ImportFact) -> Using:
    alias = imp.names[0][1] if imp.names and imp.names[0][1] != "*" else "*"
    return imp.target, alias, imp.static


def shared_imports(root: Path, files: dict[str, tuple[FileFacts, FileContext]]) -> dict[str, FileFacts]:
    """The C# files whose shared usings (see the module docstring) are not the ones their facts hold, with their
    facts holding them now: their own imports, then one of line 0 per shared using they do not write."""
    by_module: dict[str, list[Using]] = {}
    for facts, ctx in files.values():
        lines = set(facts.extra.get("global_usings", ()))
        if lines:
            by_module.setdefault(ctx.module, []).extend(
                _own(i) for i in facts.imports if i.line in lines)
    shared: dict[str, tuple[Using, ...]] = {}
    out: dict[str, FileFacts] = {}
    for path, (facts, ctx) in files.items():
        module = ctx.module
        if module not in shared:
            folder = "" if module == "." else module
            shared[module] = tuple(dict.fromkeys([*project_usings(root, folder), *by_module.get(module, ())]))
        own = [i for i in facts.imports if i.line != SHARED_LINE]
        written = {_own(i) for i in own}
        wanted = [_as_import(u) for u in shared[module] if u not in written]
        if [i for i in facts.imports if i.line == SHARED_LINE] != wanted:
            out[path] = replace(facts, imports=[*own, *wanted])
    return out
