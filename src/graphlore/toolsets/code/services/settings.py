"""Configuration values for folding: each module's Spring settings, Spring Cloud Config shared files, and
``${...}`` placeholders.

**What is read.** A module's ``bootstrap*`` and ``application*`` files (``.yml``, ``.yaml``,
``.properties``; profile files such as ``application-dev.yml`` are left out: which profile runs is not in
the code), YAML flattened to dotted keys (``server.servlet.context-path``; list items as ``key[0]``).

**Config servers.** A module whose settings declare
``spring.cloud.config.server.native.search-locations`` (``classpath:/shared``, ``file:config``) serves
the files there: ``application.*`` to every service and ``{name}.*`` to the service whose
``spring.application.name`` is ``name``. A service's values are, later ones winning: its own bootstrap
files, its own application files, the server's shared ``application.*``, then the server's ``{name}.*``
(values from the config server override local ones, as Spring Cloud Config does by default). Only
locations inside the project are read: one that leads out of it (``file:../elsewhere``, or a symlink) is
skipped, as the project walk never follows a symlink out either.

**Placeholders.** ``${key}`` and ``${key:default}`` are looked up with Spring's relaxed names (case,
``-`` and ``_`` ignored: ``rates.base-url`` finds ``rates.baseUrl``), then among the environment variables the
project's deployment files give the module's service (`services.deployment`), as Spring does (``ORDERS_URL``
for ``orders.url``), nested values resolved in turn; a key that is nowhere and has no default stays unknown.
A variable given several values (two manifests) is one of them (a `folding.choice`).

**Profiles.** ``application-<profile>`` files and Quarkus's ``%profile.`` keys (``%prod.quarkus.http.port``)
are read apart (`Values.profiles`; Quarkus's ``%test`` is left out: it runs the tests only): which profile runs
is not in the code, so a key they set is one of their values and the default's (`Values.get`). (A gateway route
list a profile writes is kept to that profile, and left unlinked where the deployment names other profiles:
`profiles`.)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from ..languages.folding import CHOICE_CLOSE, CHOICE_OPEN, CHOICE_SEP
from ..layout.edge import is_config
from ..layout.layout import Layout
from .deployment import Deployment
from .dotnet_config import APPSETTINGS, appsettings
from .openapi_docs import Operation, operations, server_generator
from .openapi_generation import Generation, generations
from .secrets import shown_value
from .webapp import WebApp, read_webapp
from .yaml_lines import documents

_PROFILE = re.compile(r"^(bootstrap|application)-[\w.-]+\.(ya?ml|properties)$")
_PLACEHOLDER = re.compile(r"\$\{([^{}:]+)(?::([^{}]*))?\}")
_SETTINGS = (".yml", ".yaml", ".properties")


@dataclass
class SymfonyServices:
    """What a Symfony ``config/services.yaml`` gives constructors: each service's ``arguments`` (by ``$name`` or
    position; the service's id is its class), the ``_defaults`` ``bind`` (by ``$name`` or ``Type $name``), and the
    container ``parameters`` (``%name%``), values as written."""

    arguments: dict[str, dict[str, str]] = field(default_factory=dict)
    bind: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)


class _TaggedLoader(yaml.SafeLoader):
    """YAML with Symfony's tags (``!tagged_iterator``, ``!service``): a tagged value is read as None."""


_TaggedLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def read_symfony_services(path: Path) -> SymfonyServices:
    found = SymfonyServices()
    try:
        data = yaml.load(path.read_text(encoding="utf-8", errors="replace"), Loader=_TaggedLoader)
    except (OSError, yaml.YAMLError):
        return found
    if not isinstance(data, dict):
        return found
    scalars = (str, int, float)
    for name, value in (data.get("parameters") or {}).items() if isinstance(data.get("parameters"), dict) else ():
        if isinstance(value, scalars) and not isinstance(value, bool):
            found.parameters[str(name)] = str(value)
    services = data.get("services") if isinstance(data.get("services"), dict) else {}
    defaults = services.get("_defaults") if isinstance(services.get("_defaults"), dict) else {}
    for name, value in (defaults.get("bind") or {}).items() if isinstance(defaults.get("bind"), dict) else ():
        if isinstance(value, scalars) and not isinstance(value, bool):
            found.bind[str(name)] = str(value)
    for service, config in services.items():
        arguments = config.get("arguments") if isinstance(config, dict) else None
        if isinstance(arguments, list):
            arguments = dict(enumerate(arguments))
        if isinstance(arguments, dict):
            owner = str((config.get("class") if isinstance(config.get("class"), str) else None) or service)
            found.arguments[owner.lstrip("\\").replace("\\", ".")] = {
                str(key): str(value) for key, value in arguments.items()
                if isinstance(value, scalars) and not isinstance(value, bool)}
    return found


def read_symfony_routing(path: Path, source: str) -> tuple[list[tuple[str, str | None, str]],
                                                         list[tuple[str, str, str, tuple[str, ...]]]]:
    """A Symfony routing file's imports and routes. An import is an entry with a ``resource`` (a path,
    ``routing.controllers``, a namespace, or ``{path, namespace}``): (file, its ``prefix``: "" when none, None when
    not one string, the resource). A route is an entry with a ``path`` and a ``controller`` (``App\\X::m``, or
    ``defaults: {_controller: ...}``): (file, path, controller, ``methods``; none: any)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, yaml.YAMLError):
        return [], []
    imports: list[tuple[str, str | None, str]] = []
    routes: list[tuple[str, str, str, tuple[str, ...]]] = []
    for entry in (data or {}).values() if isinstance(data, dict) else ():
        if not isinstance(entry, dict):
            continue
        if "resource" in entry:
            resource = entry["resource"]
            if isinstance(resource, dict):
                resource = resource.get("path") or resource.get("namespace")
            prefix = entry.get("prefix", "")
            if isinstance(resource, str):
                imports.append((source, prefix if isinstance(prefix, str) else None, resource))
            continue
        defaults = entry.get("defaults")
        controller = entry.get("controller") or (defaults.get("_controller") if isinstance(defaults, dict) else None)
        methods = entry.get("methods") or ()
        methods = [methods] if isinstance(methods, str) else methods
        if isinstance(entry.get("path"), str) and isinstance(controller, str) and isinstance(methods, list | tuple):
            routes.append((source, entry["path"], controller, tuple(str(m).upper() for m in methods)))
    return imports, routes


def canonical(key: str) -> str:
    """Spring's relaxed key: lower case, ``-`` and ``_`` dropped."""
    return key.replace("-", "").replace("_", "").lower()


def _flatten(value: Any, prefix: str, out: dict[str, str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _flatten(item, f"{prefix}[{index}]", out)
        if value and all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
            out.setdefault(prefix, ",".join(str(v) for v in value))
    elif value is not None and prefix:
        out[prefix] = str(value).lower() if isinstance(value, bool) else str(value)


def read_settings(path: Path) -> dict[str, str]:
    """One settings file as flat ``key -> value`` (unreadable files: empty)."""
    return read_settings_at(path)[0]


def read_settings_at(path: Path) -> tuple[dict[str, str], dict[str, int]]:
    """One settings file as flat ``key -> value``, and the line each key (and each YAML map or list item:
    ``routes[0]``) is written at; unreadable files: empty."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}, {}
    out: dict[str, str] = {}
    lines: dict[str, int] = {}
    if path.suffix == ".properties":
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith(("#", "!")):
                continue
            match = re.match(r"^([^=:\s]+)\s*[=:]?\s*(.*)$", line)
            if match:
                out[match.group(1)] = match.group(2).strip()
                lines[match.group(1)] = number
        return out, lines
    for doc, doc_lines in documents(text):
        if isinstance(doc, dict) and "spring.profiles" not in doc and not _profile_doc(doc):
            _flatten(doc, "", out)
            lines.update(doc_lines)
    return out, lines


def _profile_keys(settings: dict[str, str]) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Quarkus's profile keys (``%prod.quarkus.http.port``) apart from the others: profile -> key -> value."""
    plain: dict[str, str] = {}
    profiles: dict[str, dict[str, str]] = {}
    for key, value in settings.items():
        profile, dot, rest = key[1:].partition(".") if key.startswith("%") else ("", "", "")
        if dot and profile and rest:
            for one in profile.split(","):   # %dev,test.key: both profiles; %test only runs the tests
                if one != "test":
                    profiles.setdefault(one, {})[rest] = value
        else:
            plain[key] = value
    return plain, profiles


def _profile_doc(doc: dict) -> bool:
    """A YAML document that applies to one profile only (``spring.config.activate.on-profile``)."""
    spring = doc.get("spring")
    if not isinstance(spring, dict):
        return False
    if "profiles" in spring and isinstance(spring["profiles"], str):
        return True
    activate = (spring.get("config") or {}).get("activate") if isinstance(spring.get("config"), dict) else None
    return isinstance(activate, dict) and "on-profile" in activate


@dataclass
class Values:
    """The settings one module's code sees, and where they came from."""

    entries: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    #: the environment variables the deployment files give the module's service (name -> values)
    env: dict[str, list[str]] = field(default_factory=dict)
    #: Go: each field path of the config struct viper fills -> (value, overriding variable or None, where written)
    #: (`viper_config.viper_fields`)
    config_fields: dict[str, tuple[str, str | None, str]] = field(default_factory=dict)
    #: profile -> that profile's settings (``application-docker.yml``)
    profiles: dict[str, dict[str, str]] = field(default_factory=dict)
    #: (path, text) of the module's nginx configuration files (read by `frameworks.nginx`)
    nginx: list[tuple[str, str]] = field(default_factory=list)
    #: (path, text) of the module's reverse proxy configuration files (read by `frameworks.proxies`)
    proxies: list[tuple[str, str]] = field(default_factory=list)
    #: an edge proxy that is only a container (`layout.edge`): its service, which holds its routes (no source
    #: file of it does; `frameworks.edge`)
    edge_service: str | None = None
    #: (path, text) of the Compose files whose services' ``traefik.*`` labels declare the module's routes (a
    #: Traefik container's: `frameworks.proxies`)
    traefik_labels: list[tuple[str, str]] = field(default_factory=list)
    #: (path, text) of the Kubernetes manifests whose ``Ingress`` resources declare the module's routes (the
    #: ingress controller's: `frameworks.proxies`)
    ingresses: list[tuple[str, str]] = field(default_factory=list)
    #: (manifest, data key, text, the manifest line its text starts at) of each proxy configuration a ConfigMap
    #: holds for a proxy workload (`embedded_configs`; read by `frameworks.edge`)
    embedded: list[tuple[str, str, str, int]] = field(default_factory=list)
    #: the ``basePath`` of the Next.js configuration at the module's root (`next_base_path`): "" none, None when
    #: it is set to something not read (then ``next_base_path_written`` says what)
    next_base_path: str | None = ""
    next_base_path_written: str = ""
    #: (file, prefix or None when it is not one string, resource) of each import in its Symfony routing files
    route_imports: list[tuple[str, str | None, str]] = field(default_factory=list)
    #: (file, path, controller, methods) of each route its Symfony routing files declare (``path`` + ``controller``)
    yaml_routes: list[tuple[str, str, str, tuple[str, ...]]] = field(default_factory=list)
    #: its Symfony service container configuration (`read_symfony_services`)
    symfony: SymfonyServices | None = None
    #: its Java web application's servlet mappings and context root (`services.webapp`)
    webapp: WebApp = field(default_factory=WebApp)
    #: the operations of the module's OpenAPI documents (`openapi_docs`), and the server generator its build
    #: configures over them (None: none; the documents may still be read by a runtime router such as connexion)
    openapi: list[Operation] = field(default_factory=list)
    openapi_generator: str | None = None
    #: the repository's OpenAPI generator runs (`openapi_generation`), the same list for every module
    generations: list[Generation] = field(default_factory=list)
    #: what an agent asks of the module's configuration, each with its file and line (`config_notes`)
    notes: list[Note] = field(default_factory=list)
    #: key -> (file, line) of the setting that gives its value (the last file read wins, as in ``entries``)
    where: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: .NET configuration (`dotnet_values`): ``a:b`` (lower case: .NET's keys ignore case) -> (value, file) per
    #: ``appsettings*.json`` file that sets it, ``appsettings.json`` first
    dotnet: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: profile -> relaxed key (`canonical`) -> (file, line) of the profile's setting (`written`)
    profile_where: dict[str, dict[str, tuple[str, int | None]]] = field(default_factory=dict)
    _canonical: dict[str, str] = field(default_factory=dict)

    def add(self, settings: dict[str, str], source: str, lines: dict[str, int] | None = None) -> None:
        self.entries.update(settings)
        self.where.update({key: (source, line) for key, line in (lines or {}).items()})
        self._canonical.update({canonical(k): v for k, v in settings.items()})
        self.files.append(source)

    def add_profile(self, profile: str, settings: dict[str, str], source: str,
                    lines: dict[str, int] | None = None) -> None:
        self.profiles.setdefault(profile, {}).update({canonical(k): v for k, v in settings.items()})
        self.profile_where.setdefault(profile, {}).update(
            {canonical(k): (source, (lines or {}).get(k)) for k in settings})
        self.files.append(source)

    def written(self, key: str) -> list[Note]:
        """Where the module's settings files set ``key`` (Spring's relaxed names): the file whose value wins, then
        each profile's (which profile runs is not in the code); empty when no file sets it."""
        relaxed = canonical(key)
        out = []
        for name, (source, line) in self.where.items():
            if canonical(name) == relaxed and name in self.entries:
                out.append(Note(name, self.entries[name], source, line, None))
                break
        for profile, settings in self.profiles.items():
            if relaxed in settings:
                source, line = self.profile_where.get(profile, {}).get(relaxed, ("", None))
                out.append(Note(key, settings[relaxed], source, line, profile))
        return out

    def get(self, key: str) -> str | None:
        found = self.entries.get(key)
        if found is None:
            found = self._canonical.get(canonical(key))
        values = self.env.get(key) or self.env.get(re.sub(r"[.\-]", "_", key).replace("__", "_").upper())
        if values:   # the deployment's variable overrides the file's value where it runs; the file's elsewhere
            options = list(dict.fromkeys([*values, *([found] if found is not None else [])]))
            found = options[0] if len(options) == 1 else CHOICE_OPEN + CHOICE_SEP.join(options) + CHOICE_CLOSE
        profiled = [p[canonical(key)] for p in self.profiles.values() if canonical(key) in p]
        if profiled:
            options = list(dict.fromkeys(([found] if found is not None else []) + profiled))
            found = options[0] if len(options) == 1 else CHOICE_OPEN + CHOICE_SEP.join(options) + CHOICE_CLOSE
        return found

    def resolve(self, text: str, depth: int = 0) -> tuple[str, list[str]]:
        """``text`` with its placeholders replaced; the keys that could not be found (each left as
        ``{?}``)."""
        missing: list[str] = []

        def replace(match: re.Match) -> str:
            key, default = match.group(1).strip(), match.group(2)
            value = self.get(key)
            if value is None:
                value = default
            if value is None:
                missing.append(key)
                return "{?}"
            if "${" in value and depth < 8:
                value, inner = self.resolve(value, depth + 1)
                missing.extend(inner)
            return value

        return _PLACEHOLDER.sub(replace, text), missing


#: settings an agent asks about (relaxed spelling): where a service finds its config server and discovery
#: server, the config server's backend, the port it listens on
_NOTED = frozenset(canonical(k) for k in (
    "spring.config.import", "spring.cloud.config.uri", "spring.cloud.config.discovery.service-id",
    "spring.cloud.config.server.git.uri", "spring.cloud.config.server.git.search-paths",
    "spring.cloud.config.server.git.default-label", "spring.cloud.config.server.native.search-locations",
    "eureka.client.service-url.defaultZone", "server.port",
    # Micronaut and Quarkus: the port, the discovery server, where the message broker is
    "micronaut.server.port", "micronaut.server.context-path", "consul.client.defaultZone",
    "consul.client.registration.enabled", "eureka.client.registration.enabled", "quarkus.http.port",
    "quarkus.http.root-path", "kafka.bootstrap.servers", "spring.kafka.bootstrap-servers", "rabbitmq.uri"))
#: settings an agent asks about, by pattern (relaxed spelling): a REST client's base URL (Quarkus, MicroProfile,
#: Micronaut's manual service URLs), a Quarkus gRPC client's address, a Stork service's discovery, an AI model's
#: provider, model, key and endpoint (Quarkus LangChain4j, LangChain4j's Spring Boot starters, Spring AI) and a
#: messaging channel's connector and topic
_NOTED_PATTERN = re.compile(r"^(?:quarkus\.restclient\..+\.(?:url|uri)|.+/mprest/(?:url|uri)|"
                            r"quarkus\.grpc\.clients\.[^.]+\.(?:host|port|nameresolver)|"
                            r"(?:quarkus\.)?stork\.[^.]+\.servicediscovery\.(?:type|addresslist|application|hostname)|"
                            r"quarkus\.langchain4j\.(?:[^.]+\.)?(?:chat|image|embedding|moderation)model\.(?:provider|modelname)|"
                            r"(?:quarkus\.)?langchain4j\.[^.]+\.(?:(?:chat|image|embedding)model\.)?(?:apikey|baseurl|modelname)|"
                            r"spring\.ai\.[^.]+\.(?:apikey|baseurl|(?:chat|image|embedding)\.options\.model)|"
                            r"micronaut\.http\.services\..+\.urls?(?:\[\d+\])?|"
                            r"mp\.messaging\.(?:incoming|outgoing)\.[^.]+\.(?:connector|topic))$")


def placeholder_keys(text: str) -> list[str]:
    """The settings keys a value's ``${key}`` and ``${key:default}`` placeholders read, in order, once each."""
    return list(dict.fromkeys(m.group(1).strip() for m in _PLACEHOLDER.finditer(text)))


def noted(key: str) -> bool:
    """Whether a setting is one an agent asks about (`_NOTED`, `_NOTED_PATTERN`)."""
    return canonical(key) in _NOTED or bool(_NOTED_PATTERN.match(canonical(key)))


@dataclass(frozen=True)
class Note:
    """One setting an agent asks about, where it is written."""

    key: str
    value: str
    file: str
    line: int | None
    profile: str | None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file   # a secret's value never shown (`secrets`)
        return f"{self.key}: {shown_value(self.key, self.value)} ({where}" + (f", profile {self.profile})" if self.profile else ")")

    def config_server_urls(self) -> list[str]:
        """The config server URLs the setting names (``spring.config.import``'s ``configserver:`` items,
        ``spring.cloud.config.uri``'s comma-separated list)."""
        if canonical(self.key) == canonical("spring.cloud.config.uri"):
            return [u.strip() for u in self.value.split(",") if u.strip()]
        if canonical(self.key) != canonical("spring.config.import"):
            return []
        items = [i.strip().removeprefix("optional:") for i in re.split(r",(?![^{]*\})", self.value)]
        return [i.removeprefix("configserver:") for i in items if i.startswith("configserver:")]


def config_notes(root: Path, files: list[str]) -> list[Note]:
    """Each `_NOTED` setting of the settings ``files``: every document and profile file is read (which profile
    runs is not in the code), in file order."""
    out: list[Note] = []
    for rel in dict.fromkeys(files):
        name = PurePosixPath(rel).name
        file_profile = name.split("-", 1)[1].rsplit(".", 1)[0] if _PROFILE.match(name) else None
        if name.endswith(".properties"):
            settings, lines = read_settings_at(root / rel)
            found = [(settings, lines, file_profile)]
        else:
            try:
                text = (root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            found = []
            for doc, lines in documents(text):
                if isinstance(doc, dict):
                    flat: dict[str, str] = {}
                    _flatten(doc, "", flat)
                    profile = flat.get("spring.config.activate.on-profile") or flat.get("spring.profiles")
                    found.append((flat, lines, profile or file_profile))
        for flat, lines, profile in found:
            for key, value in flat.items():
                shown, own_profile = key, profile
                if key.startswith("%") and "." in key:   # Quarkus's %prod.key
                    own_profile, shown = key[1:].split(".", 1)
                if noted(shown) and own_profile != "test":
                    out.append(Note(shown, value, rel, lines.get(key), own_profile))
    return out


def _locations(module_path: str, raw: str) -> list[str]:
    """Folders (relative to the root) named by a native config server's search-locations."""
    base = PurePosixPath("" if module_path == "." else module_path)
    out = []
    for item in raw.split(","):
        item = item.strip().rstrip("/")
        if item.startswith("classpath:"):
            out.append(str(base / "src/main/resources" / item[len("classpath:"):].lstrip("/")))
        elif item.startswith("file:"):
            rel = item[len("file:"):]
            if not rel.startswith("/"):
                out.append(str(base / rel.removeprefix("./")))
    return [o.rstrip("/").removesuffix("/.") for o in out]


def _inside(path: Path, root: Path) -> bool:
    """Whether ``path``'s real path (``..`` collapsed, symlinks followed) is inside the project ``root``."""
    real, base = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    return real == base or real.is_relative_to(base)


def dotnet_values(root: Path, files: tuple[str, ...]) -> dict[str, list[tuple[str, str]]]:
    """The settings of a module's ``appsettings.json`` and ``appsettings.<Environment>.json`` files (`Values.dotnet`):
    which environment runs is not in the code, so a key set in several files has each of their values."""
    names = [f for f in files if APPSETTINGS.match(PurePosixPath(f).name)]
    names.sort(key=lambda f: (PurePosixPath(f).name.lower() != "appsettings.json", f))
    out: dict[str, list[tuple[str, str]]] = {}
    for source in names:
        for key, value in appsettings(root / source):
            out.setdefault(key.lower(), []).append((value, source))
    return out


def embedded_configs(root: Path, config_maps: tuple[tuple[str, str], ...], kind: str) -> list[tuple[str, str, str, int]]:
    """(manifest, data key, text, first line) of each proxy configuration (`layout.edge.is_config`) in the named
    ConfigMaps of the manifests: what a proxy workload mounts."""
    out: list[tuple[str, str, str, int]] = []
    for rel, name in config_maps:
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        raw = text.splitlines()
        for doc, lines in documents(text):
            if not isinstance(doc, dict) or doc.get("kind") != "ConfigMap" or not isinstance(doc.get("data"), dict) \
                    or (doc.get("metadata") or {}).get("name") != name:
                continue
            for key, value in doc["data"].items():
                line = lines.get(f"data.{key}")
                if not isinstance(value, str) or not is_config(kind, str(key)) or line is None:
                    continue
                block = re.search(r":\s*[|>][-+0-9]*\s*(?:#.*)?$", raw[line - 1]) if line <= len(raw) else None
                out.append((rel, str(key), value, line + 1 if block else line))
    return out


_BASE_PATH = re.compile(r"""\bbasePath\s*:\s*([^,}\n]+)""")
_JS_STRING = re.compile(r"""^(['"`])([^'"`$]*)\1$""")


def next_base_path(root: Path, module: str) -> tuple[str | None, str]:
    """The ``basePath`` of the ``next.config.*`` at the module's root: a string literal, or a constant the file
    declares as one (``const base = '/docs'``); "" when none is set; None (with what is written) for anything
    else (an environment variable: known at run time only)."""
    folder = root / module if module != "." else root
    for suffix in ("js", "mjs", "cjs", "ts"):
        try:
            text = (folder / f"next.config.{suffix}").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = _BASE_PATH.search(re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S))
        if found is None:
            return "", ""
        written = found.group(1).strip()
        literal = _JS_STRING.match(written)
        if literal is None and re.fullmatch(r"[A-Za-z_$][\w$]*", written):
            constant = re.search(rf"""\b(?:const|let|var)\s+{re.escape(written)}\s*=\s*(['"`][^'"`$]*['"`])""", text)
            literal = _JS_STRING.match(constant.group(1)) if constant else None
        return (literal.group(2), written) if literal else (None, written)
    return "", ""


def module_values(layout: Layout, root: Path, deployment: Deployment | None = None,
                  layout_files: dict[str, list[str]] | None = None) -> dict[str, Values]:
    """Each module's values (see the module docstring), by module path; ``layout_files``: the index's scan of
    the tree (`layout.walk.Scan.layout_files`), where the generator scripts are found without a second walk."""
    local: dict[str, list[tuple[str, dict[str, str], dict[str, int]]]] = {}
    profiles: dict[str, list[tuple[str, dict[str, str], dict[str, int]]]] = {}
    for path, module in layout.modules.items():
        files = [f for f in module.config_files if not _PROFILE.match(PurePosixPath(f).name)]
        local[path] = [(f, *read_settings_at(root / f)) for f in files]
        profiles[path] = [(f, *read_settings_at(root / f)) for f in module.config_files
                          if _PROFILE.match(PurePosixPath(f).name) and not PurePosixPath(f).name.startswith("bootstrap")]
    servers: list[str] = []
    for path, files in local.items():
        merged: dict[str, str] = {}
        for _, settings, _ in files:
            merged.update(settings)
        raw = merged.get("spring.cloud.config.server.native.search-locations") or merged.get(
            "spring.cloud.config.server.native.searchLocations")
        if raw:
            servers += _locations(path, raw)
    shared = [folder for folder in servers if (root / folder).is_dir() and _inside(root / folder, root)]
    out: dict[str, Values] = {}
    generated = generations(root, layout_files)
    for path, module in layout.modules.items():
        values = Values(generations=generated)
        if deployment is not None:
            values.env = deployment.env.get(module.microservice, {})
        for source, settings, lines in local[path]:
            if not any(source.startswith(folder + "/") for folder in shared):
                settings, by_profile = _profile_keys(settings)
                values.add(settings, source, lines)
                for profile, profiled in by_profile.items():   # ``%prod.key``'s line is the profile's key's
                    at = {k[1:].partition(".")[2]: n for k, n in lines.items() if k.startswith("%")
                          and profile in k[1:].partition(".")[0].split(",")}
                    values.add_profile(profile, profiled, source, at)
        for source, settings, lines in profiles[path]:
            stem = PurePosixPath(source).stem
            values.add_profile(stem.split("-", 1)[1], settings, source, lines)
        values.edge_service = module.microservice if module.edge else None
        if module.openapi_files:
            values.openapi_generator, specs, others = server_generator(root, path)
            for source in module.openapi_files:
                name = PurePosixPath(source).name
                if specs and name not in specs or name in others:
                    continue   # a document the build's server generator is not given (a client's, an example)
                try:
                    values.openapi += operations(source, (root / source).read_text(encoding="utf-8", errors="replace"))
                except OSError:
                    continue
        values.embedded = embedded_configs(root, module.config_maps, module.edge or "")
        values.next_base_path, values.next_base_path_written = next_base_path(root, path)
        values.webapp = read_webapp(root, path)
        for kept, sources in ((values.traefik_labels, module.label_files), (values.ingresses, module.ingress_files)):
            for source in sources:
                try:
                    kept.append((source, (root / source).read_text(encoding="utf-8", errors="replace")))
                except OSError:
                    continue
        for source in module.nginx_files:
            try:
                text = (root / source).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if "proxy_pass" in text:
                values.nginx.append((source, text))
        for source in module.proxy_files:
            try:
                values.proxies.append((source, (root / source).read_text(encoding="utf-8", errors="replace")))
            except OSError:
                continue
        values.dotnet = dotnet_values(root, module.proxy_files)
        for source in module.route_files:
            if PurePosixPath(source).stem == "services":
                values.symfony = read_symfony_services(root / source)
                continue
            imports, routes = read_symfony_routing(root / source, source)
            values.route_imports += imports
            values.yaml_routes += routes
        service = layout.services.get(module.microservice)
        name = module.spring_name or (service.declared_names.get("spring.application.name") if service else None)
        for folder in shared:
            for stem in ("application", name):
                if not stem:
                    continue
                for suffix in _SETTINGS:
                    candidate = root / folder / f"{stem}{suffix}"
                    if candidate.is_file() and _inside(candidate, root):
                        settings, lines = read_settings_at(candidate)
                        values.add(settings, f"{folder}/{stem}{suffix}", lines)
        values.notes = config_notes(root, values.files)
        out[path] = values
    return out
