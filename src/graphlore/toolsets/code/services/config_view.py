"""The configuration an agent asks about a service, for its ``describe``: where it finds its config server
and discovery server, the config server's backend, the port it listens on (its settings' ``server.port``)
the ports its deployment gives it and the values each deployment unit that runs it gives it (Compose
``environment``/``env_file``/``labels``, Kubernetes ``env``; at most `MAX_VALUES`, the rest counted), each with
``file:line``; on a config server, also what each service's
settings say about reaching it (the answer to "where do the services get their configuration")."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..languages.folding import CHOICE_OPEN, settings_variable
from ..languages.symbols import Bound
from ..layout.layout import Layout
from ..model import GraphNode
from .deployment import Deployment
from .identity import ServiceNames
from .settings import Values, placeholder_keys

#: the deployment values a service's ``describe`` lists (a Compose service with a long ``env_file`` stays readable)
MAX_VALUES = 50


def service_config(layout: Layout, settings: dict[str, Values], deployment: Deployment,
                   names: ServiceNames) -> dict[str, list[str]]:
    """Per microservice, its configuration lines (see the module docstring), in file order, once each."""
    own: dict[str, list[str]] = {}
    served: dict[str, list[str]] = {}
    for name, service in layout.services.items():
        lines = own.setdefault(name, [])
        for module in service.modules:
            values = settings.get(module)
            if values is None:
                continue
            lines += [str(note) for note in values.notes]
            for note in values.notes:
                for url in note.config_server_urls():
                    server = _server(values, url, names)
                    if server is not None and server != name:
                        served.setdefault(server, []).append(f"configuration of {name} from here: {note}")
        lines += port_not_set(service.modules, settings, deployment.env.get(name, {}))
        lines += deployment.port_notes.get(name, [])
        values = deployment.value_notes.get(name, [])
        lines += values[:MAX_VALUES]
        if len(values) > MAX_VALUES:
            lines.append(f"... {len(values) - MAX_VALUES} more deployment values, in "
                         + ", ".join(sorted({v.rsplit("(", 1)[-1].split(":", 1)[0].rstrip(")") for v in values})))
    out = {name: list(dict.fromkeys(own.get(name, []) + served.get(name, []))) for name in layout.services}
    return {name: lines for name, lines in out.items() if lines}


def port_not_set(modules: list[str], settings: dict[str, Values], env: dict[str, list[str]]) -> list[str]:
    """``server.port: not set ...`` for a service that takes its settings from a Spring Cloud Config server
    (``spring.config.import: configserver:...``, ``spring.cloud.config.uri``) while neither its settings (its own files
    and the server's files in the project) nor its deployment (``SERVER_PORT``) set a port: the port is served from
    outside the repository, or is Spring Boot's default; never a guessed port."""
    found = [settings[m] for m in modules if m in settings]
    served = any(note.config_server_urls() for v in found for note in v.notes)
    if not served or any(v.get("server.port") is not None for v in found) or "SERVER_PORT" in env:
        return []
    return ["server.port: not set in its settings files or by its deployment (its config server may serve it from "
            "a repository outside this one; else Spring Boot's default, 8080)"]


def _server(values: Values, url: str, names: ServiceNames) -> str | None:
    """The project service a config server URL names (``${VAR:default}`` settled as the module's code sees it);
    None when it names none, or not one for certain."""
    text, missing = values.resolve(url)
    if missing or CHOICE_OPEN in text or "://" not in text:
        return None
    try:
        split = urlsplit(text)
        host, port = split.hostname, split.port
    except ValueError:
        return None
    return names.host(host, port, [])[0] if host else None


#: where the environment a client's address reads is set, at most (a variable set by many units stays readable)
MAX_CLIENT_LINES = 20


def deployment_values(service: str, config: dict[str, list[str]], deployment: Deployment) -> list[str]:
    """Every configuration and deployment value line of a service, not only the ones its describe's bounded list
    keeps (what `lines_setting` searches)."""
    return list(dict.fromkeys([*config.get(service, []), *deployment.value_notes.get(service, [])]))


def lines_setting(variables: list[str], values: list[str], root_env: dict[str, str]) -> list[str]:
    """The lines of ``values`` that name one of the environment variables (a whole name; .NET reads ``A__B`` as the
    configuration key ``A:B``, so an ``appsettings.json`` line naming the whole key ``A:B`` in any case counts), then
    the project root ``.env``'s line of each."""
    named = "|".join(re.escape(v) for v in variables)
    keys = "|".join(re.escape(v.replace("__", ":")) for v in variables if "__" in v)
    pattern = re.compile(rf"(?<![\w.])(?:{named})(?![\w.])" + (rf"|(?<![\w.:])(?i:{keys})(?![\w.:])" if keys else ""))
    return [line for line in values if pattern.search(line)] + [root_env[v] for v in variables if v in root_env]


def client_config(nodes: list[GraphNode], config: dict[str, list[str]], deployment: Deployment,
                  settings: dict[str, Values] | None = None) -> None:
    """Each client whose address reads settings keys (``reads_settings``: Spring/Micronaut ``@Value("${a.b}")``,
    ``@ConfigurationProperties`` getters, ``Environment.getProperty``) or environment variables (``reads_env``) gets
    ``config_from``: first the settings lines that set each key (`settings_lines`: ``file:line``, and each profile's),
    then the lines of its service's configuration that name one of the environment variables, its own or those the
    settings defer to (the deployment file:line that sets it, with the value; a settings file's default it
    overrides, ``A:B`` in .NET's spelling of ``A__B``), then the project root ``.env``'s line for each (what Compose
    and the folding read where no unit sets it), then the code's own default for each that has a literal one
    (``process.env.X || "http://localhost:8080"``: what it reaches where the deployment sets none) unless a line
    above already gives that value (a .NET ``appsettings.json`` default). None where nothing in the repository sets
    them: set at run time."""
    for node in nodes:
        if node.kind != "client":
            continue
        keys = node.props.get("reads_settings") or []
        values = (settings or {}).get(node.props.get("module") or "")
        written, deferred = settings_lines(keys, values) if keys and values is not None else ([], [])
        variables = list(dict.fromkeys([*(node.props.get("reads_env") or []), *deferred]))
        if not variables and not written:
            continue
        service = node.props.get("microservice") or ""
        lines = written + (lines_setting(variables, deployment_values(service, config, deployment),
                                         deployment.root_env_notes) if variables else [])
        defaults = node.props.pop("env_defaults", None) or {}   # one a listed settings line gives is shown there
        lines += [f"{name} where nothing sets it: {value} (the code's default)" for name, value in defaults.items()
                  if not any(value in line for line in lines)]
        node.props["config_from"] = list(dict.fromkeys(lines))[:MAX_CLIENT_LINES] or None


#: how deep a setting whose value is another key's placeholder (``a.url: ${b.host}``) is followed
MAX_SETTING_DEPTH = 4


def settings_lines(keys: list[str], values: Values) -> tuple[list[str], list[str]]:
    """The settings lines that set each of ``keys`` in the module's settings files (the value that wins, then each
    profile's, with ``file:line``; a secret's value redacted, as every settings line is), a key that a value's
    placeholder names followed in turn; and the environment variables they defer to: those the values'
    placeholders name that no settings file sets (``${JSREPORT_HOST:localhost}``), and each key's own
    (``JSREPORT_HOST`` for ``jsreport.host``, Spring's and Micronaut's relaxed binding)."""
    lines: list[str] = []
    variables: list[str] = []
    queue = [(key, 0) for key in keys]
    seen: set[str] = set()
    while queue:
        key, depth = queue.pop(0)
        if key in seen:
            continue
        seen.add(key)
        notes = values.written(key)
        lines += [str(note) for note in notes]
        for inner in dict.fromkeys(k for note in notes for k in placeholder_keys(note.value)):
            if values.written(inner) and depth < MAX_SETTING_DEPTH:
                queue.append((inner, depth + 1))
            elif not values.written(inner):
                variables.append(inner)
        if "." in key or "-" in key:
            variables.append(re.sub(r"[.\-]", "_", key).replace("__", "_").upper())
    return lines, list(dict.fromkeys(variables))


#: the base classes whose fields are read from the environment by their own names (pydantic-settings, and
#: pydantic v1's ``pydantic.BaseSettings``)
SETTINGS_BASES = ("BaseSettings",)


def settings_fields(bounds: list[Bound], config: dict[str, list[str]],
                    deployment: Deployment) -> dict[str, dict[str, list[str]]]:
    """Per microservice, for each field of a settings class (`SETTINGS_BASES`: the field is the environment variable
    `python.constants.settings_variable` names), where its value comes from: the lines of the service's
    configuration that set the variable (as `client_config` finds them, in any case), the project root ``.env``'s
    line, then the code's default (``SMTP_PORT: int = 587``), or that the code gives none (the deployment must set
    it). ``describe`` of the field shows them (``settings_from``)."""
    out: dict[str, dict[str, list[str]]] = {}
    for bound in bounds:
        facts = bound.facts
        classes = {s.key: s for s in facts.symbols if s.kind == "class"
                   and any(name.rsplit(".", 1)[-1] in SETTINGS_BASES for _, name in s.supers)}
        if not classes or bound.ctx.is_test:
            continue
        service = bound.ctx.microservice
        every = list(dict.fromkeys([*config.get(service, []), *deployment.value_notes.get(service, [])]))
        root_env = {k.upper(): v for k, v in deployment.root_env_notes.items()}
        for index, symbol in enumerate(facts.symbols):
            if symbol.kind != "field" or symbol.parent not in classes or symbol.name == "model_config":
                continue
            variable = settings_variable(facts, classes[symbol.parent], symbol.name)
            named = re.compile(rf"(?<![\w.])(?i:{re.escape(variable)})(?![\w.])")
            found = [line for line in every if named.search(line)]
            found += [root_env[variable.upper()]] if variable.upper() in root_env else []
            _, equals, default = symbol.signature.partition(" = ")
            found.append(f"{variable} where nothing sets it: {default.strip()} (the code's default)" if equals
                         else f"{variable}: no default in the code (the environment must set it)")
            out.setdefault(service, {})[bound.fqns[index]] = found
    return out


def amqp_config(routes: list) -> dict[str, list[str]]:
    """Per microservice, the RabbitMQ bindings its listeners are reached through (`frameworks.spring_amqp`): the
    queue, exchange, its type and the binding key, where the listener is."""
    out: dict[str, list[str]] = {}
    for node in routes:
        binding = node.props.get("amqp_binding") if node.kind == "route" else None
        if binding:
            out.setdefault(node.props["microservice"], []).append(
                f"rabbit binding: queue {binding['queue']} <- {binding['exchange_type']} exchange "
                f"{binding['exchange']}, key {binding['binding_key']} ({node.props['file']}:{node.props['line']})")
    return {name: list(dict.fromkeys(lines)) for name, lines in out.items()}

