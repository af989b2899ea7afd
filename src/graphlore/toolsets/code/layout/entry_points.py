"""Services built from a subfolder's entry point of one build (one ``go.mod`` at the root, each service a ``main``
package in ``cmd/<svc>`` built by its own Dockerfile).

**Entry points.** A Dockerfile (``Dockerfile``, ``Dockerfile-x``, ``Dockerfile.x``, ``x.Dockerfile``, anywhere in
the tree) whose ``RUN`` builds a package of a subfolder (``go build [flags] ./cmd/counter``, its files
``./cmd/counter/main.go``, ``go install``, or the
package by its import path under the module's path; a file path needs no ``./``: ``go build api/cmd/main.go``; a
``go build`` inside a quoted option, as a file watcher's ``--build="go build ..."``, ends with the quote) names that
folder as a deployable's entry point. The path is
read against the Go module around the Dockerfile (``go build`` runs in a module; a Dockerfile in ``docker/`` of a
root ``go.mod`` builds ``cmd/counter`` of the root), and counts only when that folder holds Go sources. An image
``ko://<module path>/cmd/x`` in a deployment file (ko's Kubernetes and Skaffold images) names ``cmd/x`` of the Go module
with that path the same way. A Makefile target is not enough: it builds, it does not deploy. A service's own
``cmd`` folder (``api/cmd/main.go``) makes the service ``api``, rooted at ``api`` (`layout._entry_home`).

**Shared code.** Each entry point's service also holds the packages of its module that only it reaches through
imports (``internal/counter/...``: `reached`); a package two or more entry points reach stays with the module's own
service (a library, ``deployable: false``), never given to one of them.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from .walk import DOCKERFILE, Scan

_RUN_GO = re.compile(r"\bgo\s+(?:build|install)\b([^&;|\n]*)")
#: ``go build`` flags that take a value (the value is not a package)
_VALUE_FLAGS = frozenset({"-o", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile", "-p", "-pkgdir",
                          "-buildmode", "-compiler", "-installsuffix", "-overlay", "-pgo", "-toolexec", "-trimpath="})
_KO = re.compile(r"ko://([\w.\-/]+)")
_IMPORT_BLOCK = re.compile(r"^import\s*\((.*?)^\)", re.S | re.M)
_IMPORT_LINE = re.compile(r'^import\s+(?:[\w.]+\s+)?"([^"]+)"', re.M)
_QUOTED = re.compile(r'"([^"]+)"')


def dockerfiles(found: Scan) -> list[str]:
    """Every Dockerfile of the tree (any of the usual names), as paths."""
    return sorted(f"{rel}/{name}" if rel else name for rel, names in found.layout_files.items()
                  for name in names if DOCKERFILE.match(name))


def built_packages(text: str) -> list[str]:
    """The packages a Dockerfile's ``go build``/``go install`` commands name (``./cmd/x``, an import path)."""
    logical = re.sub(r"\\\s*\n", " ", text)
    out: list[str] = []
    for match in _RUN_GO.finditer(logical):
        try:
            words = shlex.split(_own_words(logical, match), comments=False)
        except ValueError:
            words = match.group(1).split()
        skip = False
        for word in words:
            if skip:
                skip = False
                continue
            if word.startswith("-"):
                skip = word in _VALUE_FLAGS
                continue
            if word.startswith(("/", "$")):
                continue
            if word.endswith(".go"):   # ``go build ./cmd/api/main.go``: the files of the package in their folder
                folder = word.rpartition("/")[0]
                if folder not in ("", "."):   # a file is a path: ``api/cmd/main.go`` is ``./api/cmd``'s
                    out.append(folder if folder.startswith(".") else "./" + folder)
                continue
            out.append(word.rstrip("/"))
    return out


def _own_words(line: str, match: re.Match) -> str:
    """The words of a ``go build`` command, ending where the quoted string that holds it does: a watcher's
    ``--build="go build -o main api/cmd/main.go" --command=./main`` builds ``api/cmd`` and no more."""
    start = line.rfind("\n", 0, match.start()) + 1
    before = line[start:match.start()]
    words = match.group(1)
    for quote in "\"'":
        if before.count(quote) % 2:
            words = words.split(quote, 1)[0]
    return words


def entry_points(found: Scan, go_modules: dict[str, str]) -> dict[str, str]:
    """Dockerfile path (or ``ko://`` image) -> the folder of the one entry point it builds (see the module
    docstring). ``go_modules``: folder ("." for the root) -> its ``go.mod`` module path."""
    out: dict[str, str] = {}
    for _file, package in ko_images(found):
        for module, namespace in go_modules.items():
            if package.startswith(namespace + "/"):
                rel = ("" if module == "." else module + "/") + package[len(namespace) + 1:]
                if _holds_go(found, rel):
                    out[f"ko://{package}"] = rel
    for path in dockerfiles(found):
        folder = path.rpartition("/")[0]
        module = module_around(folder, go_modules)
        if module is None:
            continue
        try:
            text = (found.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        base = "" if module == "." else module + "/"
        targets = set()
        for package in built_packages(text):
            if package.startswith(go_modules[module] + "/"):
                rel = package[len(go_modules[module]) + 1:]
            elif package.startswith("./") and package != "./":
                rel = package[2:]
            else:
                continue
            rel = (base + rel).strip("/")
            if rel and ".." not in rel.split("/") and _holds_go(found, rel):
                targets.add(rel)
        if len(targets) == 1:
            out[path] = targets.pop()
    return out


def _holds_go(found: Scan, folder: str) -> bool:
    return any(p.startswith(folder + "/") and p.endswith(".go") and "/" not in p[len(folder) + 1:]
               for p in found.sources)


def ko_images(found: Scan) -> list[tuple[str, str]]:
    """(deployment file, package) of every ``ko://`` image the deployment files name."""
    out = []
    for rel, names in found.layout_files.items():
        for name in names:
            if name.endswith((".yml", ".yaml")):
                path = f"{rel}/{name}" if rel else name
                try:
                    text = (found.root / path).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                out += [(path, package.rstrip("/")) for package in _KO.findall(text)]
    return out


def module_around(folder: str, go_modules: dict[str, str]) -> str | None:
    """The Go module folder that holds ``folder`` (itself or its nearest parent with a go.mod), or None."""
    while True:
        if (folder or ".") in go_modules:
            return folder or "."
        if not folder:
            return None
        folder = folder.rpartition("/")[0]


def import_stamps(found: Scan) -> tuple:
    """What can move the entry points' shares besides the layout files: the Go sources' stamps, when the tree's
    Dockerfiles and ``ko://`` images build two or more packages of subfolders (their imports decide which service a
    package belongs to; with one entry point or none nothing is shared, and an edit of a Go file moves nothing)."""
    packages = {package for _file, package in ko_images(found)}
    for path in dockerfiles(found):
        try:
            text = (found.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        packages.update(p for p in built_packages(text) if p not in (".", "./") and not p.startswith("../"))
        if len(packages) >= 2:
            return _go_stamps(found)
    return _go_stamps(found) if len(packages) >= 2 else ()


def _go_stamps(found: Scan) -> tuple:
    return tuple(sorted((path, source.size, source.mtime_ns) for path, source in found.sources.items()
                        if path.endswith(".go")))


def go_imports(root: Path, paths: list[str]) -> list[str]:
    """The import paths of Go files (their import declarations only)."""
    out: list[str] = []
    for path in paths:
        try:
            text = (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for block in _IMPORT_BLOCK.findall(text):
            out += _QUOTED.findall(block)
        out += _IMPORT_LINE.findall(text)
    return out


def reached(found: Scan, module: str, namespace: str, entries: list[str]) -> dict[str, set[str]]:
    """Package folder -> the entry points (folders) that reach it through imports, within one Go module."""
    base = "" if module == "." else module + "/"
    files: dict[str, list[str]] = {}
    for path in found.sources:
        if path.endswith(".go") and path.startswith(base) and not path.endswith("_test.go"):
            files.setdefault(path.rpartition("/")[0], []).append(path)
    imports: dict[str, set[str]] = {}

    def of(folder: str) -> set[str]:
        if folder not in imports:
            found_here = set()
            for name in go_imports(found.root, files.get(folder, [])):
                if name.startswith(namespace + "/"):
                    found_here.add(base + name[len(namespace) + 1:])
            imports[folder] = found_here & set(files)
        return imports[folder]

    out: dict[str, set[str]] = {}
    for entry in entries:
        seen, stack = {entry}, [entry]
        while stack:
            for child in of(stack.pop()):
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        for folder in seen:
            out.setdefault(folder, set()).add(entry)
    return out
