"""OpenAPI generator invocations a repository holds: which document each run of openapi-generator(-cli),
swagger-codegen, oapi-codegen, orval or openapi-typescript is given and where it writes, so a generated client
can be tied to the service that serves the same document (`frameworks.openapi_clients`).

Read from Makefiles, shell scripts and ``package.json`` scripts: a command line naming a generator, its input
(``-i``/``--input-spec``/``--input``, oapi-codegen's last argument) and output (``-o``/``--output``). A script
that takes the document from its arguments (``service="$1"``, ``$1`` used in place) is expanded once per call of
it with literal arguments anywhere in the repository (``./scripts/openapi-js.sh trainer`` in a Makefile). A path
inside a container (``docker run -v "${PWD}:/local" ... -i /local/api.yml``) is read relative to the mount. Each
command of a line (``a && b; c``) is read alone, in the folder a literal ``cd`` before it moves to (a script's
own ``cd "$(dirname "$0")"`` too). A path still holding a variable, or read after a ``cd`` a variable names, is
not a generation (never a guess). oapi-codegen's run is a server's only when it writes no client (its default,
types, client and server in one file, is a caller's as often as the server's)."""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..layout.walk import GENERATOR_SCRIPT, scan
from .openapi_docs import _base_path, _is_server
from .yaml_lines import documents

TOOLS = ("openapi-generator-cli", "openapi-generator", "swagger-codegen-cli", "swagger-codegen", "oapi-codegen",
         "orval", "openapi-typescript")
_TOOL = re.compile(r"(?:^|[\s/:@\"'])(" + "|".join(re.escape(t) for t in TOOLS) + r")(?:[\s:@\"'.]|-cli\b|$)")
_INPUT = ("-i", "--input-spec", "--input")
_OUTPUT = ("-o", "--output")
_GENERATOR = ("-g", "--generator-name", "-l", "--lang")
#: a script's own argument given a name (``local`` is a shell function's argument, not the script's)
_ARG_VAR = re.compile(r"^\s*(?:readonly\s+|declare\s+(?:-r\s+)?)?(\w+)=[\"']?\$\{?(\d)\}?[\"']?\s*$")
#: generator names that write a server (beside the JVM ones `openapi_docs` knows)
_SERVERS = re.compile(r"server|^python-flask$|^python-fastapi$|^aspnetcore$|^go-gin-server$|^nodejs-express")


@dataclass(frozen=True)
class Generation:
    tool: str
    #: the document and the output (a folder or a file), relative to the repository root
    document: str
    output: str
    #: ``server`` or ``client`` (``types`` and models: neither side)
    side: str
    #: where the invocation is written (``file:line``)
    where: str
    #: the document's ``servers`` base path and why it is not known ("" when it is)
    base: str = ""
    base_problem: str = ""


def _files(root: Path, layout_files: dict[str, list[str]] | None) -> list[str]:
    """The Makefiles, scripts and ``package.json`` files to read, folder by folder as a walk meets them: from the
    index's own scan when it is given (`layout.walk.Scan.layout_files`, folder -> names; no second walk of the
    tree), else from a scan made here; files under a dot-folder (``.github``, ...) are not read."""
    if layout_files is None:
        layout_files = scan(root).layout_files
    return [f"{rel}/{name}" if rel else name
            for rel, names in sorted(layout_files.items(), key=lambda item: item[0].split("/"))
            if not any(part.startswith(".") for part in rel.split("/"))
            for name in sorted(names) if GENERATOR_SCRIPT.match(name) or name == "package.json"]


def _lines(root: Path, path: str) -> list[tuple[int, str]]:
    try:
        text = (root / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if path.endswith("package.json"):
        try:
            scripts = json.loads(text).get("scripts") or {}
        except (ValueError, AttributeError):
            return []
        lines = text.splitlines()
        return [(next((n for n, line in enumerate(lines, 1) if f'"{name}"' in line), 1), cmd)
                for name, cmd in scripts.items() if isinstance(cmd, str)]
    out, pending, start = [], "", 0
    for number, line in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        out.append((start, pending + line))
        pending = ""
    return out


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return []


def _option(words: list[str], names: tuple[str, ...]) -> str | None:
    for index, word in enumerate(words):
        if word in names and index + 1 < len(words):
            return words[index + 1]
        for name in names:
            if name.startswith("--") and word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


def _mounts(words: list[str]) -> dict[str, str]:
    """container folder -> host folder relative to the root, of ``-v host:container`` (the working folder)."""
    out = {}
    for index, word in enumerate(words):
        if word in ("-v", "--volume") and index + 1 < len(words):
            host, _, inside = words[index + 1].partition(":")
            inside = inside.split(":")[0]
            if host in ("${PWD}", "$PWD", "$(pwd)", ".", "`pwd`") and inside.startswith("/"):
                out[inside.rstrip("/")] = ""
    return out


def _host_path(path: str, mounts: dict[str, str], cwd: str) -> str | None:
    """The path relative to the repository root, None when it holds a variable or leaves the repository."""
    for inside, host in mounts.items():
        if path == inside or path.startswith(inside + "/"):
            path = (host + path[len(inside):]).lstrip("/")
            break
    if "$" in path or "{" in path or path.startswith("/") or not path:
        return None
    path = posixpath.normpath(posixpath.join(cwd, path) if cwd else path)
    return None if path == ".." or path.startswith("../") else path


def _side(tool: str, words: list[str]) -> str:
    if tool == "oapi-codegen":
        kinds = _option(words, ("-generate", "--generate")) or "types,client,server"
        # a run that also writes a client (the default does) is used by callers too: no evidence of serving
        return "client" if "client" in kinds else "server" if "server" in kinds else "types"
    if tool in ("orval", "openapi-typescript"):
        return "client"
    name = _option(words, _GENERATOR) or ""
    return "server" if _is_server(name) or _SERVERS.search(name) else "client"


_SEPARATORS = ("&&", "||", ";", "|", "&")


def _commands(words: list[str], cwd: str) -> Iterator[tuple[list[str], str]]:
    """The words of each command of a line that runs a generator, and the folder it runs in (a literal ``cd``
    before it moves it); none after a ``cd`` that goes where a variable says."""
    command: list[str] = []
    for word in [*words, ";"]:
        end = word in _SEPARATORS or word.endswith(";")
        word = word.removesuffix(";") if word not in _SEPARATORS else ""
        if word:
            command.append(word)
        if not end:
            continue
        if command[:1] in (["cd"], ["pushd"]):
            if len(command) != 2 or "$" in command[1] or command[1].startswith(("/", "~", "-")):
                return
            cwd = posixpath.normpath(posixpath.join(cwd, command[1]))
            if cwd == ".." or cwd.startswith("../"):
                return
            cwd = "" if cwd == "." else cwd
        elif _TOOL.search(" " + " ".join(command) + " "):
            yield command, cwd
        command = []


def _invocations(line: str, cwd: str) -> Iterator[tuple[str, str, str, str]]:
    """(tool, document, output, side) of each generator command of a line."""
    if not _TOOL.search(line):
        return
    # a Makefile recipe's ``@``, ``-`` and ``+`` prefixes are make's, not the command's
    for words, folder in _commands(_words(line.lstrip().lstrip("@-+")), cwd):
        found = _invocation(words, folder)
        if found is not None:
            yield found


def _invocation(words: list[str], cwd: str) -> tuple[str, str, str, str] | None:
    """(tool, document, output, side) of one command, as written (variables kept)."""
    found = _TOOL.search(" " + " ".join(words) + " ")
    if not found:
        return None
    tool = found.group(1).removesuffix("-cli")
    mounts = _mounts(words)
    document = _option(words, _INPUT)
    if document is None and tool == "oapi-codegen":
        document = next((w for w in reversed(words) if re.search(r"\.(ya?ml|json)$", w)), None)
    output = _option(words, _OUTPUT)
    if not document or not output:
        return None
    doc, out = _host_path(document, mounts, cwd), _host_path(output, mounts, cwd)
    if doc is None or out is None:
        return None
    return tool, doc, out, _side(tool, words)


def _substitute(line: str, params: dict[str, str], args: list[str]) -> str:
    for name, position in params.items():
        value = args[position - 1] if position <= len(args) else "$" + name
        line = re.sub(r"\$\{" + name + r"\}|\$" + name + r"\b", value, line)
    for position, value in enumerate(args, 1):
        line = re.sub(r"\$\{" + str(position) + r"\}|\$" + str(position) + r"(?!\d)", value, line)
    return line


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _script_calls(files: list[str], lines: dict[str, list[tuple[int, str]]]
                  ) -> dict[str, list[tuple[list[str], str]]]:
    """script -> (the literal arguments, the working folder) of each call of it in the repository's files; a
    script is named relative to the caller's folder (where ``make`` and ``npm run`` run it)."""
    scripts = {path for path in files if path.endswith((".sh", ".bash"))}
    out: dict[str, list[tuple[list[str], str]]] = {}
    for caller, numbered in lines.items():
        cwd = _folder(caller)
        for _, line in numbered:
            for command in re.split(r"&&|\|\||;|\|", line.strip().lstrip("@-\t ")):
                words = _words(command)
                while words and words[0] in ("bash", "sh", "exec", "source", "."):
                    words = words[1:]
                if not words or not words[0].endswith((".sh", ".bash")) or "$" in words[0]:
                    continue
                script = posixpath.normpath(posixpath.join(cwd, words[0])) if cwd else posixpath.normpath(words[0])
                if script in scripts and all("$" not in a for a in words[1:]):
                    out.setdefault(script, []).append((words[1:], cwd))
    return out


def generations(root: Path, layout_files: dict[str, list[str]] | None = None) -> list[Generation]:
    """Every generator run the repository's scripts describe, in file order (see the module docstring);
    ``layout_files``: the index's scan of the tree, when it has one."""
    files = _files(root, layout_files)
    lines = {path: _lines(root, path) for path in files}
    calls = _script_calls(files, lines)
    out: list[Generation] = []
    bases: dict[str, tuple[str, str]] = {}
    for path, numbered in lines.items():
        params = {m.group(1): int(m.group(2)) for _, line in numbered if (m := _ARG_VAR.match(line))}
        # a Makefile's and a package.json's commands run in their folder; a script in its caller's (or the root)
        own = [] if path.endswith((".sh", ".bash")) else [([], _folder(path))]
        moved: str | None = ""   # a script's own ``cd`` so far: "" none, None where a variable says
        for number, line in numbered:
            if path.endswith((".sh", ".bash")) and (target := _cd(line, _folder(path))) != "":
                moved = _then(moved, target)
            if not _TOOL.search(line) or moved is None:
                continue
            uses_args = re.search(r"\$\{?\d", line) or any(re.search(r"\$\{?" + p + r"\b", line) for p in params)
            variants = calls.get(path, []) if uses_args else (own or calls.get(path) or [([], "")])
            for args, cwd in variants:
                if moved:   # ``cd "$(dirname "$0")"`` (the script's folder, given from the root) or a folder below
                    cwd = moved[1:] if moved.startswith("/") else posixpath.normpath(posixpath.join(cwd, moved))
                    cwd = "" if cwd == "." else cwd
                for tool, doc, output, side in _invocations(_substitute(line, params, args) if args else line, cwd):
                    if doc not in bases:   # a document is parsed once, however many runs read it
                        bases[doc] = _document_base(root, doc)
                    out.append(Generation(tool, doc, output, side, f"{path}:{number}", *bases[doc]))
    return list(dict.fromkeys(out))


_SCRIPT_FOLDER = re.compile(r"^(?:\$\(dirname \$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?\)|\$\{0%/\*\})(/.*)?$")


def _cd(line: str, folder: str) -> str | None:
    """Where a script line's own ``cd``/``pushd`` goes: "" for no ``cd``, ``/folder`` for a folder from the root
    (the script's own, ``$(dirname "$0")``), a folder relative to the current one, None for one a variable says."""
    words = _words(line.strip())
    if words[:1] not in (["cd"], ["pushd"]):
        return ""
    if len(words) != 2:
        return None
    found = _SCRIPT_FOLDER.match(words[1])
    if found:
        moved = posixpath.normpath(posixpath.join(folder, (found.group(1) or "").lstrip("/")) or ".")
        return None if moved == ".." or moved.startswith("../") else "/" + ("" if moved == "." else moved)
    if "$" in words[1] or words[1].startswith(("/", "~", "-")):
        return None
    return words[1]


def _then(moved: str | None, target: str | None) -> str | None:
    """Where two ``cd``s in a row go (`_cd`'s forms)."""
    if moved is None or target is None:
        return None
    if not moved or target.startswith("/"):
        return target
    prefix = "/" if moved.startswith("/") else ""
    return prefix + posixpath.normpath(posixpath.join(moved.lstrip("/"), target))


def _document_base(root: Path, document: str) -> tuple[str, str]:
    try:
        found = documents((root / document).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return "", f"the document {document} is not in the repository"
    doc = found[0][0] if found else None
    if not isinstance(doc, dict):
        return "", f"the document {document} is not read"
    return _base_path(doc)
