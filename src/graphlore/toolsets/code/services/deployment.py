"""What the project's own deployment files say about its services: the names each is deployed under, the
environment variables each is given, and the ports it listens on.

**Read** (every file found by the walk, `layout.walk.is_deployment_file`): Docker Compose files (``services:``
with ``build``, ``image``, ``container_name``, ``hostname``, ``environment``, ``env_file``, ``ports``; their
``${VAR}``, ``${VAR:-default}``, ``${VAR-default}`` ... settled from the ``.env`` beside the file, and an
``environment`` entry written as a bare name given its value there, as Compose does), Kubernetes manifests (Deployment,
StatefulSet, DaemonSet, ReplicaSet, Job, CronJob and Pod containers with their ``env`` values, ``valueFrom``
ConfigMap keys and ``envFrom`` ConfigMaps; Service names and selectors; ConfigMaps: two of one name in different files, as
alternative deployments of one system have, give each key every value they hold; Secrets: a ``secretKeyRef`` or
``envFrom`` ``secretRef`` is shown with each place the Secret's key is written, its ``data``/``stringData`` line with
the Helm value, ``--set`` and shell assignment behind it, or the CSI ``SecretProviderClass`` object it is synced from;
never its value: only a URL's host, port and path are shown and are the variable's value, `secrets`), Helm charts (each
template rendered with each set of values the chart is installed with, `services.helm`; the units one document
gives in each set share one environment, `_one_environment`), Skaffold artifacts (image -> build folder: the
``context``, or the module a Jib artifact's ``jib.project`` names in it) and ``.env`` files (``KEY=VALUE``).

**Which service** a deployment unit is: the folder it is built from (a Compose ``build``, a Skaffold artifact
for its image; the Dockerfile's folder when a ``dockerfile`` below the build context is named) holds the
service's root, else its name (a Compose service, a Deployment, an image's last path
segment) is already one of the service's names (its folder, its build name, ``spring.application.name``). A
Kubernetes Service is the service of the workload its selector picks, else of its own name. Units that are
no service of the project (``image: redis``) are left out.

**Environment.** Each service gets the variables its units set (several different values across files, e.g.
a manifest and a Helm chart: each is one of its values); the ``.env`` in its root, then the project root's,
fill what no unit sets (Compose and ``dotenv`` read them from there). A service whose Dockerfile runs Locust
with ``--host``/``-H`` (``ENTRYPOINT locust --host="http://${FRONTEND_ADDR}"``, or in a shell script of its build
folder that the ``ENTRYPOINT``/``CMD`` runs: ``CMD ["./entrypoint.sh"]``) is given that value as
``LOCUST_HOST`` (Locust's own variable for the same option; its ``${VAR}`` are the service's variables), beside
any value a unit gives ``LOCUST_HOST``. A Dockerfile's ``ENV NAME=VALUE`` is the service's value of a variable
no unit, ``.env`` file nor ``k6``/``locust`` flag sets (the image's default, which they override; the last
stage's, with the stages it is built ``FROM``: a build stage's ``ENV`` is not the running image's). One that runs k6 with ``-e``/``--env NAME=VALUE`` (``k6 run -e
BASE_URL=http://web:8080 script.js``) gives the service that variable (what k6's ``__ENV.NAME`` reads).

**Where each value is written** (`Deployment.value_notes`, shown in a service's ``describe``): every Compose
``environment``, ``env_file`` and ``labels`` entry and Kubernetes container ``env`` entry (and each value of a
ConfigMap its ``envFrom`` names, with the ConfigMap's file) of a unit that runs the service, as written with its
``file:line`` (and what Compose settles it to from the ``.env`` beside the file; a
variable nothing in the repository sets is "set at run time", never a guessed value), then the entries of the
``.env`` in the service's own folder.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from ..languages.folding import env
from ..layout.layout import Layout
from ..layout.subcommands import command_words, first_argument
from . import helm, kafka_topics
from .secrets import REDACTED, redact_text, secret_store_value, shown_value
from .terraform import EnvEntry, read_terraform
from .yaml_lines import documents

WORKLOADS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod"})
_COMPOSE_VAR = re.compile(r"\$\$|\$\{([A-Za-z_]\w*)(?:(:?)([-?+])([^}]*))?\}|\$([A-Za-z_]\w*)")


@dataclass
class Unit:
    """One deployment unit: a Compose service, a Kubernetes workload or Service."""

    kind: str                      # compose | workload | k8s-service | terraform
    name: str
    file: str
    build: str | None = None       # the folder it is built from (relative to the root)
    dockerfile: str | None = None  # the Dockerfile it names, if any (relative to the root)
    images: list[str] = field(default_factory=list)
    #: the project folder it runs in: a Compose ``working_dir`` inside a bind-mounted folder of the tree
    workdir: str | None = None
    names: list[tuple[str, str]] = field(default_factory=list)      # (name, source)
    env: dict[str, list[str]] = field(default_factory=dict)
    env_from: list[str] = field(default_factory=list)              # ConfigMap names
    ports: list[int] = field(default_factory=list)                 # in the cluster / the Compose network
    published: list[int] = field(default_factory=list)             # on the host machine
    labels: dict[str, str] = field(default_factory=dict)
    selector: dict[str, str] = field(default_factory=dict)
    #: a Kubernetes Service's ``metadata.namespace`` (None: not written; ``kubectl -n`` or kustomize decides)
    namespace: str | None = None
    #: what each port entry says, where: "published at host port 8082 (container 8080) (docker-compose.yml:63)"
    port_notes: list[str] = field(default_factory=list)
    #: each value it is given, where: "docker-compose service proxy environment GRPC_PRODUCT_HOST=product
    #: (docker-compose.yaml:40)" (its environment, env_file entries and labels as written)
    value_notes: list[str] = field(default_factory=list)
    #: the value notes that read a Secret's key (note index, Secret, key; key None: ``envFrom`` every key): the
    #: Secret's own lines for that key are added to the note (`Reader.secrets`)
    secret_refs: list[tuple[int, str, str | None]] = field(default_factory=list)
    #: the first argument it gives the program (``command: [chat]``): the subcommand it runs, if the program has one
    command: str | None = None


@dataclass
class Deployment:
    """Per project microservice: its deployed names (name -> source), its environment (variable -> values),
    the ports it listens on (container and Service ports, reached by its names), the ports the host machine
    publishes it at (Compose ``HOST:CONTAINER``, Kubernetes ``nodePort``/``hostPort``, reached at
    ``localhost``), and where each came from."""

    names: dict[str, dict[str, str]] = field(default_factory=dict)
    env: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    ports: dict[str, set[int]] = field(default_factory=dict)
    published: dict[str, set[int]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    #: the services some deployment unit builds or runs (a Compose service, a workload, a Skaffold artifact)
    run: set[str] = field(default_factory=set)
    #: the services a unit runs in their own module's folder (`Unit.workdir`): deployed, whatever their build says
    started: set[str] = field(default_factory=set)
    #: per service, each port entry of the units that run it, with its file and line (`Unit.port_notes`)
    port_notes: dict[str, list[str]] = field(default_factory=dict)
    #: per service, each value the units that run it give it, with its file and line (`Unit.value_notes`)
    value_notes: dict[str, list[str]] = field(default_factory=dict)
    #: variable -> where the project root's ``.env`` sets it (it fills what no unit sets: shown by the clients that
    #: read it, `config_view.client_config`, not in every service's list)
    root_env_notes: dict[str, str] = field(default_factory=dict)
    #: a Kubernetes Service's name (lower case) -> the namespace each of its manifests writes (None: one writes none)
    k8s_namespaces: dict[str, set[str | None]] = field(default_factory=dict)
    #: chart templates that render to no YAML (`services.helm`) -> why, listed with the unreadable files
    unreadable: dict[str, str] = field(default_factory=dict)
    #: the units no service of the project owns (built from a folder without source code: a proxy's config) -> file
    unowned: dict[str, str] = field(default_factory=dict)
    #: Kafka topic -> where the deployment creates it, with its partitions and replicas (`kafka_topics`)
    topics: dict[str, list[str]] = field(default_factory=dict)
    #: every name (lower case) a unit of any kind goes by on the network, the project's or not (an image such as
    #: a Keycloak or a database): a host of that name is that unit's
    unit_names: set[str] = field(default_factory=set)

    def env_of(self, service: str, name: str) -> list[str]:
        return self.env.get(service, {}).get(name, [])


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _runs_its_folder(root: Path, layout: Layout, folder: str) -> bool:
    """Whether a unit working in a module's folder runs that module: a Go module only when its folder holds Go
    files itself (``go run .``); one whose programs all lie below it (``cmd/billing``, ``cmd/ledger``) runs the
    one the unit's command names, which the folder does not say. (Whether a folder holds sources is part of the
    layout's key, so an update settles this as a full build does.)"""
    if "go.mod" not in layout.modules[folder].build_files:
        return True
    return any(path.is_file() for path in (root / folder).glob("*.go"))


def read_env_file(text: str) -> dict[str, str]:
    return {key: value for key, (value, _) in read_env_lines(text).items()}


def read_env_lines(text: str) -> dict[str, tuple[str, int]]:
    """A ``.env`` file's ``KEY=VALUE`` entries with the line each is written at (the last one wins), as written."""
    return {key: (value, number) for key, value, number, _ in _env_entries(text)}


def settled_env_lines(text: str) -> dict[str, str]:
    """A ``.env`` file's values as Compose settles them: a variable in a value (``KAFKA_ADDR=${KAFKA_HOST}:9092``)
    is the entry written for it on an earlier line of the same file, with Compose's defaults and alternatives
    (`compose_interpolate`); a single-quoted value is literal. A variable no earlier line sets is the shell's (set
    at run time: ``{?}``)."""
    out: dict[str, str] = {}
    for key, value, _, literal_value in _env_entries(text):
        out[key] = value if literal_value else compose_interpolate(value, out)
    return out


def _env_entries(text: str) -> list[tuple[str, str, int, bool]]:
    """``(key, value, line, single-quoted)`` of each ``KEY=VALUE`` line of a ``.env`` file, in order."""
    out: list[tuple[str, str, int, bool]] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        value, quoted = value.strip(), False
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value, quoted = value[1:-1], value[0] == "'"
        elif " #" in value:
            value = value.split(" #", 1)[0].strip()
        if re.fullmatch(r"[A-Za-z_]\w*", key.strip()):
            out.append((key.strip(), value, number, quoted))
    return out


def noted_env_lines(text: str) -> dict[str, tuple[str, int]]:
    """A ``.env`` file's entries as a note shows them (`env_note_value`: as written, then as the file settles
    them), with their lines."""
    settled = settled_env_lines(text)
    return {key: (env_note_value(value, settled.get(key)), line) for key, (value, line) in read_env_lines(text).items()}


def env_note_value(value: str, settled: str | None) -> str:
    """``VALUE`` as written, then ``(= settled)`` where the file's own earlier entries settle it differently."""
    if settled is None or settled == value:
        return value
    return f"{value} (= {settled.replace('{?}', '<set at run time>') or chr(34) * 2})"


def compose_interpolate(value: str, dotenv: dict[str, str]) -> str:
    """A Compose value with its variables settled from the ``.env`` beside the file, as Compose does:
    ``${VAR}``/``$VAR``; ``${VAR:-d}`` (``d`` when unset or empty), ``${VAR-d}`` (when unset); ``${VAR:+a}`` /
    ``${VAR+a}`` (``a`` when set and non-empty / set); ``${VAR:?e}`` / ``${VAR?e}`` (the value); ``$$`` is ``$``.
    A variable the ``.env`` does not set (the shell's, at run time) is ``{?}``."""
    def one(match: re.Match) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1) or match.group(5)
        colon, op, word = match.group(2), match.group(3), match.group(4) or ""
        found = dotenv.get(name)
        present = found is not None and (found != "" or not colon)
        if op == "-":
            return found if present else word
        if op == "+":
            return word if present else ("" if found is not None else "{?}")
        return found if found is not None else "{?}"
    return _COMPOSE_VAR.sub(one, value)


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str | int | float):
        return str(value)
    return None


def _image_name(image: str) -> str:
    """``gcr.io/x/frontend:v1@sha256:..`` -> ``frontend``."""
    return image.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]


class Reader:
    """Reads every deployment file of a tree into units, ConfigMaps, Skaffold artifacts and ``.env`` values."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.units: list[Unit] = []
        #: name -> key -> values (one per file that defines a ConfigMap of that name: each is one of its values)
        self.config_maps: dict[str, dict[str, list[str]]] = {}
        #: ConfigMap name -> the files that declare it (where an ``envFrom`` value is written)
        self.config_map_files: dict[str, list[str]] = {}
        #: Secret name -> key -> where its value is written (a ``data``/``stringData`` line, with the Helm values it
        #: reads; a CSI ``SecretProviderClass`` that syncs it from a secret store), one line per place
        self.secrets: dict[str, dict[str, list[str]]] = {}
        #: Secret name -> key -> its values written as literals (``stringData``, decoded ``data``)
        self.secret_values: dict[str, dict[str, list[str]]] = {}
        #: Secret name -> the files that write it (a SecretProviderClass that syncs it included)
        self.secret_files: dict[str, list[str]] = {}
        self._read_docs = 0
        self.artifacts: dict[str, str] = {}       # image -> build folder
        self.artifact_dockerfiles: dict[str, str] = {}   # image -> the Dockerfile its artifact names
        self.env_files: dict[str, dict[str, str]] = {}   # folder -> values
        self.dotenv: dict[str, dict[str, str]] = {}   # folder -> its ``.env``'s values (what Compose reads)
        #: Compose file -> the Compose files its top-level ``include:`` brings into its project
        self.compose_includes: dict[str, list[str]] = {}
        self.files: list[str] = []
        #: Kafka topic -> where the deployment creates it, with its partitions and replicas (`kafka_topics`)
        self.topics: dict[str, list[str]] = {}
        #: chart templates that render to no YAML with any set of values (or do not parse) -> why
        self.unreadable: dict[str, str] = {}
        #: the set of Helm values the document being read was rendered with, and its template's lines (said in its
        #: value notes)
        self._variant: helm.Variant | None = None
        self._template: list[str] = []
        self._chart_folder = ""

    def read(self, paths: list[str]) -> None:
        charts = helm.find_charts(self.root, paths)
        templates = tuple(("" if c.folder == "." else c.folder + "/") + "templates/" for c in charts)
        for rel in sorted(p for p in paths if PurePosixPath(p).name.startswith(".env")):
            self.env_files[PurePosixPath(rel).parent.as_posix()] = read_env_file(_read(self.root / rel))
            if PurePosixPath(rel).name == ".env":
                self.dotenv[PurePosixPath(rel).parent.as_posix()] = self.env_files[PurePosixPath(rel).parent.as_posix()]
            self.files.append(rel)
        self._terraform([p for p in paths if p.endswith((".tf", ".tfvars"))])
        for rel in sorted(paths):
            name = PurePosixPath(rel).name
            if name.startswith(".env") or name.endswith((".tf", ".tfvars")) or rel.startswith(templates):
                continue   # a chart's templates are rendered with its values (`_charts`)
            text = _read(self.root / rel)
            if "{{" in text:
                continue   # a template of something else
            if not any(word in text for word in ("services:", "kind:", "artifacts:", "include:")):
                continue
            before = len(self.units) + self._read_docs + len(self.artifacts)
            for doc, lines in documents(text):
                if isinstance(doc, dict):
                    self._doc(doc, rel, lines)
            if len(self.units) + self._read_docs + len(self.artifacts) > before:
                self.files.append(rel)
        self._charts(charts, paths)

    def _charts(self, charts: list[helm.Chart], paths: list[str]) -> None:
        """Each chart rendered with each set of values it is installed with (`services.helm`), its subcharts with it."""
        if not charts:
            return
        commands = [install for rel in helm.command_files(self.root, paths, charts)
                    for install in helm.install_commands(_read(self.root / rel), rel)]
        for chart in charts:
            if chart.parent is None:
                self._chart(chart, helm.variants(self.root, chart, helm.installs_of(chart, commands, self.root), charts),
                            charts)

    def _chart(self, chart: helm.Chart, variants: list[helm.Variant], charts: list[helm.Chart]) -> None:
        """The units of one chart's templates, one per set of values; the units one document gives in each set have
        one environment: a value several sets give differently is a choice, one that is unset in a set (empty in
        ``values.yaml``, a shell variable) competes with none, and one written under an ``if`` whose condition is
        not known may also be unset."""
        installed = chart   # the chart a release installs (its subcharts share its release name)
        while installed.parent is not None:
            installed = installed.parent
        defines: dict[str, list] = {}
        ones = [chart, *(c for c in charts if c.parent is chart)]
        for one in ones + [c for c in chart.local if all(c is not o for o in ones)]:
            found, problems = helm.defines_of(self.root, one)
            defines.update(found)
            # a helper file that does not parse (its defines are missing); a resource template is said below
            self.unreadable.update({rel: why for rel, why in problems.items() if not rel.endswith((".yaml", ".yml"))})
        for rel in helm.chart_files(self.root, chart):
            if PurePosixPath(rel).name.startswith("_") or not rel.endswith((".yaml", ".yml")):
                continue   # helpers (``_helpers.tpl``) and notes render no resource
            groups: dict[tuple[str, int, int], list[tuple[Unit, set[str]]]] = {}
            failures: list[str] = []
            template = _read(self.root / rel).splitlines()
            for variant in variants:
                try:
                    rendered = helm.render(self.root, chart, variant, defines, rel)
                except ValueError as exc:
                    failures = [f"Helm template: {exc}"] * len(variants)
                    break
                why = _yaml_problem(rendered)
                if why is not None:
                    failures.append(f"Helm template: renders to YAML that does not parse with the values "
                                    f"{variant.label}: {why}")
                    continue
                start = len(self.units)
                maybe: dict[int, set[str]] = {}   # unit index -> its variables that may be unset
                anchor: dict[int, int] = {}   # unit index -> the template line of its document's ``kind:``
                for doc, lines in documents(rendered.text):
                    if not isinstance(doc, dict):
                        continue
                    before = len(self.units)
                    self._variant, self._template, self._chart_folder = variant, template, installed.folder
                    self._doc(helm.unknowns_shown(doc), rel, {
                        key: rendered.source_lines[line - 1] for key, line in lines.items()
                        if 0 < line <= len(rendered.source_lines)})
                    self._variant = None
                    for index in range(before, len(self.units)):
                        maybe[index] = _conditional_env(doc, lines, rendered.conditional)
                        anchor[index] = rendered.source_lines[lines["kind"] - 1] if 0 < lines.get("kind", 0) <= len(
                            rendered.source_lines) else 0
                self._variant, self._chart_folder = variant, installed.folder
                for name, keys in _conditional_data(rendered):
                    table = self.config_maps.setdefault(self._config_map(name), {})
                    for key, values in keys.items():
                        table.setdefault(key, [])
                        table[key] += [v for v in dict.fromkeys([*values, "{?}"]) if v not in table[key]]
                self._variant = None
                # one document of the template in each set: the same ``kind:`` line of the template (a set that
                # leaves out a document under an ``if`` moves the others' places), the n-th from it (a ``range``)
                counts: dict[tuple[str, int], int] = {}
                for index in range(start, len(self.units)):
                    unit, line = self.units[index], anchor.get(index, 0)
                    counts[unit.kind, line] = counts.get((unit.kind, line), -1) + 1
                    groups.setdefault((unit.kind, line, counts[unit.kind, line]), []).append(
                        (unit, maybe.get(index, set())))
                if len(self.units) > start and rel not in self.files:
                    self.files.append(rel)
            for group in groups.values():
                _one_environment(group)
            if failures and len(failures) == len(variants):
                self.unreadable[rel] = failures[0]
        for child in (c for c in charts if c.parent is chart):
            self._chart(child, [helm.subchart_values(self.root, v, child) for v in variants
                                if helm.enabled(chart, child, v.values) is not False], charts)

    def _terraform(self, paths: list[str]) -> None:
        """Each container resource of the Terraform files (`terraform.read_terraform`) as a unit: its names and
        images, the values the files fix as its environment, and every value as written with its ``file:line``."""
        for resource in read_terraform(self.root, paths):
            kind = resource.address.split(".", 1)[0]
            unit = Unit("terraform", resource.names[0] if resource.names else resource.address, resource.file,
                        names=[(name, f"Terraform {kind}") for name in resource.names], images=resource.images)
            for entry in resource.env:
                if entry.value is not None:
                    unit.env.setdefault(entry.name, []).append(entry.value)
                unit.value_notes.append(f"Terraform {resource.address} env {_terraform_value(entry)} "
                                        f"{_at(entry.file, entry.line)}")
            self.units.append(unit)
            self.files += [resource.file] + [e.file for e in resource.env if e.file != resource.file]

    def _config_map(self, name: str) -> str:
        """A ConfigMap's name as the table of ConfigMaps keys it: one a chart renders with a part not known (the
        release name, ``{?}-config``) is that release's own (the chart's and its subcharts'), never another chart's
        of the same unknown name."""
        return f"{name} of the chart {self._chart_folder}" if self._variant is not None and "{?}" in name else name

    def _values_note(self, line: int | None, redact: bool = False) -> str:
        """Which Helm values a rendered entry comes from: the set, and where each ``.Values`` its template line
        reads is written (``; .Values.serviceuri.package from --set serviceuri.package at deployment.md:315``);
        ``redact``: a Secret's line, whose ``--set`` text and shell assignments are the secret (`secrets`)."""
        if self._variant is None:
            return ""
        read = re.findall(r"\.Values\.([\w.]+)", self._template[line - 1]) if line and line <= len(
            self._template) else []
        return f" with the Helm values {self._variant.label}" + "".join(
            f"; .Values.{path} from {self._variant.origin(path, redact=redact)}" for path in dict.fromkeys(read))

    def _doc(self, doc: dict, rel: str, lines: dict[str, int]) -> None:
        kind = doc.get("kind")
        if isinstance(doc.get("include"), list) and kind is None:
            self.compose_includes[rel] = compose_includes(doc["include"], rel)
        if isinstance(doc.get("services"), dict) and kind is None:
            self._compose(doc["services"], rel, lines)
        elif kind in WORKLOADS:
            self._workload(doc, rel, lines)
        elif kind == "Service":
            meta = doc.get("metadata") or {}
            spec = doc.get("spec") or {}
            if isinstance(meta, dict) and isinstance(meta.get("name"), str):
                unit = Unit("k8s-service", meta["name"], rel, names=[(meta["name"], "Kubernetes Service")])
                selector = spec.get("selector") if isinstance(spec, dict) else None
                unit.selector = {str(k): str(v) for k, v in selector.items()} if isinstance(selector, dict) else {}
                written = str(meta.get("namespace") or "")   # a template's {{ .Release.Namespace }}: not known
                unit.namespace = written if re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", written, re.I) else None
                for number, port in enumerate(spec.get("ports") or [] if isinstance(spec, dict) else []):
                    at = _at(rel, lines.get(f"spec.ports[{number}]"))
                    if isinstance(port, dict) and isinstance(port.get("port"), int):
                        unit.ports.append(port["port"])
                        target = f" (target port {port['targetPort']})" if port.get("targetPort") else ""
                        unit.port_notes.append(f"Kubernetes Service {meta['name']} port {port['port']}{target} {at}")
                    if isinstance(port, dict) and isinstance(port.get("nodePort"), int):
                        unit.published.append(port["nodePort"])
                        unit.port_notes.append(f"published at node port {port['nodePort']} {at}")
                self.units.append(unit)
        elif kind == "ConfigMap":
            meta, data = doc.get("metadata") or {}, doc.get("data") or {}
            if isinstance(meta, dict) and isinstance(meta.get("name"), str) and isinstance(data, dict):
                self._read_docs += 1
                table = self.config_maps.setdefault(self._config_map(meta["name"]), {})
                files = self.config_map_files.setdefault(self._config_map(meta["name"]), [])
                files += [rel] if rel not in files else []
                for key, raw in data.items():
                    value = _scalar(raw)
                    if value is not None and value not in table.setdefault(str(key), []):
                        table[str(key)].append(value)
        elif kind == "KafkaTopic":
            self._topics(kafka_topics.from_strimzi(doc, _at(rel, lines.get("metadata.name"))))
        elif kind == "Secret":
            self._secret(doc, rel, lines)
        elif kind == "SecretProviderClass":
            self._secret_provider(doc, rel, lines)
        elif str(doc.get("apiVersion", "")).startswith("skaffold/"):
            build = doc.get("build") or {}
            base = PurePosixPath(rel).parent
            for artifact in build.get("artifacts") or [] if isinstance(build, dict) else []:
                if isinstance(artifact, dict) and isinstance(artifact.get("image"), str):
                    folder = _folder(base, str(artifact.get("context") or "."))
                    docker = artifact.get("docker")
                    dockerfile = docker.get("dockerfile") if isinstance(docker, dict) else None
                    if isinstance(dockerfile, str):
                        self.artifact_dockerfiles[_image_name(artifact["image"])] = _folder(
                            PurePosixPath("" if folder == "." else folder), dockerfile)
                        folder = _dockerfile_folder(folder, dockerfile)
                    jib = artifact.get("jib")
                    project = jib.get("project") if isinstance(jib, dict) else None
                    if isinstance(project, str) and project.strip() and ":" not in project:
                        folder = _folder(PurePosixPath(folder), project)   # a Jib module of a multi-module build
                    self.artifacts[_image_name(artifact["image"])] = folder

    def _topics(self, found: dict[str, str]) -> None:
        for topic, note in found.items():
            notes = self.topics.setdefault(topic, [])
            notes += [note] if note not in notes else []

    def _secret(self, doc: dict, rel: str, lines: dict[str, int]) -> None:
        """A Secret's keys: each one's value as written (``data`` decoded where it is base64 text) and where, with the
        Helm values its template line reads (the ``--set`` and the shell assignment that fill them)."""
        meta = doc.get("metadata") or {}
        if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
            return
        self._read_docs += 1
        name = self._config_map(meta["name"])
        self.secrets.setdefault(name, {})   # written, whether or not these values give it a key
        files = self.secret_files.setdefault(name, [])
        files += [rel] if rel not in files else []
        for section in ("data", "stringData"):
            data = doc.get(section)
            for key, raw in (data.items() if isinstance(data, dict) else []):
                value = _scalar(raw)
                if value is None:
                    continue
                literal = value if section == "stringData" else _base64_text(value)
                address = secret_store_value(literal) if literal is not None and "{?}" not in literal else None
                line = lines.get(f"{section}.{key}")
                self.secrets.setdefault(name, {}).setdefault(str(key), []).append(
                    f"Secret {meta['name']} {section} {key}={address or ('{?}' if value == '{?}' else REDACTED)} "
                    f"{_at(rel, line)}"
                    + self._values_note(line, redact=True))
                if address is not None:   # a URL's host, port and path link the service; the rest is the secret
                    known = self.secret_values.setdefault(name, {}).setdefault(str(key), [])
                    known += [address] if address not in known else []

    def _secret_provider(self, doc: dict, rel: str, lines: dict[str, int]) -> None:
        """A CSI ``SecretProviderClass``'s ``secretObjects``: each Secret key it syncs from an object of the secret
        store (Azure Key Vault, AWS Secrets Manager, Vault ...), named as the store names it."""
        meta, spec = doc.get("metadata") or {}, doc.get("spec") or {}
        if not isinstance(meta, dict) or not isinstance(spec, dict):
            return
        self._read_docs += 1
        provider = spec.get("provider") or "?"
        for number, synced in enumerate(spec.get("secretObjects") or []):
            if not isinstance(synced, dict) or not isinstance(synced.get("secretName"), str):
                continue
            files = self.secret_files.setdefault(self._config_map(synced["secretName"]), [])
            files += [rel] if rel not in files else []
            for index, item in enumerate(synced.get("data") or []):
                if not isinstance(item, dict) or item.get("key") is None or item.get("objectName") is None:
                    continue
                line = lines.get(f"spec.secretObjects[{number}].data[{index}]")
                self.secrets.setdefault(self._config_map(synced["secretName"]), {}).setdefault(
                    str(item["key"]), []).append(
                    f"Secret {synced['secretName']} key {item['key']} synced by the SecretProviderClass "
                    f"{meta.get('name')} from the {provider} secret store's object {item['objectName']} "
                    f"{_at(rel, line)}")

    def _compose(self, services: dict, rel: str, lines: dict[str, int]) -> None:
        base = PurePosixPath(rel).parent
        dotenv = self.dotenv.get(base.as_posix(), {})

        def interpolate(value: str) -> str:
            return compose_interpolate(value, dotenv)

        sidecars: list[tuple[str, str, str]] = []   # (the service whose network a sidecar shares, app-id, source)
        first = len(self.units)
        for key, spec in services.items():
            if not isinstance(spec, dict):
                continue
            unit = Unit("compose", str(key), rel, names=[(str(key), "docker-compose service")])
            build = spec.get("build")
            context = build.get("context", ".") if isinstance(build, dict) else build
            if isinstance(context, str) and "://" not in context:
                unit.build = _folder(base, interpolate(context))
                dockerfile = build.get("dockerfile", "Dockerfile") if isinstance(build, dict) else "Dockerfile"
                if isinstance(dockerfile, str) and unit.build is not None:
                    unit.dockerfile = _folder(PurePosixPath("" if unit.build == "." else unit.build),
                                              interpolate(dockerfile))
                    unit.build = _dockerfile_folder(unit.build, interpolate(dockerfile))
            if isinstance(spec.get("image"), str):
                unit.images.append(interpolate(spec["image"]))
            unit.command = (first_argument(command_words(spec.get("entrypoint")), True)
                            or first_argument(command_words(spec.get("command")), False))
            _command_profiles(unit, command_words(spec.get("entrypoint")) + command_words(spec.get("command")))
            app_id = dapr_app_id([interpolate(w) for w in
                                  command_words(spec.get("entrypoint")) + command_words(spec.get("command"))])
            if app_id:
                shared = _network_service(spec.get("network_mode"))
                named = f"Dapr app-id (docker-compose service {key} command)"
                if shared is None:
                    unit.names.append((app_id, named))
                else:   # a sidecar in the app's network namespace: the app-id is the app's
                    sidecars.append((shared, app_id, named))
            if isinstance(spec.get("working_dir"), str):
                unit.workdir = _mounted_folder(base, interpolate(spec["working_dir"]), spec.get("volumes"))
            args = build.get("args") if isinstance(build, dict) else None
            if unit.workdir is None and args and unit.dockerfile and unit.build is not None:
                given = {str(k): interpolate(str(v)) for k, v in args.items() if v is not None} if isinstance(
                    args, dict) else dict(str(a).partition("=")[::2] for a in args if "=" in str(a))
                context = _folder(base, interpolate(build.get("context", ".")))
                unit.workdir = _copied_folder(context, _read(self.root / unit.dockerfile), given)
            for source in ("container_name", "hostname"):
                if isinstance(spec.get(source), str):
                    unit.names.append((interpolate(spec[source]), f"docker-compose {source}"))
            env = spec.get("environment")
            pairs: list[tuple[str, str | None, str]] = []   # (name, value as written, where)
            if isinstance(env, dict):
                pairs = [(str(k), _scalar(v), _at(rel, lines.get(f"services.{key}.environment.{k}")))
                         for k, v in env.items()]
            elif isinstance(env, list):
                pairs = [(str(item).partition("=")[0], str(item).partition("=")[2] if "=" in str(item) else None,
                          _at(rel, lines.get(f"services.{key}.environment[{number}]")))
                         for number, item in enumerate(env)]
            for name, value, at in pairs:
                unit.value_notes.append(_value_note(f"docker-compose service {key} environment", name, value,
                                                    dotenv, at))
            for files in [spec.get("env_file")] if isinstance(spec.get("env_file"), str) else spec.get("env_file") or []:
                if isinstance(files, dict):   # the long form: {path: ..., required: false}
                    files = files.get("path")
                if isinstance(files, str):
                    path = _folder(base, files)
                    text = _read(self.root / path)
                    values = read_env_lines(text)
                    pairs += [(name, value, _at(path, line)) for name, (value, line) in values.items()]
                    unit.value_notes += [f"docker-compose service {key} env_file {files}: {name}={shown} "
                                         f"{_at(path, line)}" for name, (shown, line) in noted_env_lines(text).items()]
                    if values:
                        self.files.append(path)
            for name, value, at in pairs:
                if name == kafka_topics.CREATE_TOPICS and value:
                    self._topics(kafka_topics.from_create_topics(interpolate(value),
                                                                 f"(docker-compose service {key}) {at}"))
            for source in ("command", "entrypoint"):
                self._topics(kafka_topics.from_command(spec.get(source), f"(docker-compose service {key} {source}) "
                                                       f"{_at(rel, lines.get(f'services.{key}.{source}'))}"))
            for name, value, _ in pairs:
                if value is None:   # a bare name: Compose passes on its value from the environment (.env)
                    value = dotenv.get(name)
                if value is not None:
                    unit.env.setdefault(name, []).append(interpolate(value))
            labels = spec.get("labels")
            written = ([(str(k), _scalar(v), lines.get(f"services.{key}.labels.{k}")) for k, v in labels.items()]
                       if isinstance(labels, dict) else
                       [(*str(item).partition("=")[::2], lines.get(f"services.{key}.labels[{number}]"))
                        for number, item in enumerate(labels)] if isinstance(labels, list) else [])
            for name, value, line in written:
                unit.value_notes.append(_value_note(f"docker-compose service {key} label", name, value or "", dotenv,
                                                    _at(rel, line)))
            for number, port in enumerate(spec.get("ports") or []):   # "HOST:CONTAINER", "IP:HOST:CONTAINER", "CONTAINER"
                if isinstance(port, dict):   # the long form
                    host, container = (interpolate(str(port.get(key, ""))) for key in ("published", "target"))
                else:
                    parts = interpolate(str(port)).split("/", 1)[0].split(":")
                    host, container = (parts[-2] if len(parts) >= 2 else ""), parts[-1]
                if host.isdigit():
                    unit.published.append(int(host))
                if container.isdigit():
                    unit.ports.append(int(container))
                at = _at(rel, lines.get(f"services.{key}.ports[{number}]"))
                if host.isdigit() or container.isdigit():
                    written = "" if isinstance(port, dict) else f" {port}"
                    unit.port_notes.append(f"docker-compose service {key} ports{written}: " + (
                        f"published at host port {host} (container port {container or '?'})" if host.isdigit()
                        else f"container port {container}, not published") + f" {at}")
            self.units.append(unit)
        for shared, app_id, named in sidecars:
            for unit in self.units[first:]:
                if unit.name == shared:
                    unit.names.append((app_id, named))

    def _workload(self, doc: dict, rel: str, lines: dict[str, int]) -> None:
        meta = doc.get("metadata") or {}
        if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
            return
        unit = Unit("workload", meta["name"], rel, names=[(meta["name"], f"Kubernetes {doc['kind']}")])
        spec: Any = doc.get("spec") or {}
        if doc["kind"] == "CronJob":
            spec = ((spec.get("jobTemplate") or {}).get("spec") or {}) if isinstance(spec, dict) else {}
        template = spec.get("template") if isinstance(spec, dict) and doc["kind"] != "Pod" else {"spec": spec,
                                                                                              "metadata": meta}
        template = template if isinstance(template, dict) else {}
        labels = (template.get("metadata") or {}).get("labels") if isinstance(template.get("metadata"), dict) else None
        unit.labels = {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}
        notes = (template.get("metadata") or {}).get("annotations") if isinstance(template.get("metadata"), dict) \
            else None
        if isinstance(notes, dict) and isinstance(notes.get("dapr.io/app-id"), str) and notes["dapr.io/app-id"]:
            unit.names.append((notes["dapr.io/app-id"], f"Dapr app-id (dapr.io/app-id annotation of {meta['name']})"))
        pod = template.get("spec") or {}
        prefix = {"Pod": "spec", "CronJob": None}.get(doc["kind"], "spec.template.spec")
        for number, container in enumerate(pod.get("containers") or [] if isinstance(pod, dict) else []):
            if isinstance(container, dict) and unit.command is None:
                unit.command = (first_argument(command_words(container.get("command")), True)
                                or first_argument(command_words(container.get("args")), False))
            if isinstance(container, dict):
                _command_profiles(unit, command_words(container.get("command")) + command_words(container.get("args")))
            if not isinstance(container, dict):
                continue
            if isinstance(container.get("image"), str):
                unit.images.append(container["image"])
            for source in ("command", "args"):
                self._topics(kafka_topics.from_command(container.get(source), f"(Kubernetes {doc['kind']} "
                                                       f"{meta['name']} {source}) " + _at(rel, lines.get(
                                                           f"{prefix}.containers[{number}].{source}") if prefix
                                                           else None)))
            for index, item in enumerate(container.get("env") or []):
                if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                    continue
                value = _scalar(item.get("value"))
                if item["name"] == kafka_topics.CREATE_TOPICS and value:
                    self._topics(kafka_topics.from_create_topics(value, f"(Kubernetes {doc['kind']} {meta['name']}) "
                                                                 + _at(rel, lines.get(
                                                                     f"{prefix}.containers[{number}].env[{index}]")
                                                                     if prefix else None)))
                ref = ((item.get("valueFrom") or {}).get("configMapKeyRef") or {}) if isinstance(
                    item.get("valueFrom"), dict) else {}
                at = _at(rel, lines.get(f"{prefix}.containers[{number}].env[{index}]") if prefix else None)
                if value is not None:
                    unit.value_notes.append(f"Kubernetes {doc['kind']} {meta['name']} env {item['name']}={value} {at}"
                                            + self._values_note(lines.get(
                                                f"{prefix}.containers[{number}].env[{index}].value")))
                if value is None and isinstance(ref, dict) and ref.get("name") and ref.get("key"):
                    value = f"\x00configmap:{self._config_map(str(ref['name']))}:{ref['key']}"
                    unit.value_notes.append(f"Kubernetes {doc['kind']} {meta['name']} env {item['name']} from "
                                            f"ConfigMap {ref['name']} key {ref['key']} {at}")
                secret = ((item.get("valueFrom") or {}).get("secretKeyRef") or {}) if isinstance(
                    item.get("valueFrom"), dict) else {}
                if value is None and isinstance(secret, dict) and secret.get("name") and secret.get("key"):
                    value = f"\x00secret:{self._config_map(str(secret['name']))}:{secret['key']}"
                    unit.secret_refs.append((len(unit.value_notes), self._config_map(str(secret["name"])),
                                             str(secret["key"])))
                    unit.value_notes.append(f"Kubernetes {doc['kind']} {meta['name']} env {item['name']} from "
                                            f"Secret {secret['name']} key {secret['key']} {at}")
                if value is not None:
                    unit.env.setdefault(item["name"], []).append(value)
            for index, source in enumerate(container.get("envFrom") or []):
                ref = source.get("configMapRef") if isinstance(source, dict) else None
                if isinstance(ref, dict) and isinstance(ref.get("name"), str):
                    unit.env_from.append(self._config_map(ref["name"]))
                ref = source.get("secretRef") if isinstance(source, dict) else None
                if isinstance(ref, dict) and isinstance(ref.get("name"), str):
                    at = _at(rel, lines.get(f"{prefix}.containers[{number}].envFrom[{index}]") if prefix else None)
                    unit.secret_refs.append((len(unit.value_notes), self._config_map(ref["name"]), None))
                    unit.value_notes.append(f"Kubernetes {doc['kind']} {meta['name']} envFrom Secret {ref['name']} "
                                            f"{at}")
            for index, port in enumerate(container.get("ports") or []):
                at = _at(rel, lines.get(f"{prefix}.containers[{number}].ports[{index}]") if prefix else None)
                if isinstance(port, dict) and isinstance(port.get("containerPort"), int):
                    unit.ports.append(port["containerPort"])
                    unit.port_notes.append(f"Kubernetes {doc['kind']} {meta['name']} container port "
                                           f"{port['containerPort']} {at}")
                if isinstance(port, dict) and isinstance(port.get("hostPort"), int):
                    unit.published.append(port["hostPort"])
                    unit.port_notes.append(f"published at host port {port['hostPort']} {at}")
        self.units.append(unit)


#: the flags that give a Dapr sidecar (``daprd -app-id x``) or ``dapr run --app-id x`` its app-id
_APP_ID_FLAGS = ("--app-id", "-app-id")


def dapr_app_id(words: list[str]) -> str | None:
    """The Dapr app-id a command gives (``daprd -app-id x``, ``dapr run --app-id x -- ...``, ``dapr run -a x``,
    ``--app-id=x``), None when it runs no Dapr program or names none."""
    programs = [i for i, word in enumerate(words) if PurePosixPath(word).name in ("daprd", "dapr")]
    if not programs:
        return None
    rest = words[programs[0] + 1:]
    short = PurePosixPath(words[programs[0]]).name == "dapr" and rest[:1] == ["run"]
    for index, word in enumerate(rest):
        if word == "--":
            break
        flag, equals, value = word.partition("=")
        if flag in _APP_ID_FLAGS or short and flag == "-a":
            found = value if equals else (rest[index + 1] if index + 1 < len(rest) else "")
            return found or None
    return None


def _network_service(mode: Any) -> str | None:
    """The Compose service whose network namespace ``network_mode: "service:x"`` shares, else None."""
    return mode[len("service:"):] if isinstance(mode, str) and mode.startswith("service:") else None


def _conditional_env(doc: dict, lines: dict[str, int], conditional: set[int]) -> set[str]:
    """The variables a rendered workload sets on lines written under an ``if`` whose condition is not known."""
    out: set[str] = set()
    if not conditional:
        return out
    for key, line in lines.items():
        if line in conditional and re.search(r"containers\[\d+\]\.env\[\d+\](\.value)?$", key):
            item: Any = doc   # the variable, or its value (two ``value:`` keys an unknown ``if`` writes: YAML keeps one)
            for part in re.findall(r"[^.\[\]]+|\[\d+\]", key.removesuffix(".value")):
                item = (item[int(part[1:-1])] if isinstance(item, list) and int(part[1:-1]) < len(item) else None) \
                    if part.startswith("[") else (item.get(part) if isinstance(item, dict) else None)
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                out.add(item["name"])
    return out


def _conditional_data(rendered: helm.Rendered) -> list[tuple[str, dict[str, list[str]]]]:
    """Each ConfigMap's keys a rendered template writes under an ``if`` whose condition is not known, with the value
    each branch gives (a key two branches write is written twice in one mapping, and YAML keeps only the last):
    each is one of its values, and it may be another or unset."""
    out: list[tuple[str, dict[str, list[str]]]] = []
    if not rendered.conditional:
        return out
    try:
        nodes = list(yaml.compose_all(rendered.text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return out

    def field(node: Any, name: str) -> Any:
        return next((v for k, v in node.value if k.value == name), None) if isinstance(node, yaml.MappingNode) else None
    for node in nodes:
        kind, name, data = field(node, "kind"), field(field(node, "metadata"), "name"), field(node, "data")
        if not (isinstance(kind, yaml.ScalarNode) and kind.value == "ConfigMap" and isinstance(name, yaml.ScalarNode)
                and isinstance(data, yaml.MappingNode)):
            continue
        keys: dict[str, list[str]] = {}
        for key, value in data.value:
            if key.start_mark.line + 1 in rendered.conditional and isinstance(value, yaml.ScalarNode):
                keys.setdefault(helm.unknowns_shown(str(key.value)), []).append(helm.unknowns_shown(value.value))
        if keys:
            out.append((helm.unknowns_shown(name.value), keys))
    return out


def _yaml_problem(rendered: helm.Rendered) -> str | None:
    """Why a rendered template is not YAML (the template's line), or None."""
    try:
        for _ in yaml.safe_load_all(rendered.text):
            pass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = rendered.source_lines[min(mark.line, len(rendered.source_lines) - 1)] if mark is not None else None
        return f"{exc.problem or exc.context}" + (f" at template line {line}" if line else "")
    except yaml.YAMLError as exc:
        return str(exc).splitlines()[0]
    return None


def _one_environment(group: list[tuple[Unit, set[str]]]) -> None:
    """The units one chart document gives with each set of values share one environment (see `Reader._chart`)."""
    names = {name for unit, _ in group for name in unit.env}
    for name in names:
        values = list(dict.fromkeys(v for unit, _ in group for v in unit.env.get(name, [])))
        if any(name in maybe for _, maybe in group) and "{?}" not in values:
            values.append("{?}")
        for unit, _ in group:
            unit.env[name] = list(values)


def _terraform_value(entry: EnvEntry) -> str:
    """``NAME=written (= value)``, or what the value waits for: the root module's variables, a module output."""
    written = f"{entry.name}={entry.written or chr(34) * 2}"
    if entry.value is not None:
        return written + (f" (= {entry.value})" if entry.value != entry.written else "")
    if entry.sensitive:
        return f"{written} (the sensitive Terraform variable {entry.sensitive}: its value is not shown)"
    if entry.needs:
        plural = "s" if "," in entry.needs else ""
        return f"{written} (the Terraform variable{plural} {entry.needs}, given when it is applied)"
    return f"{written} (known when Terraform applies it" + (f": {entry.output})" if entry.output else ")")


def _at(rel: str, line: int | None) -> str:
    return f"({rel}:{line})" if line else f"({rel})"


def _value_note(unit: str, name: str, value: str | None, dotenv: dict[str, str], at: str) -> str:
    """``unit NAME=VALUE (file:line)``: the value as written, then as Compose settles it from the ``.env`` when
    that differs; a bare name is passed on from the environment Compose runs in (set at run time)."""
    if value is None:
        written = dotenv.get(name)
        if written is None:
            return f"{unit} {name} (set at run time) {at}"
        settled = compose_interpolate(written, dotenv)   # a .env value naming another of its variables
        return f"{unit} {name} = {env_note_value(written, settled)} (from .env) {at}"
    settled = compose_interpolate(value, dotenv)
    shown = settled.replace("{?}", "<set at run time>") or '""'
    return f"{unit} {name}={value} " + (f"(= {shown}) " if settled != value else "") + at


def _folder(base: PurePosixPath, rel: str) -> str:
    joined = PurePosixPath(base, rel.strip().removeprefix("./")).as_posix()
    parts: list[str] = []
    for part in joined.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/".join(parts) or "."


def _mounted_folder(base: PurePosixPath, workdir: str, volumes: Any) -> str | None:
    """The folder of the tree a container's working directory is: the host side of the bind mount whose
    container path holds it (``./internal:/internal`` with ``working_dir: /internal/trainer`` runs in
    ``internal/trainer``; the longest container path wins). None when no mount of the tree holds it."""
    best: tuple[int, str] | None = None
    for volume in volumes if isinstance(volumes, list) else []:
        if isinstance(volume, str):
            parts = volume.split(":")
            host, target = (parts[0], parts[1]) if len(parts) >= 2 else ("", "")
        elif isinstance(volume, dict) and volume.get("type", "bind") == "bind":
            host, target = str(volume.get("source", "")), str(volume.get("target", ""))
        else:
            continue
        target = target.rstrip("/") or "/"
        if not host.startswith((".", "/")) or host.startswith("/") or not target.startswith("/"):
            continue   # a named volume, an absolute host path: no folder of the tree
        if workdir.rstrip("/") == target or workdir.startswith(target.rstrip("/") + "/"):
            if best is None or len(target) > best[0]:
                best = (len(target), _folder(base, host + "/" + workdir[len(target):].strip("/")))
    return best[1] if best is not None and not best[1].startswith("..") else None


_ARG_REF = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def _copied_folder(context: str, dockerfile: str, args: dict[str, str]) -> str | None:
    """The folder of the tree a generic image picks by a build argument the unit gives: a stage's final
    ``WORKDIR`` written with that argument (``WORKDIR /internal/$SERVICE``, ``build.args: {SERVICE: trainer}``)
    inside the container path a ``COPY``/``ADD`` of the build context puts it at (``COPY . /internal``). None when
    no given argument picks the working directory, a value is not known, or no copy of the context holds it."""
    values: dict[str, str] = {}
    workdir, copies, picked = "/", [], False

    def expand(word: str) -> str | None:
        names = [m.group(1) or m.group(2) for m in _ARG_REF.finditer(word)]
        if any(n not in values for n in names):
            return None
        return _ARG_REF.sub(lambda m: values[m.group(1) or m.group(2)], word)

    def folder() -> str | None:
        for source, target in reversed(copies) if picked else []:
            if workdir.rstrip("/") == target or workdir.startswith(target.rstrip("/") + "/"):
                inside = _folder(PurePosixPath("" if context == "." else context), source)
                return _folder(PurePosixPath("" if inside == "." else inside), workdir[len(target):].strip("/") or ".")
        return None

    found = None
    for line in re.sub(r"\\\s*\n", " ", dockerfile).splitlines():
        words = line.strip().split()
        op = words[0].upper() if words else ""
        if op == "FROM":   # a stage (a build stage picks the module; the last stage may only copy its binary)
            found = folder() or found
            values, workdir, copies, picked = {}, "/", [], False
        elif op == "ARG" and len(words) > 1:
            name, _, default = words[1].partition("=")
            if name in args or default:
                values[name] = args.get(name, default.strip("\"'"))
        elif op == "WORKDIR" and len(words) == 2:
            expanded = expand(words[1])
            if expanded is None:
                workdir, picked = "/", False   # not known here: this stage picks nothing
                continue
            named = any((m.group(1) or m.group(2)) in args for m in _ARG_REF.finditer(words[1]))
            picked = named or (picked and not expanded.startswith("/"))   # a relative WORKDIR keeps the pick
            workdir = expanded if expanded.startswith("/") else f"{workdir.rstrip('/')}/{expanded}"
        elif op in ("COPY", "ADD") and not any(w.startswith("--from") for w in words):   # not another stage's
            plain = [w for w in words[1:] if not w.startswith("--")]
            if len(plain) != 2:
                continue
            source, target = expand(plain[0]), expand(plain[1])
            if source is not None and target is not None:
                target = target if target.startswith("/") else f"{workdir.rstrip('/')}/{target}"
                copies.append((source, target.rstrip("/") or "/"))
    return folder() or found


def _dockerfile_folder(context: str, dockerfile: str) -> str:
    """The folder a unit is built from when its Dockerfile lies below its build context (``context: .`` with
    ``dockerfile: src/cart/Dockerfile`` builds ``src/cart``: the context is only the files the build may copy)."""
    folder = _folder(PurePosixPath("" if context == "." else context), dockerfile).rpartition("/")[0]
    return folder if folder and (context == "." or folder.startswith(context + "/")) else context


def _k8s_env_values(value: str, config_maps: dict[str, dict[str, list[str]]],
                    secrets: dict[str, dict[str, list[str]]]) -> list[str]:
    """A workload's env value: its ConfigMap's or Secret's key's values (a Secret's literal ones only), else itself."""
    for marker, table in (("\x00configmap:", config_maps), ("\x00secret:", secrets)):
        if value.startswith(marker):
            name, _, key = value[len(marker):].rpartition(":")
            return table.get(name, {}).get(key, [])
    return [value]


def _base64_text(value: str) -> str | None:
    """A Secret's ``data`` value decoded to text, or None where it is no base64 of UTF-8 text (a template's
    ``{?}``)."""
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def _with_secrets(unit: Unit, secrets: dict[str, dict[str, list[str]]], files: dict[str, list[str]]) -> list[str]:
    """The unit's value notes, each that reads a Secret followed by where the Secret's key is written (every place:
    each is one of its values); an ``envFrom`` Secret gives one note per key. A Secret no file writes is made at
    deploy time; one written without that key (an ``if`` its values leave out) says so."""
    notes = list(unit.value_notes)
    for index, name, key in reversed(unit.secret_refs):
        keys = secrets.get(name, {})
        found = keys.get(key, []) if key is not None else [line for lines in keys.values() for line in lines]
        if name not in secrets and name not in files:
            notes[index] += "; no Secret of that name is written in the project (made at deploy time)"
        elif not found:
            notes[index] += (f"; the Secret written in {', '.join(files.get(name, []))} gives "
                             + (f"no key {key}" if key is not None else "no key") + " with the values it is rendered with")
        elif key is not None:
            notes[index] += "; " + "; ".join(dict.fromkeys(found))
        else:
            notes[index + 1:index + 1] = [f"{notes[index].rsplit(' (', 1)[0]}: {line}" for line in dict.fromkeys(found)]
    return notes


def read_deployment(layout: Layout, root: Path, paths: list[str]) -> Deployment:
    """The project's deployment (see the module docstring) from the deployment files at ``paths``."""
    reader = Reader(root)
    reader.read(paths)
    out = Deployment(files=sorted(set(reader.files)), unreadable=reader.unreadable, topics=reader.topics)
    own_names: dict[str, set[str]] = {}
    for name, service in layout.services.items():
        folder = service.root.rsplit("/", 1)[-1] if service.root != "." else root.name
        for alias in (name, folder, *service.declared_names.values()):
            own_names.setdefault(alias.lower(), set()).add(name)

    def by_folder(folder: str) -> str | None:
        path = folder if folder != "." else ""
        module = layout.module_of(path + "/x") if path else "."
        found = layout.modules.get(module)
        if found is None:
            return None
        service = layout.services.get(found.microservice)
        if (module != (path or ".") or module == ".") and service is not None and not service.deployable:
            # the unit's folder holds no module of its own (or is the root, its Dockerfile named by a variable),
            # and the module around it deploys nothing: the unit is no alias of it
            return None
        return found.microservice

    def by_name(name: str) -> str | None:
        found = own_names.get(name.lower(), set())
        return next(iter(found)) if len(found) == 1 else None

    entry = {built_by: module.microservice for module in layout.modules.values() for built_by in module.built_by}
    owner: dict[int, str] = {}
    for index, unit in enumerate(reader.units):
        if unit.kind == "k8s-service":
            continue
        service = entry.get(unit.dockerfile) or layout.subcommands.get(unit.command or "")
        if service is None and unit.workdir in layout.modules and _runs_its_folder(root, layout, unit.workdir):
            # it runs a module's own folder (a shared image)
            service = layout.modules[unit.workdir].microservice or None
            out.started |= {service} if service else set()
        service = service or (by_folder(unit.build) if unit.build else None)
        for image in unit.images:   # an entry point's image (ko://..., a Skaffold artifact's Dockerfile)
            if service is None:
                service = entry.get(image) or entry.get(reader.artifact_dockerfiles.get(_image_name(image)))
            if service is None and _image_name(image) in reader.artifacts:
                service = by_folder(reader.artifacts[_image_name(image)])
        if service is None:
            service = by_name(unit.name) or next((s for s in (by_name(_image_name(i)) for i in unit.images) if s),
                                                 None)
        if service is not None:
            owner[index] = service
    _merged_compose(reader.units, owner, reader.compose_includes)
    for index, unit in enumerate(reader.units):
        if unit.kind != "k8s-service":
            continue
        out.k8s_namespaces.setdefault(unit.name.lower(), set()).add(unit.namespace)
        picked = {owner[i] for i, other in enumerate(reader.units) if i in owner and other.kind == "workload"
                  and unit.selector and all(other.labels.get(k) == v for k, v in unit.selector.items())}
        service = next(iter(picked)) if len(picked) == 1 else (by_name(unit.name) if not picked else None)
        if service is not None:
            owner[index] = service
    out.run = set(owner.values())
    out.unit_names = {name.lower() for unit in reader.units for name, _ in unit.names if "{?}" not in name}
    out.unowned = {unit.name: unit.file for index, unit in enumerate(reader.units) if index not in owner and (
        unit.build or any(_image_name(i) in reader.artifacts for i in unit.images))}   # built from a folder here
    for index, service in owner.items():
        unit = reader.units[index]
        names = out.names.setdefault(service, {})
        for name, source in unit.names:
            if "{?}" not in name:
                names.setdefault(name, source)
        for image in unit.images:
            names.setdefault(_image_name(image), "container image")
        out.ports.setdefault(service, set()).update(unit.ports)
        notes = out.port_notes.setdefault(service, [])
        notes += [note for note in unit.port_notes if note not in notes]
        out.published.setdefault(service, set()).update(unit.published)
        values = out.value_notes.setdefault(service, [])
        values += [note for note in _with_secrets(unit, reader.secrets, reader.secret_files) if note not in values]
        env = out.env.setdefault(service, {})
        for name, values in unit.env.items():
            for value in values:
                for settled in _k8s_env_values(value, reader.config_maps, reader.secret_values):
                    if settled not in env.setdefault(name, []):
                        env[name].append(settled)
        for config_map in unit.env_from:
            at = ", ".join(reader.config_map_files.get(config_map, []))
            for name, values in reader.config_maps.get(config_map, {}).items():
                for value in values:
                    if value not in env.setdefault(name, []):
                        env[name].append(value)
                    note = f"Kubernetes {unit.name} envFrom ConfigMap {config_map} {name}={value} ({at})"
                    out.value_notes[service] += [note] if note not in out.value_notes[service] else []
    for name, service in layout.services.items():   # the service's own .env (its dotenv or tooling reads it)
        if service.root != "." and service.root in reader.dotenv:
            rel = f"{service.root}/.env"
            notes = out.value_notes.setdefault(name, [])
            notes += [f".env of the service {key}={shown} ({rel}:{line})"
                      for key, (shown, line) in noted_env_lines(_read(root / rel)).items()]
    root_env = reader.env_files.get(".", {})
    if "." in reader.dotenv:
        out.root_env_notes = {key: f".env of the project {key}={shown} (.env:{line}; where no unit sets {key})"
                              for key, (shown, line) in noted_env_lines(_read(root / ".env")).items()}
    for name, service in layout.services.items():
        env = out.env.setdefault(name, {})
        for values in (reader.env_files.get(service.root, {}) if service.root != "." else {}, root_env):
            for key, value in values.items():
                env.setdefault(key, [value])
    for module in layout.modules.values():
        if module.dockerfile and module.microservice:
            folder = root / module.path if module.path != "." else root
            dockerfile = _read(folder / "Dockerfile")
            scripts = [line for script in run_scripts(dockerfile) for line in _script_lines(_read(folder / script))]
            host = locust_host(dockerfile, scripts)
            given = ([("LOCUST_HOST", host)] if host is not None else []) + k6_env(dockerfile, scripts)
            for name, value in given:
                values = out.env.setdefault(module.microservice, {}).setdefault(name, [])
                if value not in values:
                    values.append(value)
            for name, value in dockerfile_env(dockerfile).items():   # the image's default: any unit overrides it
                out.env.setdefault(module.microservice, {}).setdefault(name, [value])
            # ``java -Dspring.profiles.active=prod -jar app.jar``: a system property outranks a unit's
            # SPRING_PROFILES_ACTIVE in Spring, so it is one more value, never hidden by the unit's
            profiles = out.env.setdefault(module.microservice, {}).setdefault("SPRING_PROFILES_ACTIVE", [])
            profiles += [value for value in command_profiles(dockerfile) if value not in profiles]
            if not profiles:
                del out.env[module.microservice]["SPRING_PROFILES_ACTIVE"]
    _redacted(out)
    return out


def _redacted(out: Deployment) -> None:
    """The deployment with its secrets removed (`secrets`): every note's URL userinfo, connection-string passwords
    and credential keys' values; each variable's values likewise (a credential's is ``redacted``, a URL's host,
    port and path kept for linking)."""
    for table in (out.value_notes, out.port_notes):
        for service, notes in table.items():
            table[service] = list(dict.fromkeys(redact_text(note) for note in notes))
    out.root_env_notes = {key: redact_text(note) for key, note in out.root_env_notes.items()}
    for variables in out.env.values():
        for name, values in variables.items():
            variables[name] = list(dict.fromkeys(shown_value(name, value) for value in values))


_LOCUST_HOST = re.compile(r"""\blocust\b[^\n]*?(?:--host[=\s]|-H\s+)\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))""")
_SHELL_VAR = re.compile(r"\$\{(\w+)(?::?-[^}]*)?\}|\$(\w+)")


_K6_ENV = re.compile(r"""(?:^|\s)(?:-e|--env)[=\s]\s*(?:"(\w+)=([^"]*)"|'(\w+)=([^']*)'|(\w+)=([^\s"']*))""")


_ENV_PAIR = re.compile(r"""(\w+)=(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|((?:[^\s\\]|\\.)*))""")


def compose_includes(entries: list, rel: str) -> list[str]:
    """The Compose files a top-level ``include:`` of the file at ``rel`` names (``- ../a/compose.yaml``, ``- path:
    ../a/compose.yaml`` or a list of paths), relative to the root; a path Compose would fetch (``oci://``, a Git
    URL), an absolute one or one that climbs out of the tree (``../../shared/compose.yaml`` from the root) is not a
    file of the tree, though a file of the tree may sit at the path left once the climb is cut off."""
    base = PurePosixPath(rel).parent
    out: list[str] = []
    for entry in entries:
        paths = entry.get("path") if isinstance(entry, dict) else entry
        for path in [paths] if isinstance(paths, str) else paths if isinstance(paths, list) else []:
            if isinstance(path, str) and "://" not in path and not path.startswith("git@") \
                    and _inside_tree(base, path.strip()):
                out.append(_folder(base, path))
    return out


def _inside_tree(base: PurePosixPath, path: str) -> bool:
    """Whether ``path``, relative to the folder ``base`` of the tree, names a file inside the tree."""
    if path.startswith(("/", "~")):
        return False
    depth = 0
    for part in PurePosixPath(base, path).parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return False
    return True


def _project_folders(file: str, includes: dict[str, list[str]]) -> set[str]:
    """The folders of the Compose projects a file's services run in: its own, and that of every file that includes
    it (``include:``, through included files too): an override beside the including file applies to them."""
    folders, seen, todo = set(), set(), [file]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        folders.add(PurePosixPath(current).parent.as_posix())
        todo += [including for including, included in includes.items() if current in included]
    return folders


def _merged_compose(units: list[Unit], owner: dict[int, str], includes: dict[str, list[str]]) -> None:
    """Compose merges the files of one project folder (``docker-compose.yml`` with ``docker-compose.override.yml``,
    or ``-f`` another beside it), the services of the files an ``include:`` there names among them: a service of
    one file found no service by itself (an override that sets only ``environment`` or ``ports``) is the service its
    name has in another Compose file of that project, when that one is a service of the project (one, not several)."""
    found: dict[tuple[str, str], set[str]] = {}
    for index, unit in enumerate(units):
        if unit.kind == "compose" and index in owner:
            for folder in _project_folders(unit.file, includes):
                found.setdefault((folder, unit.name), set()).add(owner[index])
    for index, unit in enumerate(units):
        if unit.kind == "compose" and index not in owner:
            services = found.get((PurePosixPath(unit.file).parent.as_posix(), unit.name), set())
            if len(services) == 1:
                owner[index] = next(iter(services))


def dockerfile_env(dockerfile: str) -> dict[str, str]:
    """The variables a Dockerfile's ``ENV`` instructions set (``ENV A=1 B=2``, continued lines, the legacy ``ENV A 1``)
    in the image it builds: its last stage's, with those of the stages it is built ``FROM`` (a build stage's ``ENV``
    is not the running image's); a value that reads another variable (``$X``) is left out."""
    stages: dict[str, dict[str, str]] = {}
    out: dict[str, str] = {}
    logical = re.sub(r"\\\s*\n", " ", dockerfile)
    for line in logical.splitlines():
        words = line.strip().split(None, 1)
        if len(words) == 2 and words[0].upper() == "FROM":
            base = [w for w in words[1].split() if not w.startswith("--")]
            out = dict(stages.get(base[0].lower(), {})) if base else {}
            if len(base) >= 3 and base[1].upper() == "AS":
                stages[base[2].lower()] = out
            continue
        if len(words) != 2 or words[0].upper() != "ENV":
            continue
        pairs = _ENV_PAIR.findall(words[1]) if "=" in words[1].split(None, 1)[0] else [
            (words[1].split(None, 1)[0], "", "", words[1].split(None, 1)[1] if " " in words[1] else "")]
        for name, double, single, bare in pairs:
            value = double or single or bare
            if "$" not in value:
                out[name] = value
    return out


def dockerfile_commands(dockerfile: str) -> list[str]:
    """The command lines a Dockerfile's ``ENTRYPOINT``/``CMD`` run (continued lines joined; the exec form's
    ``["a", "b"]`` as words)."""
    logical = re.sub(r"\\\s*\n", " ", dockerfile)
    return [line.replace('", "', " ").replace('","', " ") for line in logical.splitlines()
            if line.lstrip().upper().startswith(("ENTRYPOINT", "CMD"))]


_PROFILE_FLAG = re.compile(r"""(?:-D|--)spring\.profiles\.active=(?:"([^"]*)"|'([^']*)'|([^\s"'\]]+))""")


def _command_profiles(unit: Unit, words: list[str]) -> None:
    """The Spring profiles a unit's own command line starts the application with (a Compose ``entrypoint``/``command``,
    a container's ``command``/``args``), given to it as ``SPRING_PROFILES_ACTIVE`` (`profiles`)."""
    for found in _PROFILE_FLAG.finditer(" ".join(words)):
        value = next(g for g in found.groups() if g is not None)
        if "$" not in value and value not in unit.env.get("SPRING_PROFILES_ACTIVE", []):
            unit.env.setdefault("SPRING_PROFILES_ACTIVE", []).append(value)


def command_profiles(dockerfile: str) -> list[str]:
    """The Spring profiles a Dockerfile's ``ENTRYPOINT``/``CMD`` starts the application with
    (``-Dspring.profiles.active=prod``, ``--spring.profiles.active=prod``), as written; a ``$VAR`` is left out."""
    out = []
    for line in dockerfile_commands(dockerfile):
        for found in _PROFILE_FLAG.finditer(line):
            value = next(g for g in found.groups() if g is not None).strip('"')
            if "$" not in value and value not in out:
                out.append(value)
    return out


_SCRIPT = re.compile(r"""(?:^|[\s"'\[/])((?:[\w.-]+/)*[\w.-]+\.sh)\b""")


def run_scripts(dockerfile: str) -> list[str]:
    """The shell scripts a Dockerfile's ``ENTRYPOINT``/``CMD`` runs (``CMD ["./entrypoint.sh"]``, ``ENTRYPOINT
    /load/run.sh``, ``sh -c start.sh``), each by its file name: the image copies it from the build folder, where
    it is looked up (a script not there is not read)."""
    found: list[str] = []
    for line in dockerfile_commands(dockerfile):
        for match in _SCRIPT.finditer(line.split(None, 1)[1] if " " in line.strip() else ""):
            name = match.group(1).rsplit("/", 1)[-1]
            if name not in found:
                found.append(name)
    return found


def _script_lines(script: str) -> list[str]:
    """A shell script's command lines, continued lines joined, comments left out."""
    logical = re.sub(r"\\\s*\n", " ", script)
    return [line for line in logical.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def k6_env(dockerfile: str, scripts: tuple[str, ...] | list[str] = ()) -> list[tuple[str, str]]:
    """The variables a Dockerfile's ``ENTRYPOINT``/``CMD`` (or a line of a script it runs, ``scripts``) gives k6 with
    ``-e``/``--env NAME=VALUE`` (their ``${VAR}`` as environment reads, settled like any other)."""
    out: list[tuple[str, str]] = []
    commands = dockerfile_commands(dockerfile) + list(scripts)
    if not re.search(r"\bk6\b", "\n".join([dockerfile, *scripts])):   # k6 runs in it (the image's or a command)
        return out
    for line in commands:
        for found in _K6_ENV.finditer(line):
            name, value = next((found.group(i), found.group(i + 1)) for i in (1, 3, 5) if found.group(i))
            out.append((name, _SHELL_VAR.sub(lambda m: env(m.group(1) or m.group(2)).text, value)))
    return out


def locust_host(dockerfile: str, scripts: tuple[str, ...] | list[str] = ()) -> str | None:
    """The ``--host`` a Dockerfile's ``ENTRYPOINT``/``CMD`` (or a line of a script it runs, ``scripts``) runs Locust
    with (its ``${VAR}`` as environment reads, settled like any other), or None."""
    for line in dockerfile_commands(dockerfile) + list(scripts):
        found = _LOCUST_HOST.search(line)
        if found:
            value = next(g for g in found.groups() if g is not None)
            return _SHELL_VAR.sub(lambda m: env(m.group(1) or m.group(2)).text, value)
    return None
