"""Services that are subcommands of one program (one binary or script, a subcommand per service).

**Subcommands** the program declares: Go cobra commands (``x := &cobra.Command{Use: "chat ..."}`` added with
``AddCommand(x)``), Go urfave/cli commands (``cli.Command{Name: "chat", Action: ...}``), Python click and typer
commands (``@group.command("chat")``, ``@group.command()`` over ``def chat``: click's own name, ``_`` as ``-``).

**Run by the deployment**: a Compose service's ``command``/``entrypoint``, a Kubernetes container's
``command``/``args`` or a Dockerfile's ``ENTRYPOINT``/``CMD`` (exec or shell form) whose first word after the
program (and its flags) is a declared subcommand runs that subcommand. Only when the deployment runs two or more
subcommands of the project is each one a service (a CLI with one served command is one service).

**Ownership** by reachability from the subcommand's entry (its declaration's body), never by name:
* Go: the functions it calls (``pkg.Func(`` through the file's imports, ``Func(`` in its own package), then the
  free functions those call, transitively: the start-up wiring that constructs the service's parts. A method's
  body is not followed (a call made while serving uses a package, it does not make it a part of the service).
* Python: the modules the command's body names through its file's imports, then their imports, transitively.

A folder that exactly one subcommand reaches is that service's; a folder several reach is shared and stays with
the program's own build (a library of them all); an unreached folder stays there too.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .entry_points import dockerfiles, go_imports, module_around
from .walk import DOCKERFILE, Scan


@dataclass(slots=True)
class Subcommand:
    name: str
    file: str
    line: int
    language: str           # go | python
    body: str               # the declaration's text (Go: the struct literal; Python: the function)
    #: deployment units that run it ("docker-compose service web (deploy/compose.yaml)", ...)
    run_by: list[str] = field(default_factory=list)


# ---- Go -----------------------------------------------------------------------------------------------------

_GO_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|`[^`]*`|\'(?:[^\'\\\n]|\\.)*\'', re.S)
_COBRA = re.compile(r"(\w+)\s*:?=\s*&cobra\.Command\s*\{")
_COBRA_USE = re.compile(r'\bUse:\s*"([\w-]+)')
_URFAVE = re.compile(r"&?cli\.Command\s*\{")
_URFAVE_NAME = re.compile(r'\bName:\s*"([\w-]+)"')
_GO_FUNC = re.compile(r"^func\s+(\([^)]*\)\s*)?(\w+)\s*(?:\[[^\]]*\])?\(", re.M)
_GO_CALL = re.compile(r"(?<![\w.])(?:(\w+)\.)?(\w+)\s*\(")
_GO_PACKAGE_ALIAS = re.compile(r'^\s*(?:([\w.]+)\s+)?"([^"]+)"', re.M)


def _blank(text: str) -> str:
    """Go text with comments and string contents blanked (same length, lines kept), for brace matching."""
    def keep(match: re.Match) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))
    return _GO_NOISE.sub(keep, text)


def _block(text: str, start: int) -> int:
    """The index after the brace block that opens at or after ``start`` in blanked text."""
    depth, i = 0, text.find("{", start)
    if i < 0:
        return len(text)
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def _go_subcommands(root: Path, paths: list[str]) -> list[Subcommand]:
    texts = {path: (root / path).read_text(encoding="utf-8", errors="replace") for path in paths}
    added = set()
    for text in texts.values():
        added.update(re.findall(r"\.AddCommand\(([^)]*)\)", _blank(text)))
    added_names = {name for group in added for name in re.findall(r"\w+", group)}
    out = []
    for path, text in texts.items():
        blank = _blank(text)
        for match in _COBRA.finditer(blank):
            end = _block(blank, match.end() - 1)
            use = _COBRA_USE.search(text, match.end(), end)
            if use and match.group(1) in added_names:
                out.append(Subcommand(use.group(1), path, text.count("\n", 0, use.start()) + 1, "go",
                                      text[match.start():end]))
        for match in _URFAVE.finditer(blank):
            end = _block(blank, match.end() - 1)
            name = _URFAVE_NAME.search(text, match.end(), end)
            if name and "Action:" in blank[match.end():end]:
                out.append(Subcommand(name.group(1), path, text.count("\n", 0, name.start()) + 1, "go",
                                      text[match.start():end]))
    return out


@dataclass(slots=True)
class _GoFunc:
    folder: str
    method: bool
    body: str
    aliases: dict[str, str]   # import alias -> package folder


class _GoIndex:
    """The functions of one Go module by (folder, name), for the wiring walk."""

    def __init__(self, root: Path, namespace: str, base: str, paths: list[str]):
        self.funcs: dict[tuple[str, str], list[_GoFunc]] = {}
        self.namespace, self.base = namespace, base
        for path in paths:
            text = (root / path).read_text(encoding="utf-8", errors="replace")
            blank = _blank(text)
            folder, aliases = path.rpartition("/")[0], self.aliases(text)
            for match in _GO_FUNC.finditer(blank):
                end = _block(blank, match.end())
                self.funcs.setdefault((folder, match.group(2)), []).append(
                    _GoFunc(folder, bool(match.group(1)), blank[match.end():end], aliases))

    def aliases(self, text: str) -> dict[str, str]:
        out = {}
        block = "\n".join(re.findall(r"^import\s*\((.*?)^\)", text, re.S | re.M))
        block += "\n" + "\n".join(re.findall(r"^import\s+((?:[\w.]+\s+)?\"[^\"]+\")", text, re.M))
        for alias, name in _GO_PACKAGE_ALIAS.findall(block):
            if name.startswith(self.namespace + "/"):
                folder = self.base + name[len(self.namespace) + 1:]
                out[alias or name.rsplit("/", 1)[-1]] = folder
        return out

    def reach(self, body: str, folder: str, aliases: dict[str, str]) -> set[str]:
        """The folders of the free functions reached from ``body`` (see the module docstring)."""
        seen: set[tuple[str, str]] = set()
        stack = [(body, folder, aliases)]
        while stack:
            text, here, names = stack.pop()
            for qualifier, name in _GO_CALL.findall(text):
                target = names.get(qualifier) if qualifier else here
                if target is None or (target, name) in seen:
                    continue
                funcs = [f for f in self.funcs.get((target, name), []) if not f.method]
                if funcs:
                    seen.add((target, name))
                    stack += [(f.body, f.folder, f.aliases) for f in funcs]
        return {target for target, _ in seen}


# ---- Python -------------------------------------------------------------------------------------------------

_CLICK = re.compile(r"^@\w+\.command\(\s*(?:name\s*=\s*)?(?:[\"']([\w-]+)[\"'])?[^\n]*\n(?:@[^\n]*\n)*"
                    r"(?:async\s+)?def\s+(\w+)", re.M)
_PY_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(?:\(([\w\s,]+)\)|([\w \t,]+))", re.M)
_PY_IMPORT = re.compile(r"^\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?", re.M)


def _py_subcommands(root: Path, paths: list[str]) -> list[Subcommand]:
    out = []
    for path in paths:
        text = (root / path).read_text(encoding="utf-8", errors="replace")
        for match in _CLICK.finditer(text):
            start = text.find("\n", match.end()) + 1 or len(text)   # the body: the lines after ``def``
            stop = re.compile(r"^\S", re.M).search(text, start)
            body = text[match.start():stop.start() if stop else len(text)]
            name = match.group(1) or match.group(2).replace("_", "-")
            out.append(Subcommand(name, path, text.count("\n", 0, match.start()) + 1, "python", body))
    return out


def _py_module_file(found: Scan, dotted: str) -> str | None:
    rel = dotted.replace(".", "/")
    for candidate in (f"{rel}.py", f"{rel}/__init__.py"):
        for path in found.sources:
            if path == candidate or path.endswith("/" + candidate):
                return path
    return None


def _py_names(text: str) -> dict[str, str]:
    """Name bound by an import -> the dotted module it stands for."""
    out = {}
    for module, grouped, names in _PY_FROM.findall(text):
        for part in (grouped or names).split(","):
            words = part.split()
            if words:   # ``name`` or ``name as alias``
                out[words[-1]] = f"{module}.{words[0]}"
    for module, alias in _PY_IMPORT.findall(text):
        out[alias or module.split(".")[0]] = module if alias else module.split(".")[0]
    return out


def _py_reach(found: Scan, sub: Subcommand) -> set[str]:
    names = _py_names((found.root / sub.file).read_text(encoding="utf-8", errors="replace"))
    used = set(re.findall(r"\b(\w+)\b", sub.body))
    stack = []
    for name in used & set(names):
        dotted = names[name]
        path = _py_module_file(found, dotted) or _py_module_file(found, dotted.rpartition(".")[0])
        if path:
            stack.append(path)
    seen: set[str] = set()
    while stack:
        path = stack.pop()
        if path in seen:
            continue
        seen.add(path)
        text = (found.root / path).read_text(encoding="utf-8", errors="replace")
        for dotted in set(_py_names(text).values()):
            target = _py_module_file(found, dotted) or _py_module_file(found, dotted.rpartition(".")[0])
            if target and target != sub.file:
                stack.append(target)
    return {path.rpartition("/")[0] for path in seen}


# ---- the deployment's commands ------------------------------------------------------------------------------

_PROGRAMS = re.compile(r"^(?:python\d?(?:\.\d+)?|node|java|dotnet|sh|bash|uv|poetry|pipenv|run|exec)$")


def command_words(value) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError:
            return value.split()
    return []


def first_argument(words: list[str], program_first: bool) -> str | None:
    """The first word after the program and its flags (``/app/server -c x.yaml chat`` -> ``chat``)."""
    rest = words[1:] if program_first else words
    skip = False
    for word in rest:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = "=" not in word and word in ("-c", "--config", "-m")
            continue
        if "/" in word or word.endswith((".py", ".js", ".go", ".jar")) or _PROGRAMS.match(word):
            continue
        return word
    return None


def _dockerfile_words(text: str, keyword: str) -> list[str]:
    found = re.findall(rf"^\s*{keyword}\s+(.+)$", re.sub(r"\\\s*\n", " ", text), re.M | re.I)
    if not found:
        return []
    value = found[-1].strip()
    if value.startswith("["):
        try:
            return [str(v) for v in yaml.safe_load(value)]
        except yaml.YAMLError:
            return []
    return command_words(value)


def _deployed_commands(found: Scan) -> list[tuple[str, str | None]]:
    """(unit, the subcommand-like first argument) of every unit of the deployment files and Dockerfiles."""
    out = []
    for rel, names in found.layout_files.items():
        for name in names:
            if not name.endswith((".yml", ".yaml")):
                continue
            path = f"{rel}/{name}" if rel else name
            try:
                docs = list(yaml.safe_load_all((found.root / path).read_text(encoding="utf-8", errors="replace")))
            except (OSError, yaml.YAMLError):
                continue
            for doc in docs:
                if not isinstance(doc, dict):
                    continue
                services = doc.get("services")
                if isinstance(services, dict):
                    for key, spec in services.items():
                        if isinstance(spec, dict):
                            word = (first_argument(command_words(spec.get("entrypoint")), True)
                                    or first_argument(command_words(spec.get("command")), False))
                            out.append((f"docker-compose service {key} ({path})", word))
                for container in _containers(doc):
                    word = (first_argument(command_words(container.get("command")), True)
                            or first_argument(command_words(container.get("args")), False))
                    out.append((f"Kubernetes container {container.get('name')} ({path})", word))
    for path in dockerfiles(found) + _build_dockerfiles(found.root):
        try:
            text = (found.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        word = (first_argument(_dockerfile_words(text, "ENTRYPOINT"), True)
                or first_argument(_dockerfile_words(text, "CMD"), not _dockerfile_words(text, "ENTRYPOINT")))
        out.append((f"Dockerfile {path}", word))
    return out


def _build_dockerfiles(root: Path) -> list[str]:
    """Dockerfiles under a root ``build/`` folder (Go's usual ``build/package/Dockerfile``), which the walk skips as
    build output."""
    folder = root / "build"
    if not folder.is_dir():
        return []
    return sorted(p.relative_to(root).as_posix() for depth in ("*", "*/*") for p in folder.glob(depth)
                  if p.is_file() and DOCKERFILE.match(p.name))


def _containers(doc: dict) -> list[dict]:
    spec = doc.get("spec")
    for _ in range(3):   # Deployment -> template -> spec; CronJob -> jobTemplate -> spec -> template -> spec
        if not isinstance(spec, dict) or "containers" in spec:
            break
        inner = spec.get("template") or spec.get("jobTemplate")
        spec = inner.get("spec") if isinstance(inner, dict) else None
    containers = spec.get("containers") if isinstance(spec, dict) else None
    return [c for c in containers if isinstance(c, dict)] if isinstance(containers, list) else []


# ---- all together -------------------------------------------------------------------------------------------

def subcommand_services(found: Scan, go_modules: dict[str, str]) -> dict[str, tuple[Subcommand, set[str]]]:
    """Subcommand name -> (the subcommand, the folders it reaches), for the subcommands the deployment runs, when
    it runs two or more (see the module docstring)."""
    go = sorted(p for p in found.sources if p.endswith(".go") and not p.endswith("_test.go"))
    py = sorted(p for p in found.sources if p.endswith(".py"))
    declared = _go_subcommands(found.root, [p for p in go if "cobra" in _head(found, p) or "cli" in _head(found, p)])
    declared += _py_subcommands(found.root, [p for p in py if ".command(" in _text(found, p)])
    if len(declared) < 2:
        return {}
    by_name: dict[str, list[Subcommand]] = {}
    for sub in declared:
        by_name.setdefault(sub.name, []).append(sub)
    run: dict[str, Subcommand] = {}
    for unit, word in _deployed_commands(found):
        if word in by_name and len(by_name[word]) == 1:
            run.setdefault(word, by_name[word][0]).run_by.append(unit)
    if len(run) < 2:
        return {}
    out: dict[str, tuple[Subcommand, set[str]]] = {}
    indexes: dict[str, _GoIndex] = {}
    for name, sub in run.items():
        if sub.language == "go":
            module = module_around(sub.file.rpartition("/")[0], go_modules)
            if module is None:
                continue
            base = "" if module == "." else module + "/"
            if module not in indexes:
                indexes[module] = _GoIndex(found.root, go_modules[module], base, [p for p in go if p.startswith(base)])
            index = indexes[module]
            folder = sub.file.rpartition("/")[0]
            text = (found.root / sub.file).read_text(encoding="utf-8", errors="replace")
            out[name] = (sub, index.reach(_blank(sub.body), folder, index.aliases(text)))
        else:
            out[name] = (sub, _py_reach(found, sub))
    return out


def _text(found: Scan, path: str) -> str:
    try:
        return (found.root / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _head(found: Scan, path: str) -> str:
    return " ".join(go_imports(found.root, [path]))
