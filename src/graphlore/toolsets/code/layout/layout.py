"""A source tree laid out as microservices and modules, and each source file's place in it.

**Modules.** A folder with its own build file (each language lists its build files: ``pom.xml``,
``build.gradle(.kts)``, ``settings.gradle(.kts)``, ``pyproject.toml`` / ``setup.py`` / ``setup.cfg``,
``requirements.txt`` beside sources, ``package.json``, ``go.mod``, ``*.csproj``; see `languages.builds`) is a
module, and so is a folder with a ``Dockerfile`` and source files under it (a service built from a folder,
named after it), unless the image builds on a stock datastore or broker image (``FROM mongo``: a seed dump
and an init script are no service). A folder whose program a build's start script runs, when that script runs
two or more (`languages.base.BuildInfo.programs`: an API and a front end in one ``package.json``), is a
module that runs, named after its folder. A module's members are the modules its build declares (Maven
``<modules>``, Gradle ``include``, npm/yarn ``workspaces``, ``pnpm-workspace.yaml``, uv
``[tool.uv.workspace]``) plus any undeclared module nested in its folder.

**Microservices.** A multi-module build is ONE microservice with inner modules, never one service per
module, with one exception seen in real systems (piggymetrics' root ``pom.xml`` is a reactor over nine
Spring Boot applications): a build with two or more *deployable* members is an **aggregator**, and each
member then starts its own microservice (a non-deployable member of an aggregator, e.g. a shared
library, is a microservice of its own with ``deployable=false``). A JS or Python **workspace** root (npm/yarn/
bun ``workspaces``, ``pnpm-workspace.yaml``, uv ``[tool.uv.workspace]``) is an aggregator as soon as one member
is deployable: its packages are programs and libraries of their own, not one service named after the root (a
member no deployment builds, such as a front end built into another member's image, is then a microservice with
``deployable=false``). A module is deployable when it (or a
module inside it) declares an application name (``spring.application.name``, Micronaut's and Quarkus's
``micronaut.application.name``, ``quarkus.application.name``), has a ``Dockerfile``, or its build makes an
application (the Spring Boot plugin). A tree whose root has no build file is an aggregator of its
top-level builds; files outside every module belong to a service named after the root folder. A library that
the projects of one deployable service alone reference (.NET ``<ProjectReference>``) is part of it
(`_attach_libraries`).
A program with a subcommand per service (cobra, urfave/cli, click/typer) that the deployment runs with two or
more of its subcommands makes a module of each folder only one subcommand reaches, named after it (`subcommands`).

**Names.** A service's name is its declared application name (``bootstrap*`` before
``application*``, a ``${VAR:default}`` placeholder gives its default; one without a default, ``${VAR}``, is set
where the service runs and names nothing here), else its build's name (Maven
``artifactId``, Gradle ``rootProject.name``, ``package.json`` / ``pyproject.toml`` name), else its folder.
Every declared name is kept (``declared_names``) for part 2's cross-service matching. A name two services
declare (an application name copied into another service) is the one's whose folder or artifact carries it too;
the other goes by its artifact or folder (`_Services._settle_clash`).

`Layout.context` tells each source file its service, module, module name (from its language: Python's
dotted name from ``__init__.py`` folders, a TS/JS relative path) and whether it is test code.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath

import yaml

from ..languages import registry
from ..languages.base import BuildFile
from ..model import FileContext
from .edge import final_image, find_edges
from .entry_points import entry_points, reached
from .subcommands import subcommand_services
from .walk import (
    CONFIG_FILE,
    NGINX_FILE,
    OPENAPI_FILE,
    PROXY_FILE,
    SYMFONY_ROUTES,
    SYMFONY_SERVICES,
    Scan,
    is_deployment_file,
)


def _attach_libraries(services: dict[str, Microservice], modules: dict[str, Module]) -> None:
    """A library (a service with ``deployable=false``) that the project references of exactly one deployable service
    reach (.NET ``<ProjectReference>``, through other libraries too) runs inside that service only: its modules join
    it. A library several deployables reach stays a service of its own, never given to one of them by a guess."""
    referenced_by: dict[str, set[str]] = {}
    for path, module in modules.items():
        for target in module.references:
            if target in modules and target != path:
                referenced_by.setdefault(target, set()).add(path)

    def users(path: str, seen: set[str]) -> set[str]:
        """The deployable services whose projects reach the module."""
        out: set[str] = set()
        for source in referenced_by.get(path, ()):
            if source in seen or tooling_folder(source):   # a test project runs no deployment
                continue
            seen.add(source)
            owner = services.get(modules[source].microservice)
            if owner is not None and owner.deployable:
                out.add(owner.name)
            else:
                out |= users(source, seen)
        return out

    for name, library in list(services.items()):
        if library.deployable or not library.modules or not any(modules[m].references or m in referenced_by
                                                                for m in library.modules):
            continue
        reached = set().union(*(users(m, set()) for m in library.modules))
        if len(reached) == 1:
            home = services[reached.pop()]
            home.modules += library.modules
            for member in library.modules:
                modules[member].microservice = home.name
            del services[name]


@dataclass(slots=True)
class Module:
    """A folder with its own build file. ``path`` is relative ("." for the root)."""

    path: str
    build_files: tuple[str, ...]
    name: str                     # build name, else folder name
    name_source: str              # artifactId | rootProject.name | package.json | pyproject | setup | folder
    declared_members: tuple[str, ...] = ()
    #: a JS or Python workspace file of it (`WORKSPACE_FILES`) declares members, not only a Maven/Gradle build
    workspace: bool = False
    boot_plugin: bool = False
    #: its application is a console program (`BuildInfo.console`)
    console: bool = False
    dockerfile: bool = False
    spring_name: str | None = None
    spring_name_raw: str | None = None
    #: the key it was declared with (`APPLICATION_NAME_KEYS`: Spring's, Micronaut's or Quarkus's)
    spring_name_key: str = "spring.application.name"
    config_files: tuple[str, ...] = ()
    #: its nginx configuration files (`walk.NGINX_FILE`): a gateway's routes, if they proxy
    nginx_files: tuple[str, ...] = ()
    #: its reverse proxy configuration files (`walk.PROXY_FILE`: YARP, Ocelot, Envoy)
    proxy_files: tuple[str, ...] = ()
    #: its Symfony routing and service files (`walk.SYMFONY_ROUTES`, `walk.SYMFONY_SERVICES`): the prefixes its
    #: controllers' routes are imported under, its services' constructor arguments
    route_files: tuple[str, ...] = ()
    #: its OpenAPI documents (`walk.OPENAPI_FILE`, tests excluded): the routes a server generator or a runtime
    #: router makes of them (`frameworks.openapi_servers`)
    openapi_files: tuple[str, ...] = ()
    parent: str | None = None
    microservice: str = ""
    #: the import path its build declares for the folder (``go.mod``), if any
    namespace: str | None = None
    #: (folder, script) of the programs its start script runs (see the module docstring)
    programs: tuple[tuple[str, str], ...] = ()
    #: a program module: the name of the script that runs it (``api`` for ``start:api``)
    declared_script: str | None = None
    #: an entry point's module: the Dockerfiles (or ``ko://`` images) that build it (`entry_points`)
    built_by: tuple[str, ...] = ()
    #: a package folder two or more entry points reach: it stays with its build's own service (`entry_points`)
    shared: bool = False
    #: the modules its build references (.NET ``<ProjectReference>``), as module paths
    references: tuple[str, ...] = ()
    #: files and folders its builds were read with besides themselves (`BuildInfo.inputs`), relative to the root
    inputs: tuple[str, ...] = ()
    #: an edge proxy that is only a container (`edge`): the kind of its image (``nginx``, ``envoy``, ...)
    edge: str | None = None
    #: a Traefik container's Compose files, whose services' ``traefik.*`` labels declare its routes
    label_files: tuple[str, ...] = ()
    #: the ingress controller's Kubernetes manifests, whose ``Ingress`` resources declare its routes
    ingress_files: tuple[str, ...] = ()
    #: a proxy workload's (manifest, ConfigMap name): the ConfigMaps that hold its configuration
    config_maps: tuple[tuple[str, str], ...] = ()

    @property
    def deployable_here(self) -> bool:
        return bool(self.spring_name_raw or self.dockerfile or self.boot_plugin or self.built_by or self.edge)


@dataclass(slots=True)
class Microservice:
    name: str
    root: str
    modules: list[str]
    deployable: bool
    declared_names: dict[str, str]     # source -> name, e.g. {"spring.application.name": "account-service"}
    name_source: str
    #: whether it is a part of the running system a link may end at: not an aggregator's own folder without
    #: sources, not the files outside every module, not a tool in a tooling folder no deployment runs
    runs: bool = True


# ---- modules from build files ------------------------------------------------------------------------------

#: build files whose members are a workspace's packages: each deploys (or not) on its own
WORKSPACE_FILES = frozenset({"package.json", "pnpm-workspace.yaml", "pyproject.toml"})


@cache
def _builds(languages: tuple) -> tuple[BuildFile, ...]:
    """Every registered language's build files, the one that names a module first."""
    found = {id(build): build for language in languages for build in language.builds}
    return tuple(sorted(found.values(), key=lambda build: build.rank))


def _read_module(root: Path, rel: str, names: list[str], has_sources: bool, built: bool) -> Module | None:
    builds = _builds(registry.LANGUAGES)
    present = tuple(n for n in names if any(build.module and build.matches(n) and (has_sources or not build.needs_sources)
                                            for build in builds))
    if not present and not ("Dockerfile" in names and built):
        return None
    folder = root / rel if rel else root
    name, source, members, application, namespace, programs = None, "folder", [], False, None, ()
    console = False
    workspace, references, inputs = False, [], []
    for build in builds:
        for file_name in names:
            if not build.matches(file_name) or file_name not in present and file_name != "Dockerfile":
                continue
            info = build.read(folder / file_name)
            members += info.members
            workspace = workspace or bool(info.members) and file_name in WORKSPACE_FILES
            application = application or info.application
            console = console or info.console
            namespace = namespace or info.namespace
            programs = programs or info.programs
            references += [os.path.normpath(os.path.join(rel, ref)).replace(os.sep, "/") for ref in info.references]
            inputs += [path.relative_to(root).as_posix() for path in info.inputs if path.is_relative_to(root)]
            if info.name and name is None and build.name_source:
                name, source = info.name, build.name_source
    return Module(path=rel or ".", build_files=present or ("Dockerfile",), name=name or folder.name,
                  name_source=source, declared_members=tuple(members), workspace=workspace, boot_plugin=application, console=console,
                  dockerfile="Dockerfile" in names, namespace=namespace, programs=programs,
                  references=tuple(dict.fromkeys(references)), inputs=tuple(dict.fromkeys(inputs)))


def _expand_members(module: str, patterns: tuple[str, ...], module_paths: set[str]) -> list[str]:
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


def _nearest(modules: dict[str, Module], folder: str) -> str | None:
    """The module at ``folder`` or the nearest one above it."""
    while True:
        if (folder or ".") in modules:
            return folder or "."
        if not folder:
            return None
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""


# ---- Spring settings ------------------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"^\$\{[^:}]+:([^}]*)\}$")


#: the keys that name an application, by framework (Spring, Micronaut, Quarkus): its service id in discovery
APPLICATION_NAME_KEYS = ("spring.application.name", "micronaut.application.name", "quarkus.application.name")


def _spring_name_from(path: Path) -> tuple[str, str] | None:
    """The application name a settings file declares and its key (`APPLICATION_NAME_KEYS`), or None."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if path.suffix == ".properties":
        for line in text.splitlines():
            match = re.match(r"^\s*(spring|micronaut|quarkus)\.application\.name\s*[=:]\s*(.+?)\s*$", line)
            if match:
                return match.group(2), f"{match.group(1)}.application.name"
        return None
    try:
        docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
    except yaml.YAMLError:
        return None
    for doc in docs:
        for key in APPLICATION_NAME_KEYS:
            framework = key.split(".", 1)[0]
            value = doc.get(key)
            section = doc.get(framework)
            if value is None and isinstance(section, dict):
                app = section.get("application")
                value = app.get("name") if isinstance(app, dict) else section.get("application.name")
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                return str(value), key
    return None


def _config_order(path: str) -> tuple[int, int, str]:
    match = CONFIG_FILE.match(PurePosixPath(path).name)
    assert match
    return (0 if match.group(1) == "bootstrap" else 1, 1 if match.group(2) else 0, path)


#: a Gradle/Maven source set of tests beside ``src/main`` (``src/integration-test/java``, ``src/intTest/kotlin``,
#: ``src/it/java``): only with a JVM language's folder under it, so an application's own ``src/ab_tests`` package is
#: not taken for tests
_TEST_SOURCE_SET = re.compile(r"[a-z]+[-_]tests?|[a-z]+Tests?|it")
_JVM_SOURCES = ("java", "kotlin", "groovy", "scala", "resources")


def _is_test_path(parts: tuple[str, ...]) -> bool:
    return any(p in ("test", "tests", "__tests__", "testing") or i > 0 and parts[i - 1] == "src" and
               _TEST_SOURCE_SET.fullmatch(p) and parts[i + 1] in _JVM_SOURCES
               for i, p in enumerate(parts[:-1]))


def _own_image(found: Scan, folder: str, owner: str) -> bool:
    """Whether a folder between ``folder`` and its module ``owner`` (``folder`` included, ``owner`` not) has a
    ``Dockerfile`` of its own: what it holds goes into that image, not into the module's."""
    while (folder or ".") != owner:
        if "Dockerfile" in found.layout_files.get(folder, ()):
            return True
        if not folder:
            return False
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    return False


def _read_configs(root: Path, found: Scan, modules: dict[str, Module]) -> None:
    """Each module's ``application*``/``bootstrap*`` files (test resources excluded) and the
    ``spring.application.name`` the first of them declares; its nginx and reverse proxy configuration files; and
    its Symfony routing files."""
    configs: dict[str, list[str]] = {}
    for rel, names in found.layout_files.items():
        for name in names:
            path = f"{rel}/{name}" if rel else name
            if SYMFONY_ROUTES.search(path) or SYMFONY_SERVICES.search(path):
                owner = _nearest(modules, rel)
                if owner is not None:
                    modules[owner].route_files = tuple(sorted((*modules[owner].route_files, path)))
                continue
            nginx = NGINX_FILE.match(name)
            if OPENAPI_FILE.match(name):
                owner = None if _is_test_path(tuple(path.split("/"))) else _nearest(modules, rel)
                if owner is not None:
                    modules[owner].openapi_files = tuple(sorted((*modules[owner].openapi_files, path)))
                continue
            if PROXY_FILE.match(name):
                owner = None if _is_test_path(tuple(path.split("/"))) else _nearest(modules, rel)
                if owner is not None and not _own_image(found, rel, owner):
                    modules[owner].proxy_files = tuple(sorted((*modules[owner].proxy_files, path)))
                continue
            if CONFIG_FILE.match(name) or nginx:
                path = f"{rel}/{name}" if rel else name
                owner = None if _is_test_path(tuple(path.split("/"))) else _nearest(modules, rel)
                if owner is not None and nginx and _own_image(found, rel, owner):
                    continue   # another image's configuration (an nginx-only folder), never its module's
                if owner is not None and nginx:
                    modules[owner].nginx_files = tuple(sorted((*modules[owner].nginx_files, path)))
                elif owner is not None:
                    configs.setdefault(owner, []).append(path)
    for owner, paths in configs.items():
        paths.sort(key=_config_order)
        module = modules[owner]
        module.config_files = tuple(paths)
        for path in paths:
            found_name = _spring_name_from(root / path)
            if found_name:
                raw, module.spring_name_key = found_name
                match = _PLACEHOLDER.match(raw)
                module.spring_name_raw = raw
                name = match.group(1) if match else raw
                # ``${CONTAINER_NAME}`` (no default) is set where it runs: no name here; the others stand
                module.spring_name = name if name and "${" not in name else None
                break


def _entry_modules(found: Scan, modules: dict[str, Module]) -> None:
    """A module for each entry point a Dockerfile builds, one for each package only it reaches (its member), and
    one for each package several reach (shared: its build's own); see `entry_points`."""
    go_modules = {path: module.namespace for path, module in modules.items()
                  if module.namespace and "go.mod" in module.build_files}
    built: dict[str, list[str]] = {}
    for dockerfile, folder in sorted(entry_points(found, go_modules).items()):
        built.setdefault(folder, []).append(dockerfile)
    home_of = {folder: _entry_home(folder, built, modules) for folder in built}
    by_module: dict[str, list[str]] = {}
    for folder, dockerfiles in built.items():
        home = home_of[folder]
        if home in modules:
            continue
        modules[home] = Module(path=home, build_files=(), name=_entry_name(home), name_source="folder",
                               built_by=tuple(dockerfiles))
        for dockerfile in dockerfiles:   # a module's own ``Dockerfile`` that builds an entry point deploys that one
            where, _, name = dockerfile.rpartition("/")
            if name == "Dockerfile" and (where or ".") in modules:
                modules[where or "."].dockerfile = False
        owner = _nearest(modules, home.rpartition("/")[0])
        if owner in go_modules:
            by_module.setdefault(owner, []).append(folder)
    for owner, entries in by_module.items():
        if len(entries) < 2:
            continue
        homes = [home_of[entry] for entry in entries]
        for folder, reaching in sorted(reached(found, owner, go_modules[owner], entries).items()):
            if folder in modules or any(folder.startswith(home + "/") for home in homes):
                continue
            shared = len(reaching) > 1
            modules[folder] = Module(path=folder, build_files=(), name=folder.rpartition("/")[2],
                                     name_source="folder", shared=shared,
                                     parent=owner if shared else home_of[next(iter(reaching))])


def _entry_home(folder: str, built: dict[str, list[str]], modules: dict[str, Module]) -> str:
    """The folder that owns an entry point: ``api/cmd`` (a service's own ``cmd/main.go``) is the service ``api``,
    rooted there, when ``api`` is no module and holds no other entry point; any other entry point (``cmd/api``,
    ``services/api``) is its own folder."""
    parent, _, last = folder.rpartition("/")
    if last != "cmd" or not parent or parent in modules:
        return folder
    if any(other != folder and other.startswith(parent + "/") for other in built):
        return folder
    return parent


def _entry_name(home: str) -> str:
    """An entry point's service name: its folder's, or for a ``cmd`` folder that stays one (its owner holds other
    entry points too) the owner's: ``api/cmd`` is ``api``, never ``cmd``."""
    parent, _, last = home.rpartition("/")
    return parent.rpartition("/")[2] if last == "cmd" and parent else last


def _subcommand_modules(found: Scan, modules: dict[str, Module]) -> dict[str, str]:
    """A module for each folder only one subcommand the deployment runs reaches (`subcommands`), the shortest one
    its service's head (named after the subcommand, deployable: the deployment runs it); the others its members.
    Returns subcommand -> the units that run it, as written."""
    go_modules = {path: module.namespace for path, module in modules.items()
                  if module.namespace and "go.mod" in module.build_files}
    services = subcommand_services(found, go_modules)
    reaching: dict[str, set[str]] = {}
    for name, (_sub, folders) in services.items():
        for folder in folders:
            reaching.setdefault(folder, set()).add(name)
    out = {}
    for name, (sub, folders) in sorted(services.items()):
        own = sorted((f for f in folders if reaching[f] == {name} and f and f not in modules),
                     key=lambda f: (f.count("/"), f))
        if not own:
            continue
        head = own[0]
        modules[head] = Module(path=head, build_files=(), name=name, name_source="subcommand",
                               built_by=tuple(sub.run_by))
        for folder in own[1:]:
            modules[folder] = Module(path=folder, build_files=(), name=folder.rpartition("/")[2],
                                     name_source="folder", parent=head)
        out[name] = head
    return out


def _edge_modules(found: Scan, modules: dict[str, Module], sources: set[str]) -> list:
    """A module for each edge proxy that is only a container (`edge.find_edges`), named after its folder or its
    Compose service."""
    edges = find_edges(found, sources, set(modules), tooling_folder)
    for edge in edges:
        dockerfile = edge.name_source == "folder"
        modules[edge.folder] = Module(path=edge.folder, build_files=("Dockerfile",) if dockerfile else (),
                                      name=edge.name, name_source=edge.name_source, dockerfile=dockerfile,
                                      edge=edge.kind)
    return edges


# ---- microservices ------------------------------------------------------------------------------------------

class _Services:
    """Microservices from the module tree, by the aggregator rule (see the module docstring)."""

    def __init__(self, root: Path, modules: dict[str, Module], own_sources: set[str] | None = None):
        self.root = root
        self.modules = modules
        #: the modules that hold source files of their own (outside their member modules, tests and tooling)
        self.own_sources = set(modules) if own_sources is None else own_sources
        self.services: dict[str, Microservice] = {}
        self.children: dict[str | None, list[str]] = {}
        for path in sorted(modules):
            self.children.setdefault(modules[path].parent, []).append(path)
        self._deployable: dict[str, bool] = {}

    def deployable(self, path: str) -> bool:
        if path not in self._deployable:
            self._deployable[path] = self.modules[path].deployable_here or any(
                self.deployable(c) for c in self.children.get(path, []))
        return self._deployable[path]

    def subtree(self, path: str) -> list[str]:
        out = [path]
        for child in self.children.get(path, []):
            out += self.subtree(child)
        return out

    def add(self, root_path: str, members: list[str], is_deployable: bool, runs: bool = True) -> None:
        modules = self.modules
        head = modules.get(root_path)
        declared: dict[str, str] = {}
        named = next((modules[m] for m in members if m in modules and modules[m].spring_name), None)
        if named is not None:
            declared[named.spring_name_key] = named.spring_name
        if head is not None and head.name_source != "folder":
            declared[head.name_source] = head.name
        if head is not None and head.declared_script and head.declared_script != head.name:
            declared["package.json script"] = head.declared_script
        if named is not None:
            name, source = named.spring_name, named.spring_name_key
        elif head is not None:
            name, source = head.name, head.name_source
        else:
            name, source = self.root.name, "folder"
        if name in self.services:
            name, source = self._settle_clash(name, source, root_path)
        self.services[name] = Microservice(name, root_path, [m for m in members if m in modules], is_deployable,
                                           declared, source, runs)
        for member in members:
            if member in modules:
                modules[member].microservice = name

    def _carries(self, root_path: str, name: str) -> bool:
        """Whether the folder at ``root_path``, or the artifact its own build names, is ``name``."""
        head = self.modules.get(root_path)
        folder = root_path.rsplit("/", 1)[-1] if root_path != "." else self.root.name
        return folder == name or head is not None and head.name == name

    def _own_name(self, root_path: str, name: str) -> tuple[str, str]:
        """The name a service goes by when another keeps the one it declares: its build's artifact, else its
        folder (``name@root`` when that too is taken)."""
        head = self.modules.get(root_path)
        folder = root_path.rsplit("/", 1)[-1] if root_path != "." else self.root.name
        for own, source in ((head.name, head.name_source) if head is not None else ("", ""), (folder, "folder")):
            if own and own != name and own not in self.services:
                return own, source
        return f"{name}@{root_path}", "folder"

    def _settle_clash(self, name: str, source: str, root_path: str) -> tuple[str, str]:
        """(name, source) of a service at ``root_path`` whose name another already holds. An application name
        copied into a second service is common (FTGO's delivery service declares the order service's): the
        one whose folder or artifact carries the name too keeps it, the other goes by its own artifact or folder
        (the copied name stays in its ``declared_names``, where `services.identity` weighs it). When both or
        neither carry it, the first by path keeps it, as before."""
        held = self.services[name]
        mine, theirs = self._carries(root_path, name), self._carries(held.root, name)
        if mine and not theirs:
            del self.services[name]
            held.name, held.name_source = self._own_name(held.root, name)
            self.services[held.name] = held
            for member in held.modules:
                self.modules[member].microservice = held.name
            return name, source
        if theirs and not mine:
            return self._own_name(root_path, name)
        return f"{name}@{root_path}", source

    def workspace(self, path: str) -> bool:
        """Whether the module is a JS or Python workspace root (npm/yarn/bun ``workspaces``, pnpm, uv)."""
        return self.modules[path].workspace

    def assign(self, path: str) -> None:
        kids = self.children.get(path, [])
        deployable = sum(self.deployable(k) for k in kids)
        if deployable >= 2 or deployable == 1 and self.workspace(path):
            # an aggregator: its own files (if any) form a service named after it; members split. Without
            # sources of its own it runs nothing (its Boot plugin, Dockerfile or settings are its members').
            # Packages its entry points share stay with it
            shared = [m for k in kids if self.modules[k].shared for m in self.subtree(k)]
            own = path in self.own_sources or any(m in self.own_sources for m in shared)
            self.add(path, [path, *shared], self.modules[path].deployable_here and own, runs=own)
            for kid in kids:
                if not self.modules[kid].shared:
                    self.assign(kid)
        else:
            self.add(path, self.subtree(path), self.deployable(path))


class Layout:
    """Microservices and modules of one tree, and each source file's context."""

    def __init__(self, root: Path, modules: dict[str, Module], services: dict[str, Microservice],
                 package_dirs: set[str], deployment_files: tuple[str, ...] = ()):
        self.root = root
        self.modules = modules
        self.services = services
        self.package_dirs = package_dirs
        #: the deployment files of the tree (Compose, Kubernetes, Helm, Skaffold, ``.env``), read by part 2
        self.deployment_files = deployment_files
        self._root_service = modules["."].microservice if "." in modules else root.name
        self._cache: dict[tuple[str, str], FileContext] = {}
        #: import alias tables by (language, folder) (`Language.read_aliases`)
        self.aliases: dict[tuple[str, str], tuple] = {}
        #: subcommand -> the service it runs (one program, a subcommand per service: `subcommands`)
        self.subcommands: dict[str, str] = {}
        #: the files those tables were read from (an ``extends`` target may have any name: `input_stamps`)
        self.alias_inputs: set[str] = set()

    def input_stamps(self) -> tuple:
        """(path, size, mtime) of the files the layout read that are no layout files by name (a tsconfig's
        ``extends`` target): their change moves the layout too."""
        out = []
        for rel in sorted(self.alias_inputs):
            try:
                stat = (self.root / rel).stat()
            except OSError:
                out.append((rel, None))
                continue
            out.append((rel, stat.st_size, stat.st_mtime_ns))
        return tuple(out)

    def namespace_of(self, path: str) -> tuple[str, str] | None:
        folder = self.module_of(path)
        while folder in self.modules:
            module = self.modules[folder]
            if module.namespace:
                return folder, module.namespace
            if module.parent is None:
                return None
            folder = module.parent
        return None

    def module_of(self, path: str) -> str:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        while folder:
            if folder in self.modules:
                return folder
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
        return "."

    def _aliases_of(self, path: str, language: str) -> tuple:
        """The import alias table of the nearest folder above ``path`` that has one for ``language``."""
        folder = path
        while folder:
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
            if (language, folder) in self.aliases:
                return self.aliases[(language, folder)]
        return ()

    def context(self, path: str, language: str) -> FileContext:
        key = (path, language)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        module = self.module_of(path)
        service = self.modules[module].microservice if module in self.modules else self._root_service
        spec = registry.by_name(language)
        parts = tuple(path.split("/"))
        ctx = FileContext(service, module, spec.module_name(path, self),
                          _is_test_path(parts) or spec.is_test_file(parts[-1]),
                          service not in self.services or self.services[service].deployable,
                          self._aliases_of(path, spec.name))
        self._cache[key] = ctx
        return ctx


#: stock images of datastores and brokers: a folder whose Dockerfile builds on one packages data or settings
#: for it (a seed dump, an init script), not a service of the system
STOCK_IMAGES = frozenset({
    "mongo", "postgres", "postgis", "mysql", "mariadb", "redis", "valkey", "rabbitmq", "elasticsearch",
    "opensearch", "cassandra", "memcached", "zookeeper", "kafka", "cp-kafka", "cp-zookeeper", "consul", "vault",
    "minio", "influxdb", "neo4j", "couchbase", "couchdb", "clickhouse-server", "etcd", "nats", "localstack",
    "cockroach", "prometheus", "grafana",
})


def stock_image(path: Path) -> bool:
    """Whether a Dockerfile's final stage builds on a stock datastore or broker image (`STOCK_IMAGES`)."""
    try:
        image = final_image(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return False
    if image is None:
        return False
    base = image.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0].lower()
    return base in STOCK_IMAGES or "/mssql/" in image.lower()


def source_folders(found: Scan) -> set[str]:
    """Every folder with source files under it ("" = the root)."""
    out = {""}
    for path in found.sources:
        parts = path.split("/")[:-1]
        out.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


def layout_sources(found: Scan) -> tuple[str, ...]:
    """The folders whose holding source files or not can move the layout (a ``Dockerfile`` or a
    ``requirements.txt`` counts only beside sources, a program only in a folder with sources): every folder
    with a layout file, and its subfolders one level down, that holds sources; and every folder with a layout file
    that holds Go files itself (a Compose unit working in a Go module's folder runs it only then:
    `deployment._runs_its_folder`)."""
    sources = source_folders(found)
    near = set(found.layout_files)
    near |= {folder for folder in sources if folder.rpartition("/")[0] in near}
    go_here = {path.rpartition("/")[0] for path in found.sources if path.endswith(".go")} & set(found.layout_files)
    return tuple(sorted(near & sources)) + tuple(f"{folder}/*.go" for folder in sorted(go_here))


def dockerfile_folders(found: Scan, sources: set[str] | None = None) -> frozenset[str]:
    """Folders holding a ``Dockerfile`` and source files under them, whose image is not a stock datastore's or
    broker's (each such folder is a module)."""
    folders = {rel for rel, names in found.layout_files.items() if "Dockerfile" in names}
    if not folders:
        return frozenset()
    sources = source_folders(found) if sources is None else sources
    return frozenset(rel for rel in folders & sources
                     if not stock_image(found.root / rel / "Dockerfile" if rel else found.root / "Dockerfile"))


#: folder names that hold the project's tooling, not its running system (CI jobs, test suites and runners)
_TOOLING = re.compile(r"^(?:\..+|ci|tools?|tooling|hack|scripts?|e2e|tests?|testing|__tests__|[\w.-]*[-_](?:e2e|tests?))$",
                      re.I)


def tooling_folder(path: str) -> bool:
    """Whether ``path`` lies in a CI, test or tooling folder (``.github/workflows/ui-tests``, ``e2e``,
    ``tools/loader``): a Dockerfile there builds a tool of the project, not a part of the system."""
    return path != "." and any(_TOOLING.match(part) for part in path.split("/"))


def settle_deployable(layout: Layout, run: set[str], started: frozenset[str] | set[str] = frozenset()) -> None:
    """The deployment's word on which services run (``run``: the services a deployment unit of the project
    builds or names): a service in a tooling folder (`tooling_folder`) runs (and is deployable) only when one
    runs it. A service a unit runs in its own folder (``started``: a shared image's Compose service with
    ``working_dir`` in the module's mounted folder) is deployable whatever its build says.
    Anywhere else a service keeps the build's word (a real service without a manifest still counts)."""
    for name, service in layout.services.items():
        if name in started:
            service.deployable = service.runs = True
        elif tooling_folder(service.root) and name not in run:
            service.deployable = service.runs = False


#: alias files that govern their folder's files on their own (a ``tsconfig.node.json`` covers build scripts)
GOVERNING_ALIAS_FILES = frozenset({"tsconfig.json", "jsconfig.json"})


def _alias_tables(root: Path, layout_files: dict[str, list[str]],
                  read: set[str]) -> dict[tuple[str, str], tuple]:
    """(language, folder) -> the folder's import alias table, for every language that reads alias files (adding
    to ``read`` every file read, ``extends`` targets of any name included)."""
    tables = {}
    for language in registry.LANGUAGES:
        if language.alias_files is None or language.read_aliases is None:
            continue
        for rel, names in layout_files.items():
            mine = [n for n in names if language.alias_files.match(n)]
            table = language.read_aliases(root, rel, mine, read) if mine else ()
            # a folder's own tsconfig governs its files even without paths: no alias from a folder above
            if table or any(n in GOVERNING_ALIAS_FILES for n in mine):
                tables[(language.name, rel)] = table
    return tables


def _console_tools(root: Path, modules: dict[str, Module]) -> None:
    """A console program (`Module.console`) with no Dockerfile of its own inside a folder whose Dockerfile builds
    the service around it (``dronescheduler/Dockerfile`` beside ``dronescheduler/BulkImport/``) is a tool of that
    service's source tree, not a deployable of its own: it neither counts as a service nor renames the one there.
    Not when a Dockerfile of such a folder (``Dockerfile``, ``Dockerfile.worker``, ``worker.Dockerfile``) names the
    program's folder or project: that one builds it."""
    for path, module in modules.items():
        if not module.console or module.dockerfile or module.built_by:
            continue
        folders = [path.rsplit("/", i)[0] for i in range(1, path.count("/") + 1)] + ["."]
        around = [folder for folder in folders if folder != path and folder in modules and modules[folder].dockerfile]
        names = {path.rsplit("/", 1)[-1], *(Path(name).stem for name in module.build_files)}
        if around and not any(_names_any(root / folder if folder != "." else root, names) for folder in around):
            module.boot_plugin = False


def _names_any(folder: Path, names: set[str]) -> bool:
    """Whether a Dockerfile of ``folder`` names one of ``names`` (a folder or project, as a whole path segment)."""
    pattern = re.compile("|".join(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)" for name in names if name))
    try:
        files = [entry for entry in folder.iterdir() if entry.is_file() and
                 (entry.name.startswith("Dockerfile") or entry.name.lower().endswith(".dockerfile"))]
    except OSError:
        return False
    for entry in files:
        try:
            if pattern.search(entry.read_text(encoding="utf-8", errors="replace")):
                return True
        except OSError:
            continue
    return False


def detect_layout(found: Scan) -> Layout:
    """Modules from build files, then microservices by the aggregator rule in the module docstring."""
    root = found.root
    modules: dict[str, Module] = {}
    sources = source_folders(found)
    built = dockerfile_folders(found, sources)
    for rel, names in sorted(found.layout_files.items()):
        module = _read_module(root, rel, names, rel in sources, rel in built)
        if module is not None:
            modules[module.path] = module
    for path, module in list(modules.items()):
        for folder, script in module.programs:
            program = folder if path == "." else f"{path}/{folder}"
            if program not in modules and program in sources:
                modules[program] = Module(path=program, build_files=(), name=folder, name_source="folder",
                                          boot_plugin=True, declared_script=script)
    _entry_modules(found, modules)
    subcommand_heads = _subcommand_modules(found, modules)
    _console_tools(root, modules)
    edges = _edge_modules(found, modules, sources)
    _read_configs(root, found, modules)
    for edge in edges:   # the files it is run with, by whatever name (``COPY front-envoy.yaml /etc/envoy/``)
        module = modules[edge.folder]
        kept = "nginx_files" if edge.kind == "nginx" else "proxy_files"
        setattr(module, kept, tuple(sorted({*getattr(module, kept), *edge.files})))
        module.label_files = tuple(edge.labels)
        module.ingress_files = tuple(edge.ingress)
        module.config_maps = tuple(edge.config_maps)
        for other in modules.values():   # the proxy's files are its own, not those of a module around them
            if other is not module:
                other.nginx_files = tuple(f for f in other.nginx_files if f not in edge.files)
                other.proxy_files = tuple(f for f in other.proxy_files if f not in edge.files)
    # membership tree: declared members first, then nearest enclosing module (an edge proxy is no member)
    for path in sorted(modules):
        for member in _expand_members(path, modules[path].declared_members, set(modules)):
            if modules[member].parent is None and member != path and not modules[member].edge:
                modules[member].parent = path
    for path in sorted(modules):
        if modules[path].parent is None and path != "." and not modules[path].edge:
            modules[path].parent = _nearest(modules, path.rsplit("/", 1)[0] if "/" in path else "")
    nearest: dict[str, str | None] = {}   # folder -> its module, for the folders with running code
    for path in found.sources:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        if folder not in nearest and not tooling_folder(folder or "."):
            nearest[folder] = _nearest(modules, folder)
    services = _Services(root, modules, {owner for owner in nearest.values() if owner is not None})
    if "." in modules:
        services.assign(".")
    else:
        for top in services.children.get(None, []):
            services.assign(top)
    for edge in edges:   # a service of its own, whatever module its folder lies in
        if not modules[edge.folder].microservice:
            services.add(edge.folder, [edge.folder], True)
    _attach_libraries(services.services, modules)
    deployment_files = tuple(sorted(f"{rel}/{name}" if rel else name for rel, names in found.layout_files.items()
                                    for name in names if is_deployment_file(name)))
    layout = Layout(root, modules, services.services, set(found.package_dirs), deployment_files)
    layout.subcommands = {name: modules[head].microservice for name, head in subcommand_heads.items()
                          if modules[head].microservice}
    if layout.subcommands:   # which folders a subcommand reaches moves with any Go or Python file
        layout.alias_inputs.update(path for path in found.sources if path.endswith((".go", ".py")))
    layout.aliases = _alias_tables(root, found.layout_files, layout.alias_inputs)
    layout.alias_inputs.update(path for module in modules.values() for path in module.inputs)
    # a proxy container's files by a name no walk keeps (HAProxy's ``lb.cfg``): their edits move its routes too
    layout.alias_inputs |= {f for edge in edges for f in edge.files if f not in found.layout_stamp}
    if "." not in modules:
        # files outside every module: a service named after the root folder
        services.add(".", [], False, runs=False)
        layout._root_service = next(s.name for s in services.services.values() if s.root == ".")
    return layout
