"""One walk of a source tree: its source files (by the registered languages' suffixes), the build, Docker
and settings files that shape its layout, and the folders a language marks as packages.

The walk skips VCS folders, build output, dependency folders (Composer's ``vendor`` with its ``autoload.php``
too, Bundler's ``vendor/bundle``, Yarn's own ``.yarn``) and virtual environments, and never follows a symlinked folder. Nothing here parses source code.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ..languages import registry

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".idea", ".vscode", ".gradle", ".mvn", "node_modules", "bower_components",
    "target", "build", "dist", "out", ".next", ".nuxt", ".svelte-kit", ".turbo", ".cache", "coverage",
    "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".eggs", "site-packages", "htmlcov", ".terraform",
    ".yarn",   # Yarn's own release, plugins, editor SDKs and unplugged packages: bundled tool code, not the project's
})
#: Symfony's routing configuration (``config/routes.yaml``, ``config/routes/*.yaml``): where controllers' routes are
#: imported, under which prefix (`frameworks.php_web`)
SYMFONY_ROUTES = re.compile(r"(?:^|/)config/routes(?:\.ya?ml|/[^/]+\.ya?ml)$")
#: Symfony's service container configuration: the arguments, bindings and parameters of its services
SYMFONY_SERVICES = re.compile(r"(?:^|/)config/services\.ya?ml$")
#: Spring settings files: where ``spring.application.name`` and ``${...}`` values come from
CONFIG_FILE = re.compile(r"^(bootstrap|application)(-[\w.-]+)?\.(ya?ml|properties)$")
#: settings files read for part 2's values (``${...}`` placeholders, Spring Cloud Config shared files)
SETTINGS_SUFFIXES = (".yml", ".yaml", ".properties")
#: nginx configuration (``nginx.conf``, ``default.conf``, the official image's ``*.conf.template``): a gateway's
#: ``proxy_pass`` routes (`frameworks.nginx`)
NGINX_FILE = re.compile(r"^(?:nginx\.conf|[\w.-]+\.conf)(?:\.template)?$")
#: a Next.js app's configuration: its ``basePath`` prefixes every route (`services.settings.next_base_path`)
#: a war's deployment descriptors (`services.webapp`), in its ``WEB-INF`` folder
WEB_INF_FILES = ("web.xml", "jboss-web.xml")
#: Tomcat's per-application container settings (`services.jndi_config`)
META_INF_FILES = ("context.xml",)
NEXT_CONFIG = re.compile(r"^next\.config\.(?:js|mjs|cjs|ts)$")
#: reverse proxies declared in configuration (`frameworks.proxies`): .NET's YARP (``appsettings*.json``),
#: Ocelot (``ocelot*.json``), Envoy's static configuration (``envoy*.yaml``), Traefik's file provider
#: (``traefik*`` / ``dynamic*`` ``.yml``, ``.yaml``, ``.toml``), HAProxy (``haproxy*.cfg``) and Caddy
#: (``Caddyfile``, ``Caddyfile.dev``, ``Caddyfile-dev``, ``*.caddyfile``)
PROXY_FILE = re.compile(r"^(?:(?:appsettings|ocelot)(?:\.[\w-]+)*\.json|envoy[\w.-]*\.ya?ml"
                        r"|(?:traefik|dynamic)[\w.-]*\.(?:ya?ml|toml)|haproxy[\w.-]*\.cfg"
                        r"|Caddyfile(?:[.-][\w.-]+)?|[\w.-]+\.caddyfile)$")
#: an OpenAPI (Swagger) document by its usual names: the contract a server generator or a runtime router reads
#: (`services.openapi_docs`, `frameworks.openapi_servers`)
OPENAPI_FILE = re.compile(r"^(?:openapi|swagger)[\w.-]*\.(?:ya?ml|json)$", re.I)


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str           # relative, POSIX separators
    language: str
    size: int
    mtime_ns: int


@dataclass(slots=True)
class Scan:
    """What one walk found: source files, build/config files by folder, package folders."""

    root: Path
    sources: dict[str, SourceFile] = field(default_factory=dict)
    #: folder ("" = root) -> names of layout files in it
    layout_files: dict[str, list[str]] = field(default_factory=dict)
    #: (size, mtime_ns) of every layout file, to tell whether the layout must be recomputed
    layout_stamp: dict[str, tuple[int, int]] = field(default_factory=dict)
    package_dirs: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _Kinds:
    """What the registered languages make of a file name."""

    suffixes: dict[str, str]
    skipped: tuple[str, ...]
    package_files: frozenset[str]
    layout_names: frozenset[str]
    layout_suffixes: tuple[str, ...]
    alias_files: tuple[re.Pattern[str], ...]


@cache
def _kinds(languages: tuple) -> _Kinds:
    return _Kinds(
        suffixes={suffix: name for language in languages for suffix, name in language.extensions.items()},
        skipped=tuple(s for language in languages for s in language.skip_suffixes),
        package_files=frozenset(f for language in languages for f in language.package_files),
        layout_names=frozenset(n for language in languages for build in language.builds for n in build.names)
        | {"Dockerfile"},
        layout_suffixes=tuple(s for language in languages for build in language.builds for s in build.suffixes),
        alias_files=tuple(language.alias_files for language in languages if language.alias_files is not None),
    )


def is_layout_file(name: str, folder: str = "") -> bool:
    """A file whose change can move the layout or the configuration: build files, Dockerfiles,
    ``application*``/``bootstrap*`` files, nginx and proxy configuration (`NGINX_FILE`, `PROXY_FILE`), Next.js's
    ``next.config.*`` (`NEXT_CONFIG`), a war's ``WEB-INF/web.xml`` and ``jboss-web.xml`` and Tomcat's ``META-INF/context.xml``, OpenAPI documents (`OPENAPI_FILE`), import alias files (`Language.alias_files`: tsconfig), any settings file under a ``resources`` folder (config
    servers keep their shared files there), deployment files (`is_deployment_file`), a Helm chart's
    ``templates/**/*.tpl`` helpers, ``*.env`` files and the
    Makefiles and shell scripts that run code generators (`GENERATOR_SCRIPT`)."""
    kinds = _kinds(registry.LANGUAGES)
    if name in kinds.layout_names or DOCKERFILE.match(name) or CONFIG_FILE.match(name) or NGINX_FILE.match(name) or \
            PROXY_FILE.match(name) or NEXT_CONFIG.match(name) or OPENAPI_FILE.match(name) or name in WEB_INF_FILES and folder.endswith(
                "WEB-INF") or name in META_INF_FILES and folder.endswith("META-INF") or any(
            p.match(name) for p in kinds.alias_files) or (
            kinds.layout_suffixes and name.endswith(kinds.layout_suffixes)):
        return True
    # ``proxy.env``: a Compose ``env_file`` by another name than ``.env`` (its values are the service's)
    return name.endswith(SETTINGS_SUFFIXES) and "resources" in folder.split("/") or is_deployment_file(name) or (
        name.endswith(".tpl") and "templates" in folder.split("/")) or (   # a Helm chart's helpers, at any depth
        GENERATOR_SCRIPT.match(name) is not None) or (
        name.endswith(".env") and not _EXAMPLE_ENV.search(name))


#: where a repository runs its code generators (`services.openapi_generation`)
GENERATOR_SCRIPT = re.compile(r"^(?:[Mm]akefile|GNUmakefile|[\w.-]+\.(?:mk|sh|bash))$")
#: a Dockerfile by any of its usual names (``Dockerfile``, ``Dockerfile-web``, ``Dockerfile.prod``, ``web.Dockerfile``)
DOCKERFILE = re.compile(r"^(?:Dockerfile(?:[-.][\w.-]+)?|[\w.-]+\.[Dd]ockerfile)$")
_EXAMPLE_ENV = re.compile(r"\.(example|sample|template|dist|defaults?)$", re.I)


def is_deployment_file(name: str) -> bool:
    """Where a project says how it is deployed: YAML anywhere (Compose files, Kubernetes manifests, Helm
    charts, Skaffold), Terraform files (``.tf``, and ``.tfvars``: the values of a root module's variables) and
    ``.env`` files (``.env.example``-like files are examples, not settings)."""
    if name.endswith((".yml", ".yaml", ".tf", ".tfvars")):
        return True
    return (name == ".env" or name.startswith(".env.")) and not _EXAMPLE_ENV.search(name)


def scan(root: str | Path) -> Scan:
    """Walk ``root`` once (no symlinked folders) and collect sources and layout files."""
    root = Path(root).resolve()
    kinds = _kinds(registry.LANGUAGES)
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
        if rel and any(entry.name == "pyvenv.cfg" for entry in entries):
            continue   # a virtual environment
        if rel.rsplit("/", 1)[-1] == "vendor" and any(entry.name == "autoload.php" for entry in entries):
            continue   # Composer's installed dependencies (PHP), not the project's code
        if rel == "vendor/bundle" or rel.endswith("/vendor/bundle"):
            continue   # Bundler's installed gems (``bundle install --path vendor/bundle``, Ruby)
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
            language = kinds.suffixes.get(os.path.splitext(name)[1])
            if language and not name.endswith(kinds.skipped) and not name.startswith(".#"):
                result.sources[child] = SourceFile(child, language, stat.st_size, stat.st_mtime_ns)
                if name in kinds.package_files:
                    result.package_dirs.add(rel)
    for names in result.layout_files.values():
        names.sort()
    return result
