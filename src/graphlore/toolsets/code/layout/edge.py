"""Edge proxies that are only a container: a stock proxy image (nginx, OpenResty, Envoy, Traefik, HAProxy, Caddy)
run with configuration files from the repository, and no source code of the project. Each is a module and a
service of its own (`layout.detect_layout`), so the routes its configuration declares (`frameworks.edge`) are
the service's, and the services its upstreams name are linked as a gateway's.

These ways of running one are read:

- **A folder with a ``Dockerfile``** whose final stage is built ``FROM`` a proxy image, no source file under it,
  and the proxy's configuration in it: the files its ``COPY``/``ADD`` instructions take from the folder (a
  ``COPY --from`` another stage is not one), and any nginx or proxy configuration file by its usual name
  (`walk.NGINX_FILE`, `walk.PROXY_FILE`). The module is the folder, named after it.
- **A Docker Compose service** with a proxy ``image`` and no ``build``, whose configuration is mounted from the
  repository: bind ``volumes`` (``./nginx/templates:/etc/nginx/templates``, the long ``type: bind`` form) and
  ``configs`` whose top-level entry names a ``file``; a Traefik image also when a service of its Compose file
  declares a router in its ``labels`` (the Docker provider: `frameworks.proxies` reads them). Its module is
  the nearest folder holding every mounted path, named after the Compose service; when that is the root, holds
  source code or is a module already, or nothing is mounted, it is a folder named after the Compose service
  beside the Compose file that does not exist (no file of the tree is in it), and a proxy whose such folder
  exists is not read. Its files are its own then, never another module's too.

- **A Kubernetes workload** (plain manifests) whose container runs a proxy image with a ConfigMap volume whose
  ``data`` holds the proxy's configuration by its usual name (``nginx.conf``, ``default.conf``, ``envoy.yaml``):
  named after the workload, its module a folder of that name beside the manifest (`frameworks.edge` reads the
  configuration inside the ConfigMap, with its lines in the manifest). The ConfigMap it mounts is the one of its
  own manifest, else of its folder, else the only one of that name; a workload of one name in several folders
  (overlays: dev, prod) is one proxy with each one's configuration.
- **Kubernetes ``Ingress`` resources** (plain manifests; a Helm template's are not read): the cluster's ingress
  controller, one proxy named ``ingress`` serving them all (`frameworks.proxies` reads them), its module a
  folder of that name beside the manifests (the nearest folder holding them all).

HAProxy's ``*.cfg`` and Caddy's ``Caddyfile`` are read (`frameworks.haproxy`, `frameworks.caddy`) by whatever name
the container runs them with; a Helm template's resources are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from .walk import NGINX_FILE, PROXY_FILE, Scan

#: proxy image (its last path segment, without tag) -> the kind of configuration it reads; a variant of one
#: (``nginx-unprivileged``, ``nginx-ingress``) too, but not a tool named after one (an exporter, an auth helper)
_EDGE_IMAGE = re.compile(r"^(nginx|openresty|envoy|traefik|haproxy|caddy)(?:$|[-_.][-_.\w]*$)")
_NOT_A_PROXY = re.compile(r"exporter|auth|control|operator|dashboard|ui$|gen$|plugin", re.I)
_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", re.I | re.M)
_COPY = re.compile(r"^\s*(?:COPY|ADD)\s+(.+)$", re.I | re.M)
#: a Compose file that may run a proxy image (a cheap look before the YAML is parsed)
_COMPOSE_HINT = re.compile(r"image:\s*['\"]?[\w.:/-]*?(?:nginx|openresty|envoy|traefik|haproxy|caddy)", re.I)


@dataclass
class Edge:
    """One proxy container: its kind (``nginx``, ``envoy``, ...), the folder of its module, the name it gets,
    the configuration files it runs with (relative to the root), and where it is declared."""

    kind: str
    folder: str
    name: str
    name_source: str
    files: list[str] = field(default_factory=list)
    declared_in: str = ""
    #: the Compose files whose services' ``traefik.*`` labels it reads (a Traefik with the Docker provider)
    labels: list[str] = field(default_factory=list)
    #: the Kubernetes manifests whose ``Ingress`` resources it serves (the ingress controller)
    ingress: list[str] = field(default_factory=list)
    #: (manifest, ConfigMap name) of the ConfigMaps a Kubernetes workload mounts as its configuration
    config_maps: list[tuple[str, str]] = field(default_factory=list)
    #: where its module is when ``folder`` cannot be (a folder of its own beside the Compose file, named after
    #: the Compose service, that no file of the tree is in)
    fallback: str = ""


def edge_kind(image: str) -> str | None:
    """``envoyproxy/envoy:v1.30`` -> ``envoy``; ``nginx:alpine`` -> ``nginx``; any other image -> None."""
    base = image.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0].lower()
    found = _EDGE_IMAGE.match(base)
    if found is None or _NOT_A_PROXY.search(base[len(found.group(1)):]):
        return None
    return "nginx" if found.group(1) == "openresty" else found.group(1)


def final_image(dockerfile: str) -> str | None:
    """The image a Dockerfile's final stage builds on, through the stages it names (``FROM build AS x``)."""
    stages = _FROM.findall(dockerfile)
    if not stages:
        return None
    names = {alias.lower(): image for image, alias in stages if alias}
    image = stages[-1][0]
    for _ in range(len(stages)):
        if image.lower() not in names:
            break
        image = names[image.lower()]
    return image


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _rel(base: PurePosixPath, written: str) -> str | None:
    """A path written relative to ``base``, relative to the root (None when it leaves the root or is absolute)."""
    parts: list[str] = []
    for part in PurePosixPath(base, written).parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(part)
    return "/".join(parts) or "."


def _files_at(root: Path, rel: str) -> list[str]:
    """The file ``rel``, or the files under the folder ``rel`` (its configuration folder), relative to the root."""
    path = root / rel
    if path.is_file():
        return [rel]
    if not path.is_dir():
        return []
    return sorted(p.relative_to(root).as_posix() for p in path.rglob("*") if p.is_file()
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))


def is_config(kind: str, path: str) -> bool:
    """Whether a file run by a proxy of ``kind`` is its configuration (nginx ``*.conf`` and ``*.conf.template``;
    Envoy and Traefik YAML, Traefik's ``traefik*``/``dynamic*`` TOML; HAProxy ``*.cfg``, a ``Caddyfile``). Each
    one is a layout file of the walk or an input of the layout (`Layout.input_stamps`), so its edit refreshes the
    routes."""
    name = PurePosixPath(path).name
    if kind == "nginx":
        return bool(NGINX_FILE.match(name))
    if kind in ("envoy", "traefik"):
        return name.endswith((".yaml", ".yml")) or bool(PROXY_FILE.match(name))
    return name.endswith(".cfg") if kind == "haproxy" else name.startswith("Caddyfile") or name.endswith(
        (".caddy", ".caddyfile"))


def dockerfile_edge(root: Path, folder: str, names: list[str]) -> Edge | None:
    """The proxy a folder's ``Dockerfile`` builds (see the module docstring), or None."""
    text = _read(root / folder / "Dockerfile" if folder else root / "Dockerfile")
    image = final_image(text)
    kind = edge_kind(image) if image else None
    if kind is None:
        return None
    base = PurePosixPath(folder)
    files: list[str] = []
    for args in _COPY.findall(re.sub(r"\\\s*\n", " ", text)):
        words = [w for w in args.split() if not w.startswith("--")]
        if any(w.startswith("--from") for w in args.split()) or len(words) < 2:
            continue
        for source in words[:-1]:
            rel = _rel(base, source.strip("\"',[]"))
            if rel is not None and (rel == folder or rel.startswith(folder + "/") or not folder):
                files += [f for f in _files_at(root, rel) if is_config(kind, f)]
    files += [f"{folder}/{n}" if folder else n for n in names if is_config(kind, n) and n != "Dockerfile"]
    return Edge(kind, folder, PurePosixPath(folder).name or root.name, "folder", sorted(set(files)),
                f"{folder}/Dockerfile" if folder else "Dockerfile")


def _mounts(spec: dict, configs: dict) -> list[str]:
    """The host paths a Compose service mounts (bind volumes written ``./x``/``../x``, ``configs`` files)."""
    out: list[str] = []
    for volume in spec.get("volumes") or []:
        if isinstance(volume, str):
            host = volume.split(":", 1)[0]
        elif isinstance(volume, dict) and volume.get("type", "bind") == "bind":
            host = str(volume.get("source", ""))
        else:
            continue
        if host.startswith(("./", "../")) or host in (".", ".."):
            out.append(host)
    for config in spec.get("configs") or []:
        name = config if isinstance(config, str) else config.get("source") if isinstance(config, dict) else None
        declared = configs.get(name) if isinstance(name, str) else None
        if isinstance(declared, dict) and isinstance(declared.get("file"), str):
            out.append(declared["file"])
    return out


def compose_edges(root: Path, paths: list[str]) -> list[Edge]:
    """The proxies the Compose files at ``paths`` run from a stock image with mounted configuration."""
    out: list[Edge] = []
    for rel in paths:
        text = _read(root / rel)
        if "services:" not in text or not _COMPOSE_HINT.search(text):
            continue
        try:
            docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
        except yaml.YAMLError:
            continue
        base = PurePosixPath(rel).parent
        for doc in docs:
            services: Any = doc.get("services")
            configs = doc.get("configs") if isinstance(doc.get("configs"), dict) else {}
            for key, spec in services.items() if isinstance(services, dict) else []:
                if not isinstance(spec, dict) or spec.get("build") or not isinstance(spec.get("image"), str):
                    continue
                kind = edge_kind(spec["image"])
                if kind is None:
                    continue
                mounted = [m for m in (_rel(base, h) for h in _mounts(spec, configs)) if m not in (None, ".")]
                files = sorted({f for m in mounted for f in _files_at(root, m) if is_config(kind, f)})
                labels = [rel] if kind == "traefik" and _router_labels(services) else []
                if not files and not labels:
                    continue
                folders = [m if (root / m).is_dir() else m.rpartition("/")[0] for m in mounted]
                fallback = _rel(base, str(key)) or ""
                out.append(Edge(kind, _common(folders) if files else "", str(key), "docker-compose service", files,
                                rel, labels=labels, fallback=fallback))
    return out


def _router_labels(services: dict) -> bool:
    """Whether a Compose service declares a Traefik router (``traefik.http.routers.<name>.rule``)."""
    for spec in services.values():
        labels = spec.get("labels") if isinstance(spec, dict) else None
        keys = labels.keys() if isinstance(labels, dict) else [str(x).partition("=")[0] for x in labels or []] \
            if isinstance(labels, list) else []
        if any(re.fullmatch(r"traefik\.http\.routers\.[^.]+\.rule", str(k).strip()) for k in keys):
            return True
    return False


def _common(folders: list[str]) -> str:
    """The nearest folder holding every one of ``folders`` ("" when it is the root)."""
    split = [f.split("/") for f in folders if f]
    if len(split) != len(folders) or not split:
        return ""
    out = []
    for parts in zip(*split, strict=False):
        if len(set(parts)) != 1:
            break
        out.append(parts[0])
    return "/".join(out)


_INGRESS = re.compile(r"^kind:\s*['\"]?Ingress['\"]?\s*$", re.M)


def ingress_edge(root: Path, paths: list[str]) -> Edge | None:
    """The cluster's ingress controller, when the manifests at ``paths`` declare ``Ingress`` resources (a Helm
    template's are not read): one proxy that serves them all, named ``ingress``, its module a folder of that
    name beside the manifests (the nearest folder holding them all)."""
    files = [rel for rel in paths if "{{" not in (text := _read(root / rel)) and _INGRESS.search(text)]
    if not files:
        return None
    folder = _common([PurePosixPath(f).parent.as_posix().removeprefix(".") for f in files])
    return Edge("ingress", "", "ingress", "Kubernetes Ingress", [], files[0], ingress=files,
                fallback=f"{folder}/ingress" if folder else "ingress")


_WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod"}


def _pod(doc: dict) -> dict:
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    if doc.get("kind") == "Pod":
        return spec
    template = spec.get("template") if isinstance(spec.get("template"), dict) else {}
    return template.get("spec") if isinstance(template.get("spec"), dict) else {}


def k8s_edges(root: Path, paths: list[str]) -> list[Edge]:
    """The Kubernetes workloads (plain manifests) whose container runs a proxy image with a ConfigMap volume
    holding its configuration (a ``data`` key named as the proxy's configuration: ``nginx.conf``,
    ``envoy.yaml``), each named after the workload."""
    maps: dict[str, list[tuple[str, dict]]] = {}
    workloads: list[tuple[str, dict]] = []
    for rel in paths:
        text = _read(root / rel)
        if "{{" in text or "kind:" not in text:
            continue
        try:
            docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
        except yaml.YAMLError:
            continue
        for doc in docs:
            meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
            if doc.get("kind") == "ConfigMap" and isinstance(meta.get("name"), str) and isinstance(doc.get("data"), dict):
                maps.setdefault(meta["name"], []).append((rel, doc["data"]))
            elif doc.get("kind") in _WORKLOADS and isinstance(meta.get("name"), str):
                workloads.append((rel, doc))
    out: list[Edge] = []
    for rel, doc in workloads:
        pod = _pod(doc)
        kinds = [edge_kind(str(c.get("image", ""))) for c in pod.get("containers") or [] if isinstance(c, dict)]
        kind = next((k for k in kinds if k), None)
        if kind is None:
            continue
        mounted = [v["configMap"]["name"] for v in pod.get("volumes") or [] if isinstance(v, dict)
                   and isinstance(v.get("configMap"), dict) and isinstance(v["configMap"].get("name"), str)]
        held = [(file, name) for name in mounted for file, data in _nearest(rel, maps.get(name, []))
                if any(is_config(kind, str(key)) for key in data)]
        if held:
            name = doc["metadata"]["name"]
            same = next((e for e in out if (e.kind, e.name) == (kind, name)), None)
            if same is not None:   # one workload in several overlays (dev, prod): one proxy, each one's configuration
                same.config_maps += [h for h in held if h not in same.config_maps]
                continue
            folder = PurePosixPath(rel).parent.as_posix()
            out.append(Edge(kind, "", name, "Kubernetes " + str(doc["kind"]), [], rel, config_maps=held,
                            fallback=name if folder == "." else f"{folder}/{name}"))
    return out


def _nearest(rel: str, maps: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The ConfigMaps of one name a workload of the manifest ``rel`` mounts: those of its own manifest, else of its
    folder, else the one manifest's that declares it; several elsewhere (other overlays') are none of them."""
    folder = PurePosixPath(rel).parent
    for near in ([m for m in maps if m[0] == rel], [m for m in maps if PurePosixPath(m[0]).parent == folder]):
        if near:
            return near
    return maps if len({m[0] for m in maps}) == 1 else []


def find_edges(found: Scan, sources: set[str], modules: set[str], tooling: Callable[[str], bool]) -> list[Edge]:
    """Every proxy container of the tree (see the module docstring), one per folder: folders that hold source
    code or are modules already are left alone, and so are the files of a tooling folder (``tooling``: CI jobs'
    clusters, test rigs), which deploy no part of the system."""
    out: dict[str, Edge] = {}
    for folder, names in sorted(found.layout_files.items()):
        if tooling(folder or "."):
            continue
        if "Dockerfile" in names and folder and folder not in sources and folder not in modules:
            edge = dockerfile_edge(found.root, folder, names)
            if edge is not None and edge.files:
                out[folder] = edge
    compose = [f"{rel}/{n}" if rel else n for rel, names in sorted(found.layout_files.items()) for n in names
               if n.endswith((".yml", ".yaml")) and not tooling(rel or ".")]
    ingress = ingress_edge(found.root, compose)
    for edge in [*compose_edges(found.root, compose), *k8s_edges(found.root, compose), *([ingress] if ingress else [])]:
        same = out.get(edge.folder or edge.fallback)
        if same is not None and (same.name, same.kind, same.fallback) == (edge.name, edge.kind, edge.fallback):
            same.files = sorted({*same.files, *edge.files})   # one proxy in several Compose files (an override)
            same.labels += [f for f in edge.labels if f not in same.labels]
            continue
        if not edge.folder or edge.folder in out or edge.folder in sources or edge.folder in modules:
            edge.folder = edge.fallback   # its own folder, beside the Compose file, that holds no file of the tree
            if edge.folder in ("", ".") or edge.folder in out or edge.folder in sources or edge.folder in modules or \
                    (found.root / edge.folder).exists():
                continue
        out[edge.folder] = edge
    return list(out.values())
