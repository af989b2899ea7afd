"""Edge proxies that are only a container (a stock nginx, Envoy, Traefik, HAProxy or Caddy image run with the
repository's configuration, no source code): each is a service of its own, holding the routes its configuration
declares, linked as a gateway to the services its upstreams name (`layout.edge`, `frameworks.edge`)."""

from __future__ import annotations

from pathlib import Path

from helpers import backend
from helpers.code_tools import write_tree

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.frameworks.proxies import ingress_routes, traefik_label_routes
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import plain
from graphlore.toolsets.code.layout.edge import edge_kind, final_image
from graphlore.toolsets.code.query import models, tools

ORDERS = '''from flask import Flask

app = Flask(__name__)


@app.get("/orders/<order_id>")
def order(order_id):
    return {}
'''

ORDERS_SERVICE = {
    "orders/Dockerfile": "FROM python:3.12\nCMD [\"flask\", \"run\"]\n",
    "orders/requirements.txt": "flask\n",
    "orders/app.py": ORDERS,
}

NGINX = "server {\n  listen 80;\n  location /api/orders/ {\n    proxy_pass http://orders:8000/;\n  }\n}\n"

ENVOY = """static_resources:
  listeners:
  - address: {socket_address: {address: 0.0.0.0, port_value: 8080}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          route_config:
            virtual_hosts:
            - name: backend
              domains: ["*"]
              routes:
              - match: {prefix: "/api/orders/"}
                route: {cluster: orders, prefix_rewrite: "/orders/"}
  clusters:
  - name: orders
    load_assignment:
      cluster_name: orders
      endpoints:
      - lb_endpoints:
        - endpoint: {address: {socket_address: {address: orders, port_value: 8000}}}
"""


def _edge(root: Path) -> tuple[dict[str, dict], dict[str, dict], list[tuple[str, str, str]]]:
    """(microservices by name, routes of services without source by label, (service, route, route) links)."""
    nodes, edges = CodeGraph.build(root).snapshot()
    services = {n.props["name"]: n.props for n in nodes.values() if n.kind == "microservice"}
    routes = {n.props["label"]: n.props for n in nodes.values() if n.kind == "route"
              and n.props["microservice"] not in ("orders",)}
    links = sorted((nodes[e.src].props["microservice"], nodes[e.src].props["label"],
                    nodes[e.dst].props.get("label", nodes[e.dst].name))
                   for e in edges.values() if e.type == "HTTP_CALLS")
    return services, routes, links


def test_images_of_edge_proxies_are_told_by_their_last_path_segment():
    assert [edge_kind(i) for i in ("nginx:1.27-alpine", "envoyproxy/envoy:v1.30-latest", "traefik:v3.1",
                                   "haproxy:2.9", "caddy:2", "openresty/openresty:alpine",
                                   "nginxinc/nginx-unprivileged:1.27", "bitnami/nginx@sha256:00")] == [
        "nginx", "envoy", "traefik", "haproxy", "caddy", "nginx", "nginx", "nginx"]
    assert [edge_kind(i) for i in ("python:3.12", "node:20", "my-nginx-app", "envoy-control-plane:1",
                                   "nginx/nginx-prometheus-exporter:1.1", "thomseddon/traefik-forward-auth:2",
                                   "nginxproxymanager")] == [None] * 7   # tools named after a proxy are none
    assert final_image("FROM node:20 AS build\nRUN npm ci\nFROM nginx:1.27 AS run\nCOPY --from=build /a /b\n") == \
        "nginx:1.27"


def test_a_folder_that_builds_a_proxy_image_is_a_service_holding_its_routes(tmp_path: Path):
    """``gateway/`` has a Dockerfile ``FROM nginx`` and its configuration, no source: before, nothing of it was
    read and a call through it linked nowhere."""
    write_tree(tmp_path, {**ORDERS_SERVICE,
                          "gateway/Dockerfile": "FROM nginx:1.27-alpine\nCOPY nginx.conf /etc/nginx/nginx.conf\n",
                          "gateway/nginx.conf": NGINX,
                          "docker-compose.yml": "services:\n  gateway:\n    build: ./gateway\n    ports: ['80:80']\n"
                                                "  orders:\n    build: ./orders\n"})
    services, routes, links = _edge(tmp_path)
    assert services["gateway"]["root"] == "gateway" and services["gateway"]["deployable"]
    route = routes["ANY /api/orders/**"]
    assert (route["microservice"], route["file"], route["line"], route["source_layer"], route["framework"]) == (
        "gateway", "gateway/nginx.conf", 3, "config", "nginx")
    assert (route["target_service"], route["match"]) == ("orders", "cross_service")
    assert links == [("gateway", "ANY /api/orders/**", "GET /orders/{order_id}")]


def test_a_compose_proxy_image_runs_the_mounted_templates_with_the_env_it_is_given(tmp_path: Path):
    """The official nginx image renders ``/etc/nginx/templates/*.template`` with ``envsubst``: the ``${VAR}`` are
    the variables the Compose service sets. Its module is the mounted folder, named after the Compose service."""
    write_tree(tmp_path, {**ORDERS_SERVICE,
                          "deploy/nginx/templates/default.conf.template": NGINX.replace(
                              "http://orders:8000/", "http://${ORDERS_ADDR}/"),
                          "deploy/nginx/conf/proxy.conf": "proxy_set_header Host $host;\n",
                          "docker-compose.yml": "services:\n  edge:\n    image: nginx:1.27\n    volumes:\n"
                                                "      - ./deploy/nginx/templates:/etc/nginx/templates\n"
                                                "      - ./deploy/nginx/conf/proxy.conf:/etc/nginx/conf.d/p.conf:ro\n"
                                                "    environment:\n      ORDERS_ADDR: orders:8000\n"
                                                "  orders:\n    build: ./orders\n"})
    services, routes, links = _edge(tmp_path)
    assert services["edge"]["root"] == "deploy/nginx"
    route = routes["ANY /api/orders/**"]
    assert (route["microservice"], route["file"]) == ("edge", "deploy/nginx/templates/default.conf.template")
    assert route["forward"]["target"] == "http://orders:8000" and route["match"] == "cross_service"
    assert links == [("edge", "ANY /api/orders/**", "GET /orders/{order_id}")]


def test_an_envoy_image_reads_the_file_it_copies_by_any_name(tmp_path: Path):
    write_tree(tmp_path, {**ORDERS_SERVICE,
                          "front/Dockerfile": "FROM envoyproxy/envoy:v1.30-latest\n"
                                              "COPY ./front-envoy.yaml /etc/envoy/envoy.yaml\n",
                          "front/front-envoy.yaml": ENVOY})
    services, routes, links = _edge(tmp_path)
    assert "front" in services
    route = routes["ANY /api/orders/**"]
    assert (route["microservice"], route["framework"], route["file"]) == ("front", "envoy", "front/front-envoy.yaml")
    assert links == [("front", "ANY /api/orders/**", "GET /orders/{order_id}")]


def test_a_traefik_file_provider_mounted_through_compose_configs(tmp_path: Path):
    dynamic = ("http:\n  routers:\n    orders:\n      rule: PathPrefix(`/orders`)\n      service: orders\n"
               "  services:\n    orders:\n      loadBalancer:\n        servers:\n          - url: http://orders:8000\n")
    write_tree(tmp_path, {**ORDERS_SERVICE,
                          "ops/traefik/dynamic.yml": dynamic,
                          "docker-compose.yml": "services:\n  proxy:\n    image: traefik:v3.1\n"
                                                "    configs: [{source: routes, target: /etc/traefik/dynamic.yml}]\n"
                                                "  orders:\n    build: ./orders\n"
                                                "configs:\n  routes:\n    file: ./ops/traefik/dynamic.yml\n"})
    services, routes, links = _edge(tmp_path)
    assert services["proxy"]["root"] == "ops/traefik"
    assert links == [("proxy", "ANY /orders/**", "GET /orders/{order_id}")]


def test_what_is_no_edge_proxy_of_the_project_stays_out(tmp_path: Path):
    """A static-file nginx (no configuration of its own) and a proxy on a named volume are no services; a proxy
    whose configuration declares no route (an HAProxy backend no frontend uses) is one, with no routes; a configuration folder inside a
    service's folder that a proxy container mounts is the proxy's, not the service's."""
    write_tree(tmp_path, {**ORDERS_SERVICE,
                          "docs/Dockerfile": "FROM nginx:1.27\nCOPY html /usr/share/nginx/html\n",
                          "docs/html/index.html": "<h1>docs</h1>\n",
                          "orders/nginx/site.conf": NGINX,
                          "lb/Dockerfile": "FROM haproxy:2.9\nCOPY haproxy.cfg /usr/local/etc/haproxy/\n",
                          "lb/haproxy.cfg": "backend orders\n  server o1 orders:8000\n",
                          "docker-compose.yml": "services:\n  cache:\n    image: nginx\n    volumes: [cache:/etc/nginx]\n"
                                                "  side:\n    image: nginx\n"
                                                "    volumes: ['./orders/nginx:/etc/nginx/conf.d']\n"
                                                "  orders:\n    build: ./orders\nvolumes:\n  cache: {}\n"})
    services, routes, _ = _edge(tmp_path)
    assert "docs" not in services and "cache" not in services
    assert "lb" in services   # a backend no frontend uses: a service with no routes
    assert {(r["microservice"], label) for label, r in routes.items()} == {("side", "ANY /api/orders/**")}


WEB = '''import requests


def load_order(order_id):
    return requests.get(f"http://gateway/api/orders/{order_id}").json()
'''


def test_a_call_through_the_proxy_container_is_one_path_and_the_proxy_lists_its_routes(tmp_path: Path, embedder):
    """A client that calls the proxy by its Compose name links to the proxy's route, and on through it to the
    route of the service that serves the request (nginx's ``proxy_pass .../`` swaps ``/api/`` for ``/``):
    ``paths`` from the caller to the handler is one call, its link naming the proxy route it goes ``via``;
    ``impact`` crosses the proxy; ``describe`` of the proxy service lists its routes as any service's
    (``DECLARES.EXPOSES``)."""
    tree = write_tree(tmp_path / "tree", {
        **ORDERS_SERVICE, "web/Dockerfile": "FROM python:3.12\n", "web/requirements.txt": "requests\n",
        "web/client.py": WEB, "web/cart.py": WEB.replace("load_order(order_id)", "load_cart(cart_id)").replace(
            "/api/orders/{order_id}", "/api/carts/{cart_id}"),
        "gateway/Dockerfile": "FROM nginx:1.27-alpine\nCOPY nginx.conf /etc/nginx/nginx.conf\n",
        "gateway/nginx.conf": NGINX.replace("location /api/orders/", "location /api/"),
        "docker-compose.yml": "services:\n  gateway:\n    build: ./gateway\n  orders:\n    build: ./orders\n"
                              "  web:\n    build: ./web\n"})
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        def call(tool: str, **fields):
            name = "ServiceMap" if tool == "service_map" else tool.capitalize()
            return getattr(tools, tool)(runtime, parse_request(getattr(models, f"{name}Request"),
                                                               {"project_path": str(tree), **fields}))

        call("index", embed=False)
        start = call("resolve", identifier="load_order").node.id
        handler = call("resolve", identifier="order").node.id
        out = call("paths", from_id=start, to_id=handler)
        assert out.paths, out.note
        crossed = [(h.edge, h.target.microservice, h.target.label) for h in out.paths[0].hops]
        assert ("HTTP_CALLS", "gateway", "ANY /api/**") in crossed   # the link through it is shown hop by hop
        assert ("HTTP_CALLS", "orders", "GET /orders/{order_id}") in crossed
        impact = call("impact", id=handler, depth=4)
        reached = {hit.node.label for hit in impact.results}
        assert "client.load_order" in reached   # the blast radius crosses the proxy
        assert "cart.load_cart" not in reached   # ... by each request's own way: /carts/ is no route of orders
        onward = {hit.node.label for hit in call("impact", id=start, direction="out", depth=2).results}
        assert {"ANY /api/**", "GET /orders/{order_id}"} <= onward   # the proxy route it goes through too
        cart = call("paths", from_id=call("resolve", identifier="load_cart").node.id,
                    to_id=call("find", kind="microservice", filter={"name": "orders"}).results[0].id)
        assert [(h.edge, h.target.label, h.props.get("match")) for h in cart.paths[0].hops][-2:] == [
            ("HTTP_CALLS", "ANY /api/**", "cross_service"), ("HTTP_CALLS", "orders", "no_route")]
        assert len(cart.paths) == 1   # not also through the proxy's forward to GET /orders/{order_id}
        gateway = call("find", kind="microservice", filter={"name": "gateway"}).results[0]
        served = call("neighbors", id=gateway.id, edge_types=["DECLARES.EXPOSES"])
        assert [n.node.label for n in served.neighbors] == ["ANY /api/**"]
        proxied = call("impact", id=served.neighbors[0].node.id, depth=1)   # the proxy route lists every caller
        assert {"client.load_order", "cart.load_cart"} <= {hit.node.label for hit in proxied.results}
    finally:
        runtime.close()


TRAEFIK_COMPOSE = """services:
  traefik:
    image: traefik:v3.1
    command: ["--providers.docker=true", "--entrypoints.web.address=:80"]
    volumes: ["/var/run/docker.sock:/var/run/docker.sock:ro"]
    labels:
      - traefik.http.routers.dashboard.rule=Host(`traefik.localhost`)
      - traefik.http.routers.dashboard.service=api@internal
  orders:
    build: ./orders
    labels:
      - "traefik.enable=true"
      - "traefik.http.routers.orders.rule=Host(`shop.localhost`) && PathPrefix(`/api/orders`)"
      - "traefik.http.routers.orders.middlewares=strip-api@docker"
      - "traefik.http.middlewares.strip-api.stripprefix.prefixes=/api"
      - "traefik.http.services.orders.loadbalancer.server.port=8000"
  legacy:
    build: ./legacy
    labels:
      traefik.enable: "false"
      traefik.http.routers.legacy.rule: PathPrefix(`/legacy`)
"""


def test_traefik_docker_labels_are_the_routes_of_the_traefik_container(tmp_path: Path):
    """Traefik's Docker provider: the routers other services declare in their labels are the Traefik
    container's routes (it has no file of its own: its module is a folder beside the Compose file that holds
    nothing), forwarding to the service that carries them, its middlewares' prefix stripped."""
    write_tree(tmp_path, {**ORDERS_SERVICE, "legacy/Dockerfile": "FROM python:3.12\n",
                          "legacy/requirements.txt": "flask\n", "legacy/app.py": ORDERS,
                          "docker-compose.yml": TRAEFIK_COMPOSE})
    services, routes, links = _edge(tmp_path)
    assert services["traefik"]["root"] == "traefik" and not (tmp_path / "traefik").exists()
    routes = {label: r for label, r in routes.items() if r["microservice"] == "traefik"}
    assert set(routes) == {"ANY /api/orders/**"}   # not the dashboard (Traefik's own), not a disabled service's
    route = routes["ANY /api/orders/**"]
    assert (route["file"], route["line"], route["framework"]) == ("docker-compose.yml", 13, "traefik")
    assert route["forward"]["target"] == "http://orders:8000" and route["forward"]["rewrite"] == ["/api", "/"]
    assert [link for link in links if link[0] == "traefik"] == [
        ("traefik", "ANY /api/orders/**", "GET /orders/{order_id}")]


def test_traefik_labels_in_mapping_form_and_what_is_not_read():
    compose = """services:
  api:
    image: example/api
    labels:
      traefik.http.routers.api.rule: PathPrefix(`/v1`) || PathPrefix(`/v2`)
      traefik.http.routers.docs.rule: Host(`api.localhost`) && PathPrefix(`/docs`)
      traefik.http.routers.users.rule: Path(`/users`)
      traefik.http.routers.users.middlewares: rewrite
      traefik.http.routers.web.rule: PathPrefix(`/web`)
      traefik.http.routers.web.service: site
      traefik.http.services.api.loadbalancer.server.port: "9000"
      traefik.http.middlewares.rewrite.replacepath.path: /people
"""
    found = {(pattern, plain(forward.target.text) if forward else None, problem)
             for _, _, pattern, forward, problem, _ in traefik_label_routes("docker-compose.yml", compose)}
    assert found == {
        ("/docs/**", "http://api:9000", None),   # the one service the container declares, at its port
        ("/**", None, "the rule PathPrefix(`/v1`) || PathPrefix(`/v2`) is not read"),
        ("/users", None, "the middleware rewrite replaces the path (not read)"),
        ("/web/**", None, "its service site is another container's (not read)")}


def test_one_traefik_in_several_compose_files_reads_them_all_and_honours_exposedbydefault(tmp_path: Path):
    base = ("services:\n  proxy:\n    image: traefik:3.6\n    command:\n      - --providers.docker\n"
            "      - --providers.docker.exposedbydefault=false\n  orders:\n    build: ./orders\n    labels:\n"
            "      - traefik.http.routers.a.rule=PathPrefix(`/orders`)\n"
            "      - traefik.http.services.a.loadbalancer.server.port=8000\n")
    deploy = ("services:\n  proxy:\n    image: traefik:3.6\n  orders:\n    labels:\n      - traefik.enable=true\n"
              "      - traefik.http.routers.b.rule=PathPrefix(`/orders`)\n"
              "      - traefik.http.services.b.loadbalancer.server.port=8000\n"
              "  legacy:\n    image: example/legacy\n    labels:\n"   # the flag in compose.yml holds here too
              "      - traefik.http.routers.c.rule=PathPrefix(`/legacy`)\n")
    write_tree(tmp_path, {**ORDERS_SERVICE, "compose.yml": base, "compose.deploy.yml": deploy})
    services, routes, links = _edge(tmp_path)
    assert set(routes) == {"ANY /orders/**"}
    route = routes["ANY /orders/**"]   # compose.yml's router is not exposed (no traefik.enable=true)
    assert (route["microservice"], route["file"]) == ("proxy", "compose.deploy.yml")
    assert links == [("proxy", "ANY /orders/**", "GET /orders/{order_id}")]


INGRESS = """apiVersion: v1
kind: Service
metadata:
  name: orders-svc
spec:
  selector: {app: orders}
  ports: [{port: 80, targetPort: 8000}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  template:
    metadata:
      labels: {app: orders}
    spec:
      containers: [{name: orders, image: shop/orders}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  annotations:
    nginx.ingress.kubernetes.io/rewrite-target: /
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /api/orders
        pathType: Prefix
        backend:
          service:
            name: orders-svc
            port: {number: 80}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: legacy
spec:
  defaultBackend:
    service: {name: orders, port: {number: 8000}}
  rules:
  - http:
      paths:
      - path: /old(/|$)(.*)
        pathType: ImplementationSpecific
        backend: {service: {name: orders, port: {number: 8000}}}
      - path: /health
        pathType: Exact
        backend: {service: {name: payments, port: {number: 80}}}
"""


def test_kubernetes_ingresses_are_the_routes_of_the_ingress_controller(tmp_path: Path):
    """Every Ingress of the manifests is a route of one proxy, the cluster's ingress controller (``ingress``, its
    module a folder beside the manifests that holds nothing), forwarding to its backend Service (a Service name
    is one of the service's names); ingress-nginx's plain ``rewrite-target`` replaces the prefix."""
    write_tree(tmp_path, {**ORDERS_SERVICE, "k8s/shop.yaml": INGRESS})
    services, _, links = _edge(tmp_path)
    assert services["ingress"]["root"] == "k8s/ingress"
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    found = sorted((n.props["label"], n.props["line"], n.props.get("target_service"), n.props["match"])
                   for n in nodes.values() if n.kind == "route" and n.props["microservice"] == "ingress")
    assert found == [
        ("ANY /**", 43, "orders", "cross_service"),   # the default backend: every path
        ("ANY /**", 48, None, "unresolved"),   # a regular expression path: not read
        ("ANY /api/orders/**", 31, "orders", "cross_service"),
        ("ANY /health", 51, None, "unresolved")]   # payments: no service of the project
    assert ("ingress", "ANY /api/orders/**", "GET /orders/{order_id}") in links


def test_one_ingress_in_several_deployment_variants_is_one_route_naming_every_file(tmp_path: Path):
    """The same Ingress generated into several variants of the manifests (``java-kubernetes.yml``,
    ``native-minikube.yml``...) is one route per rule, kept at the first file and naming the others; a repeat inside
    one file stays a route of its own; editing one variant updates as a full build gives."""
    variants = {f"deploy/k8s/{name}.yml": INGRESS for name in ("java-kubernetes", "java-minikube", "native-kubernetes")}
    write_tree(tmp_path, {**ORDERS_SERVICE, **variants})
    graph = CodeGraph.build(tmp_path)

    def ingress_routes():
        return sorted((n.props["label"], n.props["file"], n.props["line"], tuple(n.props.get("also_declared_in", ())))
                      for n in graph.snapshot()[0].values() if n.kind == "route" and n.props["microservice"] == "ingress")

    first = "deploy/k8s/java-kubernetes.yml"
    others = ("deploy/k8s/java-minikube.yml", "deploy/k8s/native-kubernetes.yml")
    assert ingress_routes() == [
        ("ANY /**", first, 43, tuple(f"{o}:43" for o in others)),
        ("ANY /**", first, 48, tuple(f"{o}:48" for o in others)),   # the regular expression path: its own route
        ("ANY /api/orders/**", first, 31, tuple(f"{o}:31" for o in others)),
        ("ANY /health", first, 51, tuple(f"{o}:51" for o in others))]
    # a variant that differs is a route of its own; the same Ingress twice in one file stays two routes
    (tmp_path / others[0]).write_text(INGRESS.replace("/api/orders", "/api/v2/orders"))
    (tmp_path / others[1]).write_text(INGRESS + "---\n" + INGRESS.split("---\n")[2])
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    found = ingress_routes()
    assert ("ANY /api/v2/orders/**", others[0], 31, ()) in found
    assert ("ANY /api/orders/**", first, 31, (f"{others[1]}:31",)) in found
    assert sum(label == "ANY /api/orders/**" for label, *_ in found) == 2   # native-kubernetes' second copy


def test_a_tooling_folders_proxies_deploy_no_part_of_the_system(tmp_path: Path):
    """An Ingress of a CI job's release cluster (``.github/release-cluster``) or a test rig's nginx is no service."""
    write_tree(tmp_path, {**ORDERS_SERVICE, ".github/release-cluster/ingress.yaml": INGRESS,
                          "e2e/gateway/Dockerfile": "FROM nginx\nCOPY nginx.conf /etc/nginx/nginx.conf\n",
                          "e2e/gateway/nginx.conf": NGINX})
    services, routes, _ = _edge(tmp_path)
    assert set(services) == {"orders"} and routes == {}


def test_an_ingress_path_of_slash_is_told_by_its_own_line():
    manifest = ("kind: Ingress\nmetadata: {name: web}\nspec:\n  rules:\n  - http:\n      paths:\n"
                "      - path: /media\n        pathType: Prefix\n        backend: {service: {name: media, port: {number: 80}}}\n"
                "  - host: shop.local\n    http:\n      paths:\n"
                "      - path: /\n        pathType: Prefix\n        backend: {service: {name: web, port: {number: 80}}}\n"
                "  - host: admin.local\n    http:\n      paths:\n"
                "      - path: /\n        pathType: Prefix\n        backend: {service: {name: admin, port: {number: 80}}}\n"
                "      - path: /static/*\n        pathType: ImplementationSpecific\n"
                "        backend: {service: {name: admin, port: {number: 80}}}\n")
    assert [(line, pattern) for line, _, pattern, _, _, _ in ingress_routes("k8s/web.yaml", manifest)] == [
        (7, "/media/**"), (13, "/**"), (19, "/**"), (22, "/static/**")]   # ``/*``: GCE's wildcard


def test_an_edited_proxy_configuration_updates_as_a_full_build_gives(tmp_path: Path):
    write_tree(tmp_path, {**ORDERS_SERVICE,
                          "gateway/Dockerfile": "FROM nginx:1.27-alpine\nCOPY nginx.conf /etc/nginx/nginx.conf\n",
                          "gateway/nginx.conf": NGINX})
    graph = CodeGraph.build(tmp_path)
    (tmp_path / "gateway/nginx.conf").write_text(NGINX.replace("/api/orders/", "/v2/orders/"))
    (tmp_path / "docker-compose.yml").write_text("services:\n  edge:\n    image: envoyproxy/envoy:v1.30\n"
                                                 "    volumes: ['./edge/envoy.yaml:/etc/envoy/envoy.yaml']\n")
    write_tree(tmp_path, {"edge/envoy.yaml": ENVOY})
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    labels = {(n.props["microservice"], n.props["label"]) for n in graph.snapshot()[0].values() if n.kind == "route"}
    assert {("gateway", "ANY /v2/orders/**"), ("edge", "ANY /api/orders/**")} <= labels


K8S_PROXY = """apiVersion: v1
kind: ConfigMap
metadata:
  name: gateway-conf
data:
  nginx.conf: |
    server {
      listen 80;
      location /api/orders/ {
        proxy_pass http://orders:8000/;
      }
    }
  banner.txt: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gateway
spec:
  template:
    metadata:
      labels: {app: gateway}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        volumeMounts: [{name: conf, mountPath: /etc/nginx/conf.d}]
      volumes:
      - name: conf
        configMap: {name: gateway-conf}
---
apiVersion: v1
kind: Service
metadata:
  name: gateway-svc
spec:
  selector: {app: gateway}
  ports: [{port: 80}]
"""


def test_a_kubernetes_proxy_workload_reads_the_configuration_its_configmap_holds(tmp_path: Path):
    """A Deployment running nginx with a ConfigMap volume: the ConfigMap's ``nginx.conf`` is its configuration,
    its routes at their lines in the manifest; a client calling the proxy's Service name reaches them."""
    write_tree(tmp_path, {**ORDERS_SERVICE, "deploy/k8s/gateway.yaml": K8S_PROXY,
                          "web/Dockerfile": "FROM python:3.12\n", "web/requirements.txt": "requests\n",
                          "web/client.py": WEB.replace("http://gateway/", "http://gateway-svc/")})
    services, routes, links = _edge(tmp_path)
    assert services["gateway"]["root"] == "deploy/k8s/gateway"
    route = routes["ANY /api/orders/**"]
    assert (route["microservice"], route["file"], route["line"]) == ("gateway", "deploy/k8s/gateway.yaml", 9)
    assert ("gateway", "ANY /api/orders/**", "GET /orders/{order_id}") in links
    assert ("web", "GET gateway /api/orders/{order_id}", "ANY /api/orders/**") in links


def test_a_proxy_workload_in_two_overlays_is_one_proxy_mounting_each_ones_configmap(tmp_path: Path):
    prod = K8S_PROXY.replace("/api/orders/", "/prod/orders/")
    write_tree(tmp_path, {**ORDERS_SERVICE, "k8s/dev/gateway.yaml": K8S_PROXY, "k8s/prod/gateway.yaml": prod})
    services, routes, _ = _edge(tmp_path)
    assert [name for name in services if name.startswith("gateway")] == ["gateway"]
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    held = sorted((n.props["label"], n.props["file"]) for n in nodes.values() if n.kind == "route"
                  and n.props["microservice"] == "gateway")
    # each overlay's ConfigMap once: the dev workload does not mount prod's ConfigMap of the same name
    assert held == [("ANY /api/orders/**", "k8s/dev/gateway.yaml"), ("ANY /prod/orders/**", "k8s/prod/gateway.yaml")]


def test_a_proxy_workload_mounts_the_configmap_of_its_own_manifest(tmp_path: Path):
    other = K8S_PROXY.replace("/api/orders/", "/admin/orders/").replace("name: gateway\n", "name: admin\n")
    write_tree(tmp_path, {**ORDERS_SERVICE, "k8s/web/gateway.yaml": K8S_PROXY, "k8s/admin/admin.yaml": other})
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    held = sorted((n.props["microservice"], n.props["label"]) for n in nodes.values() if n.kind == "route"
                  and n.props["microservice"] != "orders")
    assert held == [("admin", "ANY /admin/orders/**"), ("gateway", "ANY /api/orders/**")]   # one gateway-conf each


def test_a_traefik_router_of_grpc_calls_is_no_http_route_of_its_service():
    compose = """services:
  edge:
    image: traefik:v3.1
  accounts:
    build: ./accounts
    labels:
      - traefik.enable=true
      - traefik.http.routers.accounts.rule=PathPrefix(`/api/accounts`)
      - traefik.http.routers.accounts.service=accounts
      - traefik.http.services.accounts.loadbalancer.server.port=80
      - traefik.http.routers.accounts-rpc.rule=Headers(`content-type`,`application/grpc`) && Headers(`x-svc`, `a`)
      - traefik.http.routers.accounts-rpc.service=accounts-rpc
      - traefik.http.services.accounts-rpc.loadbalancer.server.port=4000
      - traefik.http.routers.admin.rule=Headers(`x-admin`, `1`)
      - traefik.http.routers.admin.service=accounts
"""
    found = {(pattern, plain(forward.target.text) if forward else None, problem)
             for _, _, pattern, forward, problem, _ in traefik_label_routes("docker-compose.yml", compose)}
    assert found == {
        ("/api/accounts/**", "http://accounts:80", None),
        ("/**", None, "the rule Headers(`content-type`,`application/grpc`) && Headers(`x-svc`, `a`) routes gRPC calls "
                      "(content-type application/grpc), not HTTP routes"),
        ("/**", "http://accounts:80", None)}   # another header: every path still
