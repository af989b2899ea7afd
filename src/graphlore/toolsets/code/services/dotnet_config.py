""".NET configuration a service's ``describe`` shows: its ``appsettings.json`` and ``appsettings.<Environment>.json``
settings (``ConnectionStrings:EventBus = amqp://localhost``, the ``A:B`` keys ``IConfiguration["A:B"]``,
``GetSection`` and ``Configure<TOptions>`` read; ``Logging`` left out), the addresses its
``Properties/launchSettings.json`` profiles listen at, and what a .NET Aspire AppHost gives the project it runs
(``.WithEnvironment("Identity__Url", value)``: the setting ``Identity:Url``, its value as written;
``.WithReference(resource)``, with the ``Add*`` call that made the resource), and the base address each ``HttpClient``
registration of its own code sets, each with ``file:line``. Read on every update (the files are small and few);
a file that does not parse as JSON (comments and trailing commas are allowed, as .NET allows them) is left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from ..layout.layout import Layout
from ..model import FileFacts
from .aspire import aspire_names

#: settings shown per file, at most (an ``appsettings.json`` is short; a generated one is not read whole)
MAX_SETTINGS = 60
_COMMENT = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
APPSETTINGS = re.compile(r"^appsettings(\.[\w-]+)?\.json$", re.I)


def loads_settings_json(text: str) -> object:
    """A .NET settings file's JSON as .NET's configuration reads it: ``//`` and ``/* */`` comments and trailing
    commas allowed (raises ``ValueError`` when it is not JSON even so)."""
    return json.loads(_TRAILING_COMMA.sub(r"\1", _COMMENT.sub(lambda m: m.group(1) or "", text)))


def _load(path: Path) -> tuple[object, list[str]] | None:
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return None
    try:
        return loads_settings_json(text), text.splitlines()
    except ValueError:
        return None


def _leaves(value: object, prefix: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, f"{prefix}:{key}" if prefix else str(key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _leaves(inner, f"{prefix}:{index}")
    else:
        yield prefix, json.dumps(value) if not isinstance(value, str) else value


def appsettings(path: Path) -> list[tuple[str, str]]:
    """One ``appsettings*.json`` file's leaf settings, ``A:B`` keys as .NET's configuration names them (empty when
    it does not parse)."""
    loaded = _load(path)
    return list(_leaves(loaded[0], "")) if loaded is not None else []


def _settings(rel: str, loaded: tuple[object, list[str]]) -> list[str]:
    """``key = value (file:line)`` for each leaf setting, its line the first after the previous one's that
    writes its last key."""
    value, lines = loaded
    out, at = [], 0
    for key, leaf in _leaves(value, ""):
        last = key.rsplit(":", 1)[-1]
        pattern = re.compile(rf'"{re.escape(last)}"\s*:') if not last.isdigit() else None
        found = next((n for n in range(at, len(lines)) if pattern is None or pattern.search(lines[n])), None)
        at = found if found is not None else at
        if key.split(":", 1)[0] == "Logging":
            continue
        out.append(f"{key} = {leaf} ({rel}:{(found if found is not None else at) + 1})")
        if len(out) >= MAX_SETTINGS:
            break
    return out


def _launch(rel: str, loaded: tuple[object, list[str]]) -> list[str]:
    value, lines = loaded
    profiles = value.get("profiles") if isinstance(value, dict) else None
    out = []
    for name, profile in (profiles or {}).items():
        urls = profile.get("applicationUrl") if isinstance(profile, dict) else None
        if isinstance(urls, str) and urls:
            line = next((n + 1 for n, text in enumerate(lines) if urls in text), 1)
            out.append(f"listens at {urls} (launch profile {name}) ({rel}:{line})")
    return out


def _apphost(layout: Layout, facts: Mapping[str, FileFacts]) -> dict[str, list[str]]:
    """Per service, the environment and references its AppHost resource is given."""
    by_name = {name: service for service, names in aspire_names(layout, facts).items() for name in names}
    out: dict[str, list[str]] = {}
    for path, file in sorted(facts.items()):
        projects = file.extra.get("aspire_projects", [])
        if not projects:
            continue
        variables = {var: line for owner in file.locals.values() for var, seen in owner.items()
                     for line, _ in seen}
        resources = {p["line"]: p["name"] for p in projects}
        for call in file.calls:
            if call.name not in ("WithEnvironment", "WithReference") or not call.args:
                continue
            root = call.receiver
            while root and root[0] == "call":
                root = root[1]
            held = variables.get(root[1]) if root and root[0] == "name" else None
            line = held if held in resources else call.line   # a resource's variable, else its own chain
            service = by_name.get(resources.get(line, ""))
            if service is None:
                continue
            if call.name == "WithEnvironment" and len(call.args) >= 2:
                key = call.args[0].strip('"')
                out.setdefault(service, []).append(
                    f"{key.replace('__', ':')} = {_value(call.args[1], file, variables, resources)} "
                    f"(environment {key} from the AppHost) ({path}:{call.line})")
            elif call.name == "WithReference":
                made = _made(call.args[0], file, variables)
                out.setdefault(service, []).append(
                    f"references {call.args[0]}{f' (= {made})' if made else ''} (AppHost) ({path}:{call.line})")
    return out


def _made(variable: str, file: FileFacts, variables: dict[str, int]) -> str:
    """How the AppHost made the resource a variable holds: the ``Add*`` call on the line it is assigned, as
    written (``AddPythonApp("scorer", "../scorer", "main.py")``), "" when that is not one call."""
    line = variables.get(variable.strip())
    added = [c for c in file.calls if c.line == line and c.name.startswith("Add")] if line is not None else []
    return f"{added[0].name}({', '.join(added[0].args)})" if len(added) == 1 else ""


def _client_addresses(layout: Layout, facts: Mapping[str, FileFacts]) -> dict[str, list[str]]:
    """Per service, the base address each ``HttpClient`` registration in its own code sets
    (``AddHttpClient<T>(c => c.BaseAddress = new Uri("http://x"))``), as written."""
    roots = sorted(((module, name) for name, service in layout.services.items() for module in service.modules),
                   key=lambda pair: -len(pair[0]))
    out: dict[str, list[str]] = {}
    for path, file in sorted(facts.items()):
        for base in file.extra.get("base_addresses", []):
            service = next((name for module, name in roots if module == "." or path.startswith(module + "/")), None)
            if service is None:
                continue
            client = base.get("client", "").removeprefix("name:") or base.get("target", "")
            registrar = base.get("registrar", "")
            out.setdefault(service, []).append(
                f"{client} base address = {base['value']}{f' ({registrar})' if registrar else ''} ({path}:{base['line']})")
    return out


def _value(written: str, file: FileFacts, variables: dict[str, int], resources: dict[int, str]) -> str:
    """A value as written, with what a variable assigned once holds and whose endpoint ``x.GetEndpoint(..)``
    is: ``identityEndpoint (= identityApi.GetEndpoint(profile): an endpoint of identity-api)``."""
    assigned = [values for owner in file.extra.get("assigns", {}).values() for at, values in owner.get(written, [])]
    held = assigned[0][0] if len(assigned) == 1 and len(assigned[0]) == 1 else None
    endpoint = re.match(r"(\w+)\.GetEndpoint\(", held or written)
    resource = resources.get(variables.get(endpoint.group(1), -1)) if endpoint else None
    shown = f"{written} (= {held})" if held else written
    return f"{shown}: an endpoint of {resource}" if resource else shown


def dotnet_config(layout: Layout, root: Path, facts: Mapping[str, FileFacts]) -> dict[str, list[str]]:
    """Per microservice with a .NET project, its configuration lines (see the module docstring)."""
    out = _apphost(layout, facts)
    for service, lines in _client_addresses(layout, facts).items():
        out[service] = out.get(service, []) + lines
    for name, service in layout.services.items():
        for module_path in service.modules:
            module = layout.modules.get(module_path)
            if module is None or not any(f.endswith(".csproj") for f in module.build_files):
                continue
            folder = root / module_path if module_path != "." else root
            prefix = f"{module_path}/" if module_path != "." else ""
            files = sorted(p.name for p in folder.glob("appsettings*.json") if APPSETTINGS.match(p.name))
            lines = []
            for file in files:
                loaded = _load(folder / file)
                if loaded is not None:
                    lines += _settings(prefix + file, loaded)
            launch = _load(folder / "Properties" / "launchSettings.json")
            if launch is not None:
                lines += _launch(f"{prefix}Properties/launchSettings.json", launch)
            if lines:
                out[name] = lines + out.get(name, [])
    return out
