"""Walk a source tree and lay it out as microservices and modules.

**Modules.** A folder with its own build file (``pom.xml``, ``build.gradle(.kts)``,
``settings.gradle(.kts)``, ``pyproject.toml`` / ``setup.py`` / ``setup.cfg``, ``package.json``) is a
module. A module's members are the modules its build declares (Maven ``<modules>``, Gradle
``include``, npm/yarn ``workspaces``, ``pnpm-workspace.yaml``, uv ``[tool.uv.workspace]``) plus any
undeclared module nested in its folder.

**Microservices.** A multi-module build is ONE microservice with inner modules, never one service per
module, with one exception seen in real systems (piggymetrics' root ``pom.xml`` is a reactor over nine
Spring Boot applications): a build with two or more *deployable* members is an **aggregator**, and each
member then starts its own microservice (a non-deployable member of an aggregator, e.g. a shared
library, is a microservice of its own with ``deployable=false``). A module is deployable when it (or a
module inside it) declares ``spring.application.name``, has a ``Dockerfile``, or its build applies the
Spring Boot plugin. A tree whose root has no build file is an aggregator of its top-level builds; files
outside every module belong to a service named after the root folder.

**Names.** A service's name is its declared ``spring.application.name`` (``bootstrap*`` before
``application*``, a ``${VAR:default}`` placeholder gives its default), else its build's name (Maven
``artifactId``, Gradle ``rootProject.name``, ``package.json`` / ``pyproject.toml`` name), else its folder.
Every declared name is kept (``declared_names``) for part 2's cross-service matching.

The walk skips VCS folders, build output, dependency folders and virtual environments. Nothing here
parses source code: `Layout.context` tells each source file its service, module, module name (Python
dotted name from ``__init__.py`` folders, TS/JS relative path) and whether it is test code.
"""

from __future__ import annotations

import configparser
import fnmatch
import json
import os
import re
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".idea", ".vscode", ".gradle", ".mvn", "node_modules", "bower_components",
    "target", "build", "dist", "out", ".next", ".nuxt", ".svelte-kit", ".turbo", ".cache", "coverage",
    "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".eggs", "site-packages", "htmlcov", ".terraform",
})

SOURCE_LANGUAGES = {
    ".java": "java",
    ".py": "python",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
}

BUILD_FILES = (
    "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
    "pyproject.toml", "setup.py", "setup.cfg", "package.json",
)
_CONFIG_RE = re.compile(r"^(bootstrap|application)(-[\w.-]+)?\.(ya?ml|properties)$")
#: files whose change can move sources between services or modules (the layout is recomputed)
LAYOUT_FILES = frozenset(BUILD_FILES) | {"Dockerfile", "pnpm-workspace.yaml"}


#: settings files read for part 2's values (``${...}`` placeholders, Spring Cloud Config shared files)
SETTINGS_SUFFIXES = (".yml", ".yaml", ".properties")


def is_layout_file(name: str, folder: str = "") -> bool:
    """A file whose change can move the layout or the configuration: build files, Dockerfiles,
    ``application*``/``bootstrap*`` files, and any settings file under a ``resources`` folder (config
    servers keep their shared files there)."""
    if name in LAYOUT_FILES or _CONFIG_RE.match(name):
        return True
    return name.endswith(SETTINGS_SUFFIXES) and "resources" in folder.split("/")


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str           # relative, POSIX separators
    language: str
    size: int
    mtime_ns: int


@dataclass(slots=True)
class Scan:
    """What one walk found: source files, build/config files by folder, Python package folders."""

    root: Path
    sources: dict[str, SourceFile] = field(default_factory=dict)
    #: folder ("" = root) -> names of layout files in it
    layout_files: dict[str, list[str]] = field(default_factory=dict)
    #: (size, mtime_ns) of every layout file, to tell whether the layout must be recomputed
    layout_stamp: dict[str, tuple[int, int]] = field(default_factory=dict)
    package_dirs: set[str] = field(default_factory=set)


def _is_venv(path: str, names: set[str]) -> bool:
    return "pyvenv.cfg" in names


def _skip_file(name: str) -> bool:
    return name.endswith((".min.js", ".d.ts", ".bundle.js")) or name.startswith(".#")


def scan(root: str | Path) -> Scan:
    """Walk ``root`` once (no symlinked folders) and collect sources and layout files."""
    root = Path(root).resolve()
    result = Scan(root=root)
    base = str(root)
    stack = [""]
    while stack:
        rel = stack.pop()
        folder = os.path.join(base, rel) if rel else base
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        names = {entry.name for entry in entries}
        if rel and _is_venv(rel, names):
            continue
        for entry in entries:
            name = entry.name
            child = f"{rel}/{name}" if rel else name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if name not in SKIP_DIRS and not name.endswith(".egg-info"):
                        stack.append(child)
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
                stat = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if is_layout_file(name, rel):
                result.layout_files.setdefault(rel, []).append(name)
                result.layout_stamp[child] = (stat.st_size, stat.st_mtime_ns)
            language = SOURCE_LANGUAGES.get(os.path.splitext(name)[1])
            if language and not _skip_file(name):
                result.sources[child] = SourceFile(child, language, stat.st_size, stat.st_mtime_ns)
                if name == "__init__.py":
                    result.package_dirs.add(rel)
    for names in result.layout_files.values():
        names.sort()
    return result


# ---- build files ---------------------------------------------------------------------------------

@dataclass(slots=True)
class Module:
    """A folder with its own build file. ``path`` is relative ("." for the root)."""

    path: str
    build_files: tuple[str, ...]
    name: str                     # build name, else folder name
    name_source: str              # artifactId | rootProject.name | package.json | pyproject | setup | folder
    declared_members: tuple[str, ...] = ()
    boot_plugin: bool = False
    dockerfile: bool = False
    spring_name: str | None = None
    spring_name_raw: str | None = None
    config_files: tuple[str, ...] = ()
    parent: str | None = None
    microservice: str = ""

    @property
    def deployable_here(self) -> bool:
        return bool(self.spring_name or self.dockerfile or self.boot_plugin)


@dataclass(slots=True)
class Microservice:
    name: str
    root: str
    modules: list[str]
    deployable: bool
    declared_names: dict[str, str]     # source -> name, e.g. {"spring.application.name": "account-service"}
    name_source: str


@dataclass(frozen=True, slots=True)
class FileContext:
    """What the layout says about one source file."""

    microservice: str
    module: str
    module_name: str      # Python dotted module name, TS/JS relative path, Java "" (the package is in the file)
    is_test: bool


def _strip_ns(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _read_pom(path: Path) -> tuple[str | None, list[str], bool]:
    try:
        tree = ET.parse(path)
    except (ET.ParseError, OSError):
        return None, [], False
    project = tree.getroot()
    artifact = None
    members: list[str] = []
    for child in project:
        tag = _strip_ns(child.tag)
        if tag == "artifactId" and child.text:
            artifact = child.text.strip()
        elif tag == "modules":
            members += [m.text.strip() for m in child if _strip_ns(m.tag) == "module" and m.text]
        elif tag == "profiles":
            for module in child.iter():
                if _strip_ns(module.tag) == "module" and module.text:
                    members.append(module.text.strip())
    text = path.read_text(encoding="utf-8", errors="replace")
    return artifact, members, "spring-boot-maven-plugin" in text


_GRADLE_INCLUDE = re.compile(r"^\s*include\s*\(?(.*?)\)?\s*$", re.M)
_GRADLE_ROOTNAME = re.compile(r"rootProject\.name\s*=\s*['\"]([^'\"]+)['\"]")
_QUOTED = re.compile(r"['\"]([^'\"]+)['\"]")


def _read_gradle_settings(path: Path) -> tuple[str | None, list[str]]:
    text = path.read_text(encoding="utf-8", errors="replace")
    name = _GRADLE_ROOTNAME.search(text)
    members = []
    for match in _GRADLE_INCLUDE.finditer(text):
        for item in _QUOTED.findall(match.group(1)):
            members.append(item.strip(":").replace(":", "/"))
    return (name.group(1) if name else None), members


def _read_package_json(path: Path) -> tuple[str | None, list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (ValueError, OSError):
        return None, []
    if not isinstance(data, dict):
        return None, []
    workspaces = data.get("workspaces") or []
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages") or []
    name = data.get("name")
    return (name if isinstance(name, str) else None), [w for w in workspaces if isinstance(w, str)]


def _read_pyproject(path: Path) -> tuple[str | None, list[str]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (tomllib.TOMLDecodeError, OSError):
        return None, []
    name = (data.get("project") or {}).get("name") or ((data.get("tool") or {}).get("poetry") or {}).get("name")
    workspace = ((data.get("tool") or {}).get("uv") or {}).get("workspace") or {}
    members = workspace.get("members") or []
    return (name if isinstance(name, str) else None), [m for m in members if isinstance(m, str)]


def _read_setup(folder: Path, names: list[str]) -> str | None:
    if "setup.cfg" in names:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(folder / "setup.cfg", encoding="utf-8")
            if parser.has_option("metadata", "name"):
                return parser.get("metadata", "name").strip()
        except configparser.Error:
            pass
    if "setup.py" in names:
        match = re.search(r"\bname\s*=\s*['\"]([^'\"]+)['\"]",
                          (folder / "setup.py").read_text(encoding="utf-8", errors="replace"))
        if match:
            return match.group(1)
    return None


_PLACEHOLDER = re.compile(r"^\$\{[^:}]+:([^}]*)\}$")


def _spring_name_from(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if path.suffix == ".properties":
        for line in text.splitlines():
            match = re.match(r"^\s*spring\.application\.name\s*[=:]\s*(.+?)\s*$", line)
            if match:
                return match.group(1)
        return None
    try:
        docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
    except yaml.YAMLError:
        return None
    for doc in docs:
        value = doc.get("spring.application.name")
        spring = doc.get("spring")
        if value is None and isinstance(spring, dict):
            app = spring.get("application")
            value = app.get("name") if isinstance(app, dict) else spring.get("application.name")
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return str(value)
    return None


def _config_order(path: str) -> tuple[int, int, str]:
    name = PurePosixPath(path).name
    match = _CONFIG_RE.match(name)
    assert match
    return (0 if match.group(1) == "bootstrap" else 1, 1 if match.group(2) else 0, path)


def _is_test_path(parts: tuple[str, ...]) -> bool:
    return any(p in ("test", "tests", "__tests__", "testing") for p in parts[:-1])


def _read_module(root: Path, rel: str, names: list[str]) -> Module | None:
    builds = tuple(n for n in names if n in BUILD_FILES)
    if not builds:
        return None
    folder = root / rel if rel else root
    name, source, members, boot = None, "folder", [], False
    if "pom.xml" in builds:
        artifact, pom_members, boot = _read_pom(folder / "pom.xml")
        members += pom_members
        if artifact:
            name, source = artifact, "artifactId"
    for settings in ("settings.gradle", "settings.gradle.kts"):
        if settings in builds:
            root_name, gradle_members = _read_gradle_settings(folder / settings)
            members += gradle_members
            if root_name and name is None:
                name, source = root_name, "rootProject.name"
    for build in ("build.gradle", "build.gradle.kts"):
        if build in builds:
            text = (folder / build).read_text(encoding="utf-8", errors="replace")
            boot = boot or "org.springframework.boot" in text
    if "package.json" in builds:
        pkg_name, workspaces = _read_package_json(folder / "package.json")
        members += workspaces
        if pkg_name and name is None:
            name, source = pkg_name, "package.json"
    if "pnpm-workspace.yaml" in names:
        try:
            data = yaml.safe_load((folder / "pnpm-workspace.yaml").read_text(encoding="utf-8"))
            members += [p for p in (data or {}).get("packages") or [] if isinstance(p, str)]
        except (yaml.YAMLError, OSError, AttributeError):
            pass
    if "pyproject.toml" in builds:
        py_name, uv_members = _read_pyproject(folder / "pyproject.toml")
        members += uv_members
        if py_name and name is None:
            name, source = py_name, "pyproject"
    if name is None:
        setup_name = _read_setup(folder, list(builds))
        if setup_name:
            name, source = setup_name, "setup"
    if name is None:
        name = folder.name
    return Module(path=rel or ".", build_files=builds, name=name, name_source=source,
                  declared_members=tuple(members), boot_plugin=boot, dockerfile="Dockerfile" in names)


def _expand_members(root: Path, module: str, patterns: tuple[str, ...], module_paths: set[str]) -> list[str]:
    """Declared member folders (globs allowed, as workspaces use them) that are modules."""
    base = "" if module == "." else module
    found = []
    for pattern in patterns:
        if pattern.startswith("!"):
            continue
        joined = os.path.normpath(os.path.join(base, pattern)).replace(os.sep, "/")
        if any(ch in joined for ch in "*?["):
            found += [m for m in module_paths if fnmatch.fnmatch(m, joined) or fnmatch.fnmatch(m, joined + "/*")]
        elif joined in module_paths:
            found.append(joined)
    return sorted(set(found) - {module})


class Layout:
    """Microservices and modules of one tree, and each source file's context."""

    def __init__(self, root: Path, modules: dict[str, Module], services: dict[str, Microservice],
                 package_dirs: set[str]):
        self.root = root
        self.modules = modules
        self.services = services
        self.package_dirs = package_dirs
        #: module folders, deepest first, for nearest-module lookup
        self._module_dirs = sorted((m for m in modules if m != "."), key=lambda p: (-p.count("/"), p))
        self._root_service = modules["."].microservice if "." in modules else root.name
        self._cache: dict[tuple[str, str], FileContext] = {}

    def module_of(self, path: str) -> str:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        while folder:
            if folder in self.modules:
                return folder
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
        return "."

    def python_module_name(self, path: str) -> str:
        parts = path[:-3].split("/")
        stem = parts[-1]
        folder = parts[:-1]
        names: list[str] = [] if stem == "__init__" else [stem]
        while folder and "/".join(folder) in self.package_dirs:
            names.insert(0, folder[-1])
            folder = folder[:-1]
        if not folder and "" in self.package_dirs:
            names.insert(0, self.root.name)
        return ".".join(names) or stem

    def context(self, path: str, language: str) -> FileContext:
        key = (path, language)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        module = self.module_of(path)
        service = self.modules[module].microservice if module in self.modules else self._root_service
        if language == "python":
            module_name = self.python_module_name(path)
        elif language == "java":
            module_name = ""
        else:
            module_name = path
        parts = tuple(path.split("/"))
        name = parts[-1]
        is_test = _is_test_path(parts) or bool(
            re.match(r"^(test_.*\.py|.*_test\.py|conftest\.py|.*(Test|Tests|IT)\.java|.*\.(test|spec)\.[cm]?[jt]sx?)$",
                     name))
        ctx = FileContext(service, module, module_name, is_test)
        self._cache[key] = ctx
        return ctx


def detect_layout(found: Scan) -> Layout:
    """Modules from build files, then microservices by the aggregator rule in the module docstring."""
    root = found.root
    modules: dict[str, Module] = {}
    for rel, names in sorted(found.layout_files.items()):
        module = _read_module(root, rel, names)
        if module is not None:
            modules[module.path] = module
    module_paths = set(modules)

    # config files (application*/bootstrap*) go to their nearest module, test resources excluded
    def nearest(folder: str) -> str | None:
        while True:
            if (folder or ".") in modules:
                return folder or "."
            if not folder:
                return None
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""

    configs: dict[str, list[str]] = {}
    for rel, names in found.layout_files.items():
        for name in names:
            if _CONFIG_RE.match(name):
                path = f"{rel}/{name}" if rel else name
                if _is_test_path(tuple(path.split("/"))):
                    continue
                owner = nearest(rel)
                if owner is not None:
                    configs.setdefault(owner, []).append(path)
    for owner, paths in configs.items():
        paths.sort(key=_config_order)
        module = modules[owner]
        module.config_files = tuple(paths)
        for path in paths:
            raw = _spring_name_from(root / path)
            if raw:
                match = _PLACEHOLDER.match(raw)
                module.spring_name_raw = raw
                module.spring_name = match.group(1) if match else raw
                break

    # membership tree: declared members first, then nearest enclosing module
    for path in sorted(modules):
        for member in _expand_members(root, path, modules[path].declared_members, module_paths):
            if modules[member].parent is None and member != path:
                modules[member].parent = path
    for path in sorted(modules):
        module = modules[path]
        if module.parent is None and path != ".":
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            module.parent = nearest(folder)
    children: dict[str | None, list[str]] = {}
    for path in sorted(modules):
        children.setdefault(modules[path].parent, []).append(path)

    deployable_memo: dict[str, bool] = {}

    def deployable(path: str) -> bool:
        if path not in deployable_memo:
            deployable_memo[path] = modules[path].deployable_here or any(
                deployable(c) for c in children.get(path, []))
        return deployable_memo[path]

    def subtree(path: str) -> list[str]:
        out = [path]
        for child in children.get(path, []):
            out += subtree(child)
        return out

    services: dict[str, Microservice] = {}

    def new_service(root_path: str, members: list[str], is_deployable: bool) -> None:
        head = modules[root_path] if root_path in modules else None
        declared: dict[str, str] = {}
        spring = next((modules[m].spring_name for m in members if m in modules and modules[m].spring_name), None)
        if spring:
            declared["spring.application.name"] = spring
        if head is not None and head.name_source != "folder":
            declared[head.name_source] = head.name
        if spring:
            name, source = spring, "spring.application.name"
        elif head is not None:
            name, source = head.name, head.name_source
        else:
            name, source = root.name, "folder"
        if name in services:
            name = f"{name}@{root_path}"
        services[name] = Microservice(name, root_path, [m for m in members if m in modules], is_deployable,
                                      declared, source)
        for member in members:
            if member in modules:
                modules[member].microservice = name

    def assign(path: str) -> None:
        kids = children.get(path, [])
        if sum(deployable(k) for k in kids) >= 2:
            # an aggregator: its own files (if any) form a service named after it; members split
            new_service(path, [path], modules[path].deployable_here)
            for kid in kids:
                assign(kid)
        else:
            new_service(path, subtree(path), deployable(path))

    if "." in modules:
        assign(".")
    else:
        for top in children.get(None, []):
            assign(top)
    layout = Layout(root, modules, services, set(found.package_dirs))
    if "." not in modules:
        # files outside every module: a service named after the root folder
        new_service(".", [], False)
        layout._root_service = next(s.name for s in services.values() if s.root == ".")
    return layout
