"""The usings a C# project's files share without writing them: every file's ``global using`` (it applies to the
whole compilation, not only its own file), the project's ``<Using Include="..."/>`` items (``Alias``, ``Static``;
``<Using Remove>`` drops one) in its ``.csproj`` and the nearest ``Directory.Build.props``/``.targets`` above it,
and the namespaces the SDK opens when ``ImplicitUsings`` is enabled (in the project or its
``Directory.Build.props``).

`shared_imports` gives each C# file these as imports of line 0 (no line of the file writes them), so the resolver
and every framework reader see them as the compiler does: a ``: Basket.BasketBase`` in a file whose gRPC import is
another file's ``global using Grpc.Core;`` serves gRPC. A project is a module of the layout (the folder of its
``.csproj``); a file whose module has no ``.csproj`` shares its module's ``global using`` lines only.

A Razor file (`razor`) also takes the ``@using`` lines of the ``_Imports.razor`` (``_ViewImports.cshtml``) files of
its folder and the folders above it in its project, and, unless it declares ``@namespace``, the namespace Razor
gives it: the nearest such file's ``@namespace``, else the project's ``RootNamespace`` (else its ``.csproj``'s
name), followed by the folders between that file (or the project) and the component.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from ...model import FileContext, FileFacts, ImportFact
from .razor import IMPORT_FILES

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


@dataclass(frozen=True)
class MsBuild:
    """What one MSBuild file says about usings: its SDK, ``ImplicitUsings`` and ``RootNamespace`` as written (None:
    not set), its ``<Using Include>`` and ``<Using Remove>`` items."""

    sdk: str = ""
    implicit: str | None = None
    included: tuple[Using, ...] = ()
    removed: tuple[str, ...] = ()
    root_namespace: str | None = None


@lru_cache(maxsize=512)
def _msbuild(path: str, _stamp: tuple[int, int]) -> MsBuild:
    """One MSBuild file read (cached by its stamp)."""
    try:
        project = ET.fromstring(Path(path).read_text(encoding="utf-8-sig", errors="replace"))
    except (OSError, ET.ParseError):
        return MsBuild()
    sdk = project.get("Sdk", "")
    sdk = sdk or next((e.get("Name", "") for e in project if _tag(e) == "Sdk"), "")
    implicit: str | None = None
    root_namespace: str | None = None
    included: list[Using] = []
    removed: list[str] = []
    for group in project:
        for child in group:
            tag = _tag(child)
            if tag == "ImplicitUsings" and _tag(group) == "PropertyGroup":
                implicit = (child.text or "").strip()
            elif tag == "RootNamespace" and _tag(group) == "PropertyGroup" and (child.text or "").strip():
                root_namespace = (child.text or "").strip()
            elif tag == "Using" and child.get("Include"):
                for name in child.get("Include", "").split(";"):
                    if name.strip():
                        included.append((name.strip(), child.get("Alias") or "*",
                                         (child.get("Static") or "").lower() == "true"))
            elif tag == "Using" and child.get("Remove"):
                removed.extend(n.strip() for n in child.get("Remove", "").split(";") if n.strip())
    return MsBuild(sdk.split("/", 1)[0].strip(), implicit, tuple(included), tuple(removed), root_namespace)


def _read(path: Path) -> MsBuild | None:
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


def _projects(root: Path, folder: str) -> list[tuple[str, list[MsBuild]]]:
    """Each project file of ``folder`` (its name) with what MSBuild reads for it, in MSBuild's order: the nearest
    ``Directory.Build.props``, the project, the nearest ``Directory.Build.targets`` (a later value wins)."""
    try:
        projects = sorted(e.name for e in os.scandir(root / folder if folder else root)
                          if e.is_file() and e.name.endswith(_PROJECT_SUFFIXES))
    except OSError:
        return []
    props, targets = _nearest(root, folder, "Directory.Build.props"), _nearest(root, folder, "Directory.Build.targets")
    out = []
    for name in projects:
        read = [_read(p) for p in (props, root / folder / name if folder else root / name, targets) if p]
        out.append((name, [r for r in read if r is not None]))
    return out


def project_usings(root: Path, folder: str) -> tuple[Using, ...]:
    """What the project files of ``folder`` (a module's) and the ``Directory.Build`` files above it open."""
    out: list[Using] = []
    removed: set[str] = set()
    for _name, read in _projects(root, folder):
        sdk = next((r.sdk for r in read if r.sdk), "")
        implicit = next((r.implicit for r in reversed(read) if r.implicit is not None), "")
        if implicit.lower() in ("enable", "true"):
            out.extend((namespace, "*", False) for namespace in IMPLICIT_USINGS.get(sdk.lower(), ()))
        for msbuild in read:
            out.extend(msbuild.included)
            removed.update(msbuild.removed)
    return tuple(dict.fromkeys(u for u in out if u[0] not in removed))


def _identifier(segment: str) -> str:
    segment = re.sub(r"\W", "_", segment)
    return f"_{segment}" if segment[:1].isdigit() else segment


def root_namespace(root: Path, folder: str) -> str:
    """The project's ``RootNamespace``, else its project file's name (what Razor names its components under)."""
    for name, read in _projects(root, folder):
        written = next((r.root_namespace for r in reversed(read) if r.root_namespace), None)
        return written or ".".join(_identifier(part) for part in name.rsplit(".", 1)[0].split("."))
    return ""


def _razor(root: Path, path: str, facts: FileFacts, module: str,
           import_files: dict[str, FileFacts]) -> tuple[list[Using], str]:
    """A Razor file's usings from the import files above it (outermost first) and its namespace (see the module
    docstring)."""
    project = "" if module == "." else module
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    kind = "_Imports.razor" if path.endswith(".razor") else "_ViewImports.cshtml"
    chain, current = [], folder
    while True:
        chain.append(current)
        if current == project or not current:
            break
        current = current.rsplit("/", 1)[0] if "/" in current else ""
    usings: list[Using] = []
    namespace, below = "", []
    for at in chain:   # innermost first, for the namespace
        found = import_files.get(f"{at}/{kind}" if at else kind)
        if found is not None and found.extra.get("razor") and not namespace:
            namespace = ".".join([found.extra["razor"], *reversed(below)])
        below.append(_identifier(at.rsplit("/", 1)[-1]) if at != project else "")
    for at in reversed(chain):
        found = import_files.get(f"{at}/{kind}" if at else kind)
        if found is not None:
            usings.extend(_own(i) for i in found.imports if i.line != SHARED_LINE)
    if facts.extra.get("razor"):
        namespace = facts.extra["razor"]
    elif not namespace:
        below = [_identifier(part) for part in folder[len(project):].strip("/").split("/") if part]
        namespace = ".".join(p for p in (root_namespace(root, project), *below) if p)
    return usings, namespace.strip(".")


def _as_import(using: Using) -> ImportFact:
    target, alias, static = using
    return ImportFact(target, ((target, alias),) if alias != "*" else (("*", "*"),), SHARED_LINE, static=static)


def _own(imp: ImportFact) -> Using:
    alias = imp.names[0][1] if imp.names and imp.names[0][1] != "*" else "*"
    return imp.target, alias, imp.static


def shared_imports(root: Path, files: dict[str, tuple[FileFacts, FileContext]]) -> dict[str, FileFacts]:
    """The C# files whose shared usings (and Razor namespace; see the module docstring) are not the ones their facts
    hold, with their facts holding them now: their own imports, then one of line 0 per shared using they do not
    write."""
    by_module: dict[str, list[Using]] = {}
    import_files: dict[str, FileFacts] = {}
    for path, (facts, ctx) in files.items():
        lines = set(facts.extra.get("global_usings", ()))
        if lines:
            by_module.setdefault(ctx.module, []).extend(
                _own(i) for i in facts.imports if i.line in lines)
        if path.rsplit("/", 1)[-1] in IMPORT_FILES:
            import_files[path] = facts
    shared: dict[str, tuple[Using, ...]] = {}
    out: dict[str, FileFacts] = {}
    for path, (facts, ctx) in files.items():
        module = ctx.module
        if module not in shared:
            folder = "" if module == "." else module
            shared[module] = tuple(dict.fromkeys([*project_usings(root, folder), *by_module.get(module, ())]))
        usings, package = list(shared[module]), facts.package
        if "razor" in facts.extra:
            razor_usings, package = _razor(root, path, facts, module, import_files)
            usings = list(dict.fromkeys([*razor_usings, *usings]))
        own = [i for i in facts.imports if i.line != SHARED_LINE]
        written = {_own(i) for i in own}
        wanted = [_as_import(u) for u in usings if u not in written]
        if [i for i in facts.imports if i.line == SHARED_LINE] != wanted or package != facts.package:
            out[path] = replace(facts, imports=[*own, *wanted], package=package)
    return out
