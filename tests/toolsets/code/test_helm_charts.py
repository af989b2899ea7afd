"""Helm charts as deployment files (`services.helm`): a chart's templates rendered with each set of values it is
installed with (its ``values.yaml``, the ``values-*.yaml`` beside it, the ``-f``/``--set`` of the project's own
``helm install`` commands), so a Deployment's ``env`` written ``{{ .Values.x }}`` gives the service that value; a
value several sets give differently is a choice, one the shell fills in or the release name decides is not known,
one under an ``if`` whose condition is not known may be unset; subcharts take the parent's values under their
name and ``global:``; a template that renders to no YAML is listed among the unreadable files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers.code_graph import bump
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services import helm
from graphlore.toolsets.code.services.deployment import read_deployment

HELPERS = '''{{/* the names, as `helm create` writes them */}}
{{- define "shop.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "shop.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "shop.versioned" -}}
{{- printf "%s-%s" (include "shop.name" .) .Chart.AppVersion | replace "." "" -}}
{{- end -}}
'''

DEPLOYMENT = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "shop.fullname" . }}
  labels:
    app: {{ include "shop.name" . }}
spec:
  template:
    metadata:
      labels:
        app: {{ include "shop.name" . }}
    spec:
      containers:
        - name: web
          image: "{{ .Values.image.registry }}/web:{{ .Values.image.tag | default .Chart.AppVersion }}"
          env:
            - name: ITEMS_URL
              value: {{ .Values.items.url | quote }}
            - name: ITEMS_ADDR
              value: "{{ .Release.Name }}-items:{{ .Values.items.port }}"
            - name: LOG_LEVEL
              value: {{ default "info" .Values.logLevel }}
            - name: VERSIONED
              value: {{ include "shop.versioned" . }}
            {{- if .Values.tracing.enabled }}
            - name: TRACING_URL
              value: http://jaeger:14268
            {{- end }}
            {{- with .Values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- range $name, $value := .Values.flags }}
            - name: FLAG_{{ $name | upper }}
              value: {{ $value | quote }}
            {{- end }}
'''

VALUES = '''nameOverride: web
image:
  registry: docker.io/acme
items:
  url:
  port: 8000
logLevel:
tracing:
  enabled: false
extraEnv:
  - name: REGION
    value: eu
flags:
  beta: "on"
global:
  domain: shop.local
'''

ITEMS_DEPLOYMENT = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Chart.Name }}
spec:
  template:
    metadata:
      labels:
        app: {{ .Chart.Name }}
    spec:
      containers:
        - name: items
          image: acme/items:1
          env:
            - name: DOMAIN
              value: {{ .Values.global.domain }}
            - name: PORT
              value: "{{ .Values.port }}"
'''

ITEMS_SERVICE = '''apiVersion: v1
kind: Service
metadata:
  name: {{ .Chart.Name }}
  labels:
    domain: {{ .Values.global.domain }}
spec:
  selector:
    app: {{ .Chart.Name }}
  ports:
    - port: {{ .Values.port }}
'''

GUIDE = '''# Install

```bash
helm upgrade --install shop ./deploy/chart \\
  -f deploy/chart/values-prod.yaml \\
  --set items.url=http://items:9000 \\
  --set image.registry=$REGISTRY \\
  --set tracing.enabled=${TRACING} \\
  --namespace shop
```
'''

FLASK = '''import os

import requests
from flask import Flask

app = Flask(__name__)
ITEMS_URL = os.environ["ITEMS_URL"]


@app.get("/items/<item_id>")
def item(item_id):
    return {}


@app.get("/show/<item_id>")
def show(item_id):
    return requests.get(f"{ITEMS_URL}/items/{item_id}").json()
'''


def _chart_tree(tmp_path: Path, **extra: str) -> Path:
    return write_tree(tmp_path / "p", {
        "web/Dockerfile": "FROM python:3.12\n", "web/app.py": FLASK, "web/requirements.txt": "flask\n",
        "items/Dockerfile": "FROM python:3.12\n", "items/app.py": FLASK, "items/requirements.txt": "flask\n",
        "deploy/chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.2.0\nappVersion: v1.2\n",
        "deploy/chart/values.yaml": VALUES,
        "deploy/chart/values-prod.yaml": "logLevel: warn\n",
        "deploy/chart/templates/_helpers.tpl": HELPERS,
        "deploy/chart/templates/deployment.yaml": DEPLOYMENT,
        "deploy/chart/templates/NOTES.txt": "Installed {{ .Release.Name }}.\n",
        "deploy/chart/charts/items/Chart.yaml": "apiVersion: v2\nname: items\nversion: 0.1.0\n",
        "deploy/chart/charts/items/values.yaml": "port: 7000\n",
        "deploy/chart/charts/items/templates/deployment.yaml": ITEMS_DEPLOYMENT,
        "deploy/chart/charts/items/templates/service.yaml": ITEMS_SERVICE,
        "README.md": GUIDE,
        **extra,
    })


def _deployment(root: Path):
    layout = CodeGraph.build(root).layout
    return read_deployment(layout, root, list(layout.deployment_files))


def _render(root: Path, rel: str) -> helm.Rendered:
    """One template of the tree's chart rendered with its ``values.yaml`` alone (and its defines)."""
    [chart] = [c for c in helm.find_charts(root, ["deploy/chart/Chart.yaml"])]
    variant = helm.variants(root, chart, [], [chart])[0]
    return helm.render(root, chart, variant, helm.defines_of(root, chart)[0], rel)


def test_the_template_language_renders_what_the_values_decide(tmp_path: Path) -> None:
    """``include`` of a ``define`` (``default``, ``trunc``, ``trimSuffix``, ``printf``, ``replace``), ``quote``,
    ``default``, ``with``/``toYaml``/``nindent``, ``range`` over a map; a release name no command writes stays
    unknown (``{?}``), and the ``if`` it decides in ``shop.fullname`` makes the whole name unknown, never a guess."""
    root = _chart_tree(tmp_path)
    [chart] = [c for c in helm.find_charts(root, ["deploy/chart/Chart.yaml", "deploy/chart/charts/items/Chart.yaml"])
               if c.parent is None]
    defines, problems = helm.defines_of(root, chart)
    assert set(defines) == {"shop.name", "shop.fullname", "shop.versioned"} and not problems
    [plain, *_] = helm.variants(root, chart, [], [chart])
    out = helm.render(root, chart, plain, defines, "deploy/chart/templates/deployment.yaml")
    text = helm.unknowns_shown(out.text)
    assert "  name: {?}\n" in text and "app: web" in text
    assert 'image: "docker.io/acme/web:v1.2"' in text
    assert "- name: ITEMS_URL\n              value: \n" in text   # empty in values.yaml: ``quote`` gives nothing
    assert 'value: "{?}-items:8000"' in text
    assert "value: info" in text and "value: web-v12" in text
    assert "TRACING_URL" not in text                    # tracing.enabled is false
    assert "            - name: REGION\n              value: eu" in text
    assert '- name: FLAG_BETA\n              value: "on"' in text
    # each output line knows its template line
    lines = out.text.split("\n")
    assert out.source_lines[next(i for i, line in enumerate(lines) if "ITEMS_ADDR" in line)] == 19


ASSIGNED = '''{{- $host := "items" }}
{{- if .Values.external }}{{- $host = "items.example.com" }}{{- end }}
{{- $last := "none" }}
{{- range .Values.zones }}{{$last = .}}{{- end }}
{{- $port := 80 }}
{{- if .Release.IsUpgrade }}{{ $port = 8080 }}{{ end }}
{{- $scheme := "http" }}
{{- range .Release.Revision }}{{ $scheme = "https" }}{{ end }}
{{- $inner := "outer" }}
{{- if true }}{{ $inner := "shadow" }}{{ end }}
kind: ConfigMap
data:
  host: {{ $host }}
  zone: {{ $last }}
  port: "{{ $port }}"
  scheme: {{ $scheme }}
  inner: {{ $inner }}
'''


def test_a_variable_assigned_in_a_block_is_the_outer_one(tmp_path: Path) -> None:
    """``$x = ...`` inside an ``if`` or a ``range`` assigns the variable declared outside (Go's rule; ``:=`` declares a
    new one); where the ``if``'s condition or the ``range``'s list is not known, the variable is not known after it,
    never the value it had before."""
    root = write_tree(tmp_path / "p", {
        "chart/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
        "chart/values.yaml": "external: true\nzones: [a, b]\n", "chart/templates/cm.yaml": ASSIGNED})
    [chart] = helm.find_charts(root, ["chart/Chart.yaml"])
    [variant] = helm.variants(root, chart, [], [chart])
    out = helm.render(root, chart, variant, {}, "chart/templates/cm.yaml")
    [doc] = [helm.unknowns_shown(d) for d in yaml.safe_load_all(out.text)]
    assert doc["data"] == {"host": "items.example.com", "zone": "b", "port": "{?}", "scheme": "{?}", "inner": "outer"}


def test_install_commands_are_read_where_literal(tmp_path: Path) -> None:
    """``helm upgrade --install`` across continued lines: its release, chart, ``-f`` files and ``--set`` keys with
    the line each is written at; a value the shell fills in is not known."""
    [install] = helm.install_commands(GUIDE, "README.md")
    assert (install.where, install.release, install.chart, install.namespace) == (
        "README.md:4", "shop", "./deploy/chart", "shop")
    assert install.values_files == ["deploy/chart/values-prod.yaml"]
    assert [(k, v, at) for k, v, _, at in install.sets] == [
        ("items.url", "http://items:9000", "README.md:6"), ("image.registry", "$REGISTRY", "README.md:7"),
        ("tracing.enabled", "${TRACING}", "README.md:8")]
    values: dict = {}
    helm._set_value(values, "ingress.hosts[0].name", "a.example", "--set")
    helm._set_value(values, "replicas", "3", "--set")
    helm._set_value(values, "tag", "3", "--set-string")
    assert values == {"ingress": {"hosts": [{"name": "a.example"}]}, "replicas": 3, "tag": "3"}


SET_FLAGS = r"""helm install --set-literal note=a,b web ./chart --set 'hosts={a,b}' \\
  --set 'nodeSelector.kubernetes\.io/os=linux' --set-string zip=0123 --set-file config=app.conf \\
  --set-json 'svc={"url":"http://a","port":1},extra=[1]' --set port=0123,debug=True,'url=http://a\,b' \\
  --set-string mode=x --set mode=y --set ports.http=81 --kube-apiserver https://k8s:6443
"""


def test_each_set_flag_is_read_as_helm_reads_it(tmp_path: Path) -> None:
    """``--set-literal`` (the whole rest), ``{a,b}`` lists, escaped dots and commas, Helm's typing (``0123`` stays
    text, ``True`` is true), ``--set-json``, ``--set-file`` (a file's content: not known, never the values.yaml value
    it replaces), the order Helm applies the flags in (``--set-string`` after ``--set``), a path through a list
    written as a map, and a flag that takes a value (``--kube-apiserver``) not read as the chart."""
    root = write_tree(tmp_path / "p", {
        "chart/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
        "chart/values.yaml": "config: from-values\nports: [80]\n", "deploy.sh": SET_FLAGS})
    [install] = helm.install_commands(SET_FLAGS, "deploy.sh")
    assert (install.release, install.chart) == ("web", "./chart")
    [chart] = helm.find_charts(root, ["chart/Chart.yaml"])
    values = helm.variants(root, chart, [install], [chart])[-1].values
    assert values.pop("config") is helm.UNKNOWN
    assert values == {
        "note": "a,b", "hosts": ["a", "b"], "nodeSelector": {"kubernetes.io/os": "linux"}, "zip": "0123",
        "svc": {"url": "http://a", "port": 1}, "extra": [1], "port": "0123", "debug": True, "url": "http://a,b",
        "mode": "x", "ports": {"http": 81}}


def test_each_set_of_values_gives_the_service_its_values(tmp_path: Path) -> None:
    """values.yaml alone, with values-prod.yaml, and with the guide's command: a setting they give differently is a
    choice, one only the command sets is its value (an empty one in values.yaml competes with none), one decided
    by the release name is partly unknown where no command names the release, one under an unknown condition
    may be unset, and each value says where it is written."""
    deployment = _deployment(_chart_tree(tmp_path))
    env = deployment.env["web"]
    assert env["ITEMS_URL"] == ["http://items:9000"]   # values.yaml leaves it empty: only the command sets it
    assert sorted(env["ITEMS_ADDR"]) == ["shop-items:8000", "{?}-items:8000"]   # the release: only the command's
    assert sorted(env["LOG_LEVEL"]) == ["info", "warn"]
    assert env["TRACING_URL"] == ["http://jaeger:14268", "{?}"]   # tracing.enabled=${TRACING}: may be unset
    assert env["REGION"] == ["eu"] and env["FLAG_BETA"] == ["on"]
    assert deployment.names["web"]["shop-web"] == "Kubernetes Deployment"   # the release the guide names
    notes = [n for n in deployment.value_notes["web"] if "ITEMS_URL=http" in n]
    assert notes == ["Kubernetes Deployment shop-web env ITEMS_URL=http://items:9000 "
                     "(deploy/chart/templates/deployment.yaml:17) with the Helm values deploy/chart/values.yaml + "
                     "deploy/chart/values-prod.yaml + --set (helm command at README.md:4); .Values.items.url from "
                     "--set items.url at README.md:6"]
    # the subchart: its own values (port 7000) under the parent's ``items:`` (port 8000), and the parent's global
    assert deployment.names["items"]["items"] == "Kubernetes Deployment"   # and its Service, of the same name
    assert deployment.ports["items"] == {8000}
    assert deployment.env["items"]["PORT"] == ["8000"] and deployment.env["items"]["DOMAIN"] == ["shop.local"]


def test_a_subchart_its_condition_turns_off_is_not_installed(tmp_path: Path) -> None:
    """``dependencies: [{name: items, repository: file://charts/items, condition: items.enabled}]`` with
    ``items.enabled: false``: its Deployment and Service are not read; ``true`` in values-prod.yaml: they are (in the
    sets of values that turn it on)."""
    chart = ("apiVersion: v2\nname: shop\nversion: 1.2.0\nappVersion: v1.2\ndependencies:\n  - name: items\n"
             "    version: 0.1.0\n    repository: file://charts/items\n    condition: items.enabled\n")
    off = _deployment(_chart_tree(tmp_path / "off", **{
        "deploy/chart/Chart.yaml": chart, "deploy/chart/values.yaml": VALUES.replace("  port: 8000\n",
                                                                                    "  port: 8000\n  enabled: false\n"),
        "README.md": ""}))
    assert "items" not in off.names and "PORT" not in off.env.get("items", {})
    on = _deployment(_chart_tree(tmp_path / "on", **{
        "deploy/chart/Chart.yaml": chart, "deploy/chart/values.yaml": VALUES.replace("  port: 8000\n",
                                                                                   "  port: 8000\n  enabled: false\n"),
        "deploy/chart/values-prod.yaml": "items:\n  enabled: true\n  port: 9000\n", "README.md": ""}))
    assert on.env["items"]["PORT"] == ["9000"]


def test_a_template_that_renders_to_no_yaml_is_unreadable(tmp_path: Path) -> None:
    """A block never closed, and a template whose every rendering is no YAML, are said with the template's line;
    the other templates are read, and the chart's templates are no longer reported as raw YAML."""
    root = _chart_tree(tmp_path, **{
        "deploy/chart/templates/open.yaml": "{{- if .Values.x }}\nkind: ConfigMap\n",
        "deploy/chart/templates/bad.yaml": "kind: ConfigMap\nmetadata:\n  name: {{ .Values.image.registry }}: x\n",
    })
    graph = CodeGraph.build(root)
    assert graph.unreadable["deploy/chart/templates/open.yaml"] == (
        "Helm template: a if block opened at line 1 is not closed")
    assert graph.unreadable["deploy/chart/templates/bad.yaml"].startswith(
        "Helm template: renders to YAML that does not parse with the values deploy/chart/values.yaml: "
        "mapping values are not allowed here at template line 3")
    assert "deploy/chart/templates/deployment.yaml" not in graph.unreadable


def test_a_url_only_a_helm_value_gives_links_the_client(tmp_path: Path) -> None:
    """``os.environ["ITEMS_URL"]`` in web: the chart's Deployment sets it from ``.Values.items.url``, which only the
    guide's ``helm upgrade --install --set`` writes; the client links to items' route. Items reads the same
    variable, which no deployment file gives it: unresolved, never a guess."""
    nodes, edges = CodeGraph.build(_chart_tree(tmp_path)).snapshot()
    clients = {n.props["microservice"]: n for n in nodes.values() if n.kind == "client"}
    web = clients["web"]
    assert (web.props["target_url"], web.props["match"]) == ("http://items:9000/items/{item_id}", "cross_service")
    [link] = [e for e in edges.values() if e.src == web.id and e.type == "HTTP_CALLS"]
    assert nodes[link.dst].props["microservice"] == "items"
    assert clients["items"].props["match"] == "unresolved"
    assert "ITEMS_URL is set by none of the project's deployment files" in clients["items"].props["match_detail"]


INGRESS = '''{{- if semverCompare ">=1.19-0" .Capabilities.KubeVersion.GitVersion -}}
apiVersion: networking.k8s.io/v1
{{- else -}}
apiVersion: networking.k8s.io/v1beta1
{{- end }}
kind: ConfigMap
metadata:
  name: {{ printf "%s" "shop-ui" }}
  annotations:
    note: {{ "{{ not an action }}" | quote }}
data:
  theme.jar: |
    {{- .Files.Get "themes/theme.jar" | b64enc | nindent 4 }}
  mode: {{ if .Capabilities.APIVersions }}cluster{{ else }}local{{ end }}
'''


def test_what_the_cluster_decides_stays_unknown_and_the_yaml_holds(tmp_path: Path) -> None:
    """``semverCompare`` on the cluster's version (``.Capabilities``): every branch of such an ``if`` makes two
    ``apiVersion`` keys, no YAML, so the first branch is rendered, its lines marked as not certain; a string holding
    ``}}`` inside an action; ``.Files.Get`` is not known and ``nindent`` keeps it a block."""
    root = _chart_tree(tmp_path, **{"deploy/chart/templates/ingress.yaml": INGRESS})
    out = _render(root, "deploy/chart/templates/ingress.yaml")
    [doc] = [helm.unknowns_shown(d) for d in yaml.safe_load_all(out.text)]
    assert doc["apiVersion"] == "networking.k8s.io/v1" and doc["metadata"]["name"] == "shop-ui"
    assert doc["metadata"]["annotations"]["note"] == "{{ not an action }}"
    assert doc["data"]["theme.jar"].strip() == "{?}" and doc["data"]["mode"] == "cluster"
    assert out.conditional == {1, 10}   # output lines: the apiVersion and the mode the cluster decides


@pytest.mark.parametrize("helpers", ["_helpers.tpl", "helpers/_names.tpl"])
def test_an_edit_of_a_charts_helpers_updates_like_a_full_build(tmp_path: Path, helpers: str) -> None:
    """``templates/_helpers.tpl`` is a layout file: an edit of a ``define`` reaches the service's values on an
    update, as a full build gives them; so is a ``.tpl`` in a folder below ``templates/`` (Helm reads the
    ``define``s of every file there; it was no layout file, and the update kept the old value)."""
    root = _chart_tree(tmp_path, **{"deploy/chart/templates/_helpers.tpl": "",
                                    f"deploy/chart/templates/{helpers}": HELPERS})
    graph = CodeGraph.build(root)
    path = root / "deploy/chart/templates" / helpers
    path.write_text(path.read_text().replace('replace "." ""', 'replace "." "-"'))
    bump(path)
    graph.update()

    def web(of: CodeGraph) -> list[str]:
        return next(n.props["config"] for n in of.layout_nodes if n.kind == "microservice" and n.name == "web")
    assert any("VERSIONED=web-v1-2" in line for line in web(graph))
    assert web(graph) == web(CodeGraph.build(root))


def test_values_files_that_disagree_on_a_url_make_a_choice_said_on_the_client(tmp_path: Path) -> None:
    """values.yaml points ITEMS_URL at items, values-prod.yaml at a host outside the project: the client's URL is one
    of the two, as with any setting the deployment files give several values (two ConfigMaps of one name): it links
    through the value that names a service and says the other does not; no value is taken as the only one."""
    root = _chart_tree(tmp_path, **{
        "deploy/chart/values.yaml": VALUES.replace("  url:\n", "  url: http://items:8000\n"),
        "deploy/chart/values-prod.yaml": "items:\n  url: https://items.example.com\n", "README.md": ""})
    nodes, _ = CodeGraph.build(root).snapshot()
    [web] = [n for n in nodes.values() if n.kind == "client" and n.props["microservice"] == "web"]
    assert web.props["match"] == "cross_service"
    assert web.props["match_detail"].startswith("1 of the 2 values of its URL link; the others do not")


def _release_named_chart(name: str, url: str) -> dict[str, str]:
    deployment = f'''apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  template:
    spec:
      containers:
        - name: {name}
          image: acme/{name}:1
          envFrom:
            - configMapRef:
                name: {{{{ include "fullname" . }}}}
'''
    return {
        f"charts/{name}/Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: 1.0.0\n",
        f"charts/{name}/values.yaml": f"url: {url}\n",
        f"charts/{name}/templates/_helpers.tpl": (
            '{{- define "fullname" -}}{{ printf "%s-%s" .Release.Name .Chart.Name }}{{- end -}}'),
        f"charts/{name}/templates/config.yaml": 'kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: '
                                                '{{ include "fullname" . }}\ndata:\n  TARGET_URL: {{ .Values.url }}\n',
        f"charts/{name}/templates/deployment.yaml": deployment,
        f"{name}/Dockerfile": "FROM python:3.12\n", f"{name}/app.py": FLASK, f"{name}/requirements.txt": "flask\n",
    }


def test_a_config_map_the_release_names_is_its_charts_own(tmp_path: Path) -> None:
    """Two charts whose ConfigMap is named after the release no command names (``printf`` of a value not known is
    not known: both are named ``{?}``): each Deployment's ``envFrom`` reads its own chart's ConfigMap, never the
    other chart's of the same unknown name."""
    root = write_tree(tmp_path / "p", {**_release_named_chart("web", "http://items:8000"),
                                       **_release_named_chart("items", "http://web:5000")})
    deployment = _deployment(root)
    assert deployment.env["web"]["TARGET_URL"] == ["http://items:8000"]
    assert deployment.env["items"]["TARGET_URL"] == ["http://web:5000"]


CONDITIONAL_CONFIG = '''apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  MODE: plain
{{- if .Release.IsUpgrade }}
  CATALOG_URL: http://catalog.example.com
{{- else }}
  CATALOG_URL: http://items:9000
{{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-config-reader
spec:
  template:
    spec:
      containers:
        - name: web
          image: docker.io/acme/web:1
          envFrom:
            - configMapRef:
                name: web-config
'''


def test_a_config_map_key_an_unknown_condition_decides_is_a_choice(tmp_path: Path) -> None:
    """A ConfigMap key both branches of an ``if`` the release decides write (two keys of one mapping, of which YAML
    keeps the last): each branch's value is one of its values and it may be unset; never only the last one."""
    deployment = _deployment(_chart_tree(tmp_path, **{"deploy/chart/templates/config.yaml": CONDITIONAL_CONFIG}))
    env = deployment.env["web"]
    assert sorted(env["CATALOG_URL"]) == ["http://catalog.example.com", "http://items:9000", "{?}"]
    assert env["MODE"] == ["plain"]


BRANCHED_VALUES = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-branched
spec:
  template:
    spec:
      containers:
        - name: web
          image: docker.io/acme/web:1
          env:
            - name: CATALOG_URL
              {{- if .Release.IsUpgrade }}
              value: http://catalog.example.com
              {{- else }}
              value: http://items:9000
              {{- end }}
            - name: SEARCH_URL
              value: {{ if .Release.IsUpgrade }}http://search.example.com{{ else }}http://items:9000{{ end }}
'''


def test_an_env_value_an_unknown_condition_decides_is_never_one_branch_alone(tmp_path: Path) -> None:
    """An ``if`` the release decides around a variable's ``value:`` (YAML keeps the last of the two keys): the value
    may be another (``{?}``); one within a line (``{{ if }}a{{ else }}b{{ end }}``): not known, never the two
    branches' texts written one after the other."""
    env = _deployment(_chart_tree(tmp_path, **{"deploy/chart/templates/branched.yaml": BRANCHED_VALUES}),
                      ).env["web"]
    assert sorted(env["CATALOG_URL"]) == ["http://items:9000", "{?}"]
    assert env["SEARCH_URL"] == ["{?}"]


COMMENTED = '''{{/*
apiVersion: v1
kind: Pod
metadata:
  name: "{{ .Values.image.registry }}-test"
spec:
  containers:
    - name: wget
      args: ['{{ .Values.items.port }}']
*/}}
{{- /* a lone " quote */ -}}
kind: ConfigMap
'''


def test_a_comment_ends_at_its_close_whatever_it_holds(tmp_path: Path) -> None:
    """A template comment holding actions (a resource commented out) or a lone quote renders nothing: before, it ended
    at the first ``}}`` inside it and the rest of the commented-out Pod was rendered as the template's YAML."""
    root = _chart_tree(tmp_path, **{"deploy/chart/templates/commented.yaml": COMMENTED})
    assert _render(root, "deploy/chart/templates/commented.yaml").text == "kind: ConfigMap\n"


PARTLY_KNOWN = '''{{- define "host" }}{{ .Release.Name }}-svc{{ end -}}
kind: ConfigMap
data:
  host: {{ include "host" . }}
  {{- if contains "prod" (include "host" .) }}
  mode: production
  {{- end }}
  length: "{{ len (include "host" .) }}"
  suffix: "{{ hasSuffix "-svc" (include "host" .) }}"
'''


def test_a_text_partly_unknown_decides_nothing(tmp_path: Path) -> None:
    """``{?}-svc`` (the release name no command writes): kept as such by the text functions, but whether it contains
    ``prod`` or how long it is is not known (before: false and 5, as if the release name were empty)."""
    root = _chart_tree(tmp_path, **{"deploy/chart/templates/partly.yaml": PARTLY_KNOWN})
    out = _render(root, "deploy/chart/templates/partly.yaml")
    [doc] = [helm.unknowns_shown(d) for d in yaml.safe_load_all(out.text)]
    assert doc["data"] == {"host": "{?}-svc", "mode": "production", "length": "{?}", "suffix": "{?}"}
    assert out.conditional == {4}   # mode: it may not be set


def test_a_command_installs_the_chart_its_path_names_from_its_file(tmp_path: Path) -> None:
    """``helm install tools .`` in ``tools/README.md`` installs the chart in ``tools/``, never also the chart at the
    root (the same path read from the root)."""
    root = write_tree(tmp_path / "p", {
        "Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\n", "values.yaml": "url: a\n",
        "tools/Chart.yaml": "apiVersion: v2\nname: tools\nversion: 1.0.0\n", "tools/values.yaml": "url: b\n",
        "tools/README.md": "```\nhelm install tools . --set url=c\nhelm install app2 .. --set url=d\n```\n"})
    commands = helm.install_commands((root / "tools/README.md").read_text(), "tools/README.md")
    charts = {c.folder: c for c in helm.find_charts(root, ["Chart.yaml", "tools/Chart.yaml"])}
    assert [i.release for i in helm.installs_of(charts["tools"], commands, root)] == ["tools"]
    assert [i.release for i in helm.installs_of(charts["."], commands, root)] == ["app2"]


DOLLAR = '''{{- define "addr" }}{{ $.host }}:{{ $.port }}{{ end -}}
{{- define "ctx" }}{{ tpl .value .context }}{{ end -}}
kind: ConfigMap
data:
  items: {{ include "addr" .Values.items }}
  root: {{ $.Values.items.host }}
  {{- range .Values.zones }}
  zone-{{ . }}: {{ $.Values.items.host }}
  {{- end }}
  rendered: {{ include "ctx" (dict "value" "{{ .name }}" "context" .Values.items) }}
'''


def test_dollar_is_the_data_a_define_is_given(tmp_path: Path) -> None:
    """``$`` inside a ``define`` is the data ``include`` passes it (Go's rule), not the chart's root: ``include "addr"
    .Values.items`` with ``{{ $.host }}`` is the items' host (before: the root's ``host``, unset); at the top level
    and inside ``range`` it is the root."""
    root = _chart_tree(tmp_path, **{
        "deploy/chart/templates/dollar.yaml": DOLLAR,
        "deploy/chart/values.yaml": "items:\n  host: items\n  port: 8000\n  name: catalog\nzones: [a]\n"})
    out = _render(root, "deploy/chart/templates/dollar.yaml")
    [doc] = list(yaml.safe_load_all(out.text))
    assert doc["data"] == {"items": "items:8000", "root": "items", "zone-a": "items", "rendered": "catalog"}


TWO_DEPLOYMENTS = '''{{- if .Values.items.deploy }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: items
spec:
  template:
    spec:
      containers:
        - name: items
          image: acme/items:1
          env:
            - name: ITEMS_ONLY
              value: "1"
---
{{- end }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-two
spec:
  template:
    spec:
      containers:
        - name: web
          image: docker.io/acme/web:1
          env:
            - name: WEB_ONLY
              value: "2"
'''


def test_a_document_one_set_of_values_leaves_out_shares_no_environment(tmp_path: Path) -> None:
    """Two Deployments in one template, the first under an ``if`` only values-prod.yaml turns on: each set's
    Deployments are paired by their template line, so web's and items' variables stay their own (before, by their
    place in each rendering: web's Deployment, first with values.yaml alone, shared one environment with items')."""
    deployment = _deployment(_chart_tree(tmp_path, **{
        "deploy/chart/templates/two.yaml": TWO_DEPLOYMENTS, "deploy/chart/values-prod.yaml": "items:\n  deploy: true\n",
        "README.md": ""}))
    assert "ITEMS_ONLY" not in deployment.env["web"] and deployment.env["web"]["WEB_ONLY"] == ["2"]
    assert "WEB_ONLY" not in deployment.env["items"] and deployment.env["items"]["ITEMS_ONLY"] == ["1"]


def test_a_map_written_as_text_is_not_known(tmp_path: Path) -> None:
    """``{{ .Values.items }}`` of a map: Go writes ``map[port:8000 ...]``, never the ``map[...]`` that was shown as the
    value before; not known."""
    root = _chart_tree(tmp_path, **{"deploy/chart/templates/map.yaml": "kind: ConfigMap\ndata:\n  items: "
                                                                     '"{{ .Values.items }}"\n'})
    out = _render(root, "deploy/chart/templates/map.yaml")
    assert helm.unknowns_shown(out.text) == 'kind: ConfigMap\ndata:\n  items: "{?}"\n'


def test_a_template_or_define_without_a_name_is_unreadable_and_a_huge_index_refused(tmp_path: Path) -> None:
    """``{{ template }}`` or ``{{ define }}`` without a name is listed among the unreadable files (it crashed the
    whole index; a helper file that does not parse was never listed); ``--set a[99999999]=1`` is refused as Helm refuses an index above 65536 (it built a list of
    that many items)."""
    root = _chart_tree(tmp_path, **{"deploy/chart/templates/nameless.yaml": "kind: ConfigMap\n{{ template }}\n",
                                    "deploy/chart/templates/_nameless.tpl": "{{ define }}x{{ end }}\n"})
    graph = CodeGraph.build(root)
    assert graph.unreadable["deploy/chart/templates/nameless.yaml"] == (
        "Helm template: line 2: template without a name")
    assert graph.unreadable["deploy/chart/templates/_nameless.tpl"] == "Helm template: line 1: define without a name"
    values: dict = {}
    helm._set_value(values, "hosts[99999999]", "a", "--set")
    helm._set_value(values, "hosts[2]", "a", "--set")
    assert values == {"hosts": [None, None, "a"]}


def _chart_on_common(name: str) -> dict[str, str]:
    deployment = f'''apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{{{ include "common.name" . }}}}
spec:
  template:
    spec:
      containers:
        - name: {name}
          image: acme/{name}:1
'''
    return {
        f"charts/{name}/Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: 1.0.0\ndependencies:\n  - name: common\n"
                                     "    version: 1.0.0\n    repository: file://../common\n",
        f"charts/{name}/values.yaml": "", f"charts/{name}/templates/deployment.yaml": deployment,
        f"{name}/Dockerfile": "FROM python:3.12\n", f"{name}/app.py": FLASK, f"{name}/requirements.txt": "flask\n",
    }


def test_a_library_chart_two_charts_depend_on_gives_both_its_defines(tmp_path: Path) -> None:
    """``file://../common`` in web's and items' ``dependencies:``: both charts' templates read its ``define``s (before,
    only the chart it was last found a subchart of: items' Deployment name was not known)."""
    root = write_tree(tmp_path / "p", {
        **_chart_on_common("web"), **_chart_on_common("items"),
        "charts/common/Chart.yaml": "apiVersion: v2\nname: common\ntype: library\nversion: 1.0.0\n",
        "charts/common/templates/_names.tpl": '{{- define "common.name" -}}{{ .Chart.Name }}-app{{- end -}}'})
    names = _deployment(root).names
    assert names["web"]["web-app"] == names["items"]["items-app"] == "Kubernetes Deployment"


BREAKS = '''kind: ConfigMap
data:
  {{- range .Values.zones }}
  {{- if eq . "b" }}{{ break }}{{ end }}
  zone-{{ . }}: "on"
  {{- end }}
  {{- range .Values.zones }}
  {{- if eq . "b" }}{{ continue }}{{ end }}
  skip-{{ . }}: "on"
  {{- end }}
  {{- range .Values.zones }}
  {{- if eq $.Release.Name . }}{{ break }}{{ end }}
  maybe-{{ . }}: "on"
  {{- end }}
  after: "on"
'''


def test_break_and_continue_end_or_skip_the_range(tmp_path: Path) -> None:
    """``{{ break }}`` ends the ``range`` and ``{{ continue }}`` skips the item (before, both were written as ``{?}`` and
    every item after them rendered); under a condition not known, the lines after it in the ``range`` may not be
    written (conditional), the line after the ``range`` is; outside a ``range`` the template is unreadable."""
    root = _chart_tree(tmp_path, **{"deploy/chart/templates/breaks.yaml": BREAKS,
                                    "deploy/chart/values.yaml": "zones: [a, b, c]\n"})
    out = _render(root, "deploy/chart/templates/breaks.yaml")
    [doc] = list(yaml.safe_load_all(out.text))
    assert list(doc["data"]) == ["zone-a", "skip-a", "skip-c", "maybe-a", "maybe-b", "maybe-c", "after"]
    lines = out.text.split("\n")
    assert {lines[n - 1].split(":")[0].strip() for n in out.conditional} == {"maybe-a", "maybe-b", "maybe-c"}
    (root / "deploy/chart/templates/outside.yaml").write_text("kind: ConfigMap\n{{ break }}\n")
    assert CodeGraph.build(root).unreadable["deploy/chart/templates/outside.yaml"] == (
        "Helm template: break outside a range")
