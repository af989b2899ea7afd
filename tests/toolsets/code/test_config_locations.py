"""Routes and settings read from configuration carry the file and line they are written at: a Spring Cloud
Gateway route from YAML its list item's, a Java DSL route its ``route(...)`` call's (as nginx routes carry
their ``location``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.code_graph import FIXTURES, bump, edit
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.config_view import port_not_set
from graphlore.toolsets.code.services.settings import Note, Values, read_settings_at


def test_gateway_routes_are_at_their_own_lines():
    nodes, _ = CodeGraph.build(FIXTURES / "cloud-system").snapshot()
    where = {n.props["label"]: (n.props["file"], n.props["line"]) for n in nodes.values()
             if n.kind == "route" and n.props["microservice"] == "edge"}
    settings = "gateway/src/main/resources/application.yml"
    assert where["ANY /api/orders/**"] == (settings, 7)
    assert where["ANY /stock/**"] == where["ANY /levels/**"] == (settings, 13)
    assert where["ANY /pay/**"] == (settings, 17)
    assert where["ANY /ship/**"] == ("gateway/src/main/java/com/acme/gateway/Routes.java", 13)


def test_settings_lines_follow_yaml_nesting_and_properties(tmp_path: Path):
    yml = tmp_path / "application.yml"
    yml.write_text("server:\n  port: 8081\n---\nspring:\n  config:\n    activate:\n      on-profile: docker\n"
                   "server:\n  port: 9999\n---\nzuul:\n  routes:\n    - path: /a/**\n      url: http://a\n")
    values, lines = read_settings_at(yml)
    assert values["server.port"] == "8081" and lines["server.port"] == 2
    assert lines["zuul.routes[0]"] == 13 and lines["zuul.routes[0].url"] == 14
    props = tmp_path / "application.properties"
    props.write_text("# a comment\n\nserver.port=8082\nspring.config.import=optional:configserver:\n")
    values, lines = read_settings_at(props)
    assert (values["server.port"], lines["server.port"]) == ("8082", 3)
    assert lines["spring.config.import"] == 4


def _chain(tmp_path: Path, routes: str) -> dict[str, tuple[int, str | None, str | None]]:
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    edit(root, "gateway/src/main/java/com/acme/gateway/Routes.java",
         '''            .route("ship", r -> r.path("/ship/**")
                .filters(f -> f.stripPrefix(1))
                .uri("lb://shipping"))
''', routes)
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["label"]: (n.props["line"], n.props["forward"]["target"], n.props.get("target_service"))
            for n in nodes.values() if n.kind == "route" and n.props["file"].endswith("Routes.java")}


def test_each_route_of_one_dsl_chain_is_read_apart(tmp_path: Path):
    """``builder.routes().route(a).route(b)`` is one expression whose ``route`` calls all start on its first
    line: each route keeps its own uri, filters and line (never the chain's first route's target)."""
    found = _chain(tmp_path, '''            .route("ship", r -> r.path("/ship/**")
                .filters(f -> f.stripPrefix(1))
                .uri("lb://shipping"))
            .route("stock", r -> r.path("/stock2/**")
                .uri("lb://inventory"))
            .route("orders", r -> r.path("/orders2/**")
                .filters(f -> f.stripPrefix(1))
                .uri("lb://orders-service"))
''')
    assert found == {"ANY /ship/**": (13, "lb://shipping", "shipping"),
                     "ANY /stock2/**": (16, "lb://inventory", "inventory-service"),
                     "ANY /orders2/**": (18, "lb://orders-service", "orders-service")}


def test_dsl_routes_written_on_one_line_are_not_paired_by_guess(tmp_path: Path):
    found = _chain(tmp_path, '''            .route("a", r -> r.path("/a/**").uri("lb://shipping")).route("b", r -> r.path("/b/**").uri("lb://inventory"))
''')
    assert {label: (target, service) for label, (_, target, service) in found.items()} == {
        "ANY /a/**": ("{?}", None), "ANY /b/**": ("{?}", None)}


def _config(root: Path) -> dict[str, list[str]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.name: n.props.get("config", []) for n in nodes.values() if n.kind == "microservice"}


def test_a_service_shows_its_port_and_where_it_is_published():
    config = _config(FIXTURES / "cloud-system")
    assert config["payments"] == [
        "server.port: 8080 (payments/src/main/resources/application.yml:5)",
        "docker-compose service payments ports 8083:8080: published at host port 8083 (container port 8080) (docker-compose.yml:16)"]
    assert "Kubernetes Service orders-api port 8080 (k8s/orders.yaml:34)" in config["orders-service"]


def test_a_service_shows_where_it_finds_its_config_server_and_the_server_its_backend(tmp_path: Path):
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    edit(root, "shipping/src/main/resources/application.yml", "spring:\n",
         "spring:\n  config:\n    import: optional:configserver:${CONFIG_URL:http://payments:8080/}\n")
    (root / "shipping/src/main/resources/application.yml").write_text(
        (root / "shipping/src/main/resources/application.yml").read_text() +
        "---\nspring:\n  config:\n    activate:\n      on-profile: docker\n    import: configserver:http://config:8888\n")
    (root / "payments/src/main/resources/bootstrap.properties").write_text(
        "spring.cloud.config.server.git.uri=https://git.example.com/acme/config\n")
    config = _config(root)
    assert config["shipping"][:2] == [
        "spring.config.import: optional:configserver:${CONFIG_URL:http://payments:8080/} "
        "(shipping/src/main/resources/application.yml:3)",
        f"spring.config.import: configserver:http://config:8888 (shipping/src/main/resources/application.yml:"
        f"{(root / 'shipping/src/main/resources/application.yml').read_text().splitlines().index('    import: configserver:http://config:8888') + 1}, profile docker)"]
    assert config["payments"][0] == ("spring.cloud.config.server.git.uri: https://git.example.com/acme/config "
                                     "(payments/src/main/resources/bootstrap.properties:1)")
    # the server lists what each service's settings say about reaching it (``config`` names no service: none)
    assert config["payments"][-1] == (
        "configuration of shipping from here: spring.config.import: optional:configserver:${CONFIG_URL:"
        "http://payments:8080/} (shipping/src/main/resources/application.yml:3)")
    assert not any("configserver:http://config:8888" in line for lines in config.values() for line in lines
                   if line.startswith("configuration of"))


def test_a_port_nothing_in_the_repository_sets_is_said_to_be_unset(tmp_path: Path):
    """A service that takes its settings from a config server, whose own files, the server's files in the project
    and its deployment set no ``server.port``, says so (it said nothing: "which port" had no answer); a port set
    by its settings or by ``SERVER_PORT`` in its deployment, or a service without a config server, says nothing
    of the kind."""
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    edit(root, "shipping/src/main/resources/application.yml", "spring:\n",
         "spring:\n  config:\n    import: optional:configserver:http://payments:8080/\n")
    unset = ("server.port: not set in its settings files or by its deployment (its config server may serve it from "
             "a repository outside this one; else Spring Boot's default, 8080)")
    config = _config(root)
    assert unset in config["shipping"]
    assert not any(unset in line for name, lines in config.items() if name != "shipping" for line in lines)
    served = Values(notes=[Note("spring.config.import", "configserver:http://config:8888", "a.yml", 1, None)])
    assert port_not_set(["m"], {"m": served}, {}) == [unset]
    assert port_not_set(["m"], {"m": served}, {"SERVER_PORT": ["8085"]}) == []   # the deployment sets it


def _go_system(root: Path) -> Path:
    """Two Go services of one module (``cmd/proxy``, ``cmd/web``) run by Compose and Kubernetes: the proxy reads
    ``config.yml`` through cleanenv, whose struct tags let environment variables override it."""
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.21\n",
        "docker/Dockerfile-proxy": "FROM golang:1.21 AS build\nCOPY . /app\nWORKDIR /app\n"
                                   "RUN go build -o /bin/app ./cmd/proxy\nFROM scratch\nCOPY --from=build /bin/app /app\n",
        "docker/Dockerfile-web": "FROM golang:1.21 AS build\nCOPY . /app\nWORKDIR /app\n"
                                 "RUN go build -o /bin/app ./cmd/web\nFROM scratch\nCOPY --from=build /bin/app /app\n",
        "cmd/proxy/main.go": 'package main\n\nimport "example.com/shop/cmd/proxy/config"\n\n'
                             'func main() {\n\tcfg, _ := config.NewConfig()\n\t_ = cfg\n}\n',
        "cmd/proxy/config/config.go": (
            'package config\n\nimport "github.com/ilyakaznacheev/cleanenv"\n\n'
            'type (\n\tConfig struct {\n\t\tGRPC `yaml:"grpc"`\n\t\tRabbitMQ `yaml:"rabbitmq"`\n'
            '\t\tProduct ProductClient `yaml:"product_client"`\n\t}\n\n'
            '\tGRPC struct {\n\t\tProductHost string `yaml:"product_host" env:"GRPC_PRODUCT_HOST"`\n'
            '\t\tProductPort int `env-required:"true" yaml:"product_port" env:"GRPC_PRODUCT_PORT"`\n\t}\n\n'
            '\tRabbitMQ struct {\n\t\tURL string `yaml:"url" env:"RABBITMQ_URL"`\n\t}\n\n'
            '\tProductClient struct {\n\t\tURL string `yaml:"url" env:"PRODUCT_CLIENT_URL"`\n\t}\n)\n\n'
            'func NewConfig() (*Config, error) {\n\tcfg := &Config{}\n\tdir := "."\n'
            '\terr := cleanenv.ReadConfig(dir+"/config.yml", cfg)\n\treturn cfg, err\n}\n'),
        "cmd/proxy/config.yml": "grpc:\n  product_host: '0.0.0.0'\n  product_port: 5001\nrabbitmq:\n"
                                "  url: amqp://localhost:5672/\nproduct_client:\n  url: 0.0.0.0:5001\n",
        "cmd/proxy/fixture.yml": "seed: 42\n",   # no call names it: no setting of the service
        "cmd/web/main.go": ('package main\n\nimport (\n\t"net/http"\n\t"os"\n)\n\n'
                            'func main() {\n\thttp.Get(os.Getenv("REVERSE_PROXY_URL") + "/v1/items")\n}\n'),
        ".env": "# local values\nTOKEN=abc\nDOMAIN=shop.local\nREVERSE_PROXY_URL=http://localhost:9000\n",
        "proxy.env": "LOG_LEVEL=debug\n\nTRACE=true\n",
        "docker-compose.yaml": (
            "services:\n"
            "  proxy:\n"
            "    build: {context: ., dockerfile: docker/Dockerfile-proxy}\n"
            "    environment:\n"
            "      GRPC_PRODUCT_HOST: 'product'\n"
            "      GRPC_PRODUCT_PORT: 5001\n"
            "    env_file: proxy.env\n"
            "    labels:\n"
            "      - traefik.http.routers.proxy.rule=Host(`${DOMAIN}`)\n"
            "  web:\n"
            "    build: {context: ., dockerfile: docker/Dockerfile-web}\n"
            "    environment:\n"
            "      - REVERSE_PROXY_URL=http://localhost:5000\n"
            "      - SECRET=${SECRET}\n"
            "      - TOKEN\n"
            "      - API_KEY\n"
            "      - SENTRY_DSN=${SENTRY_DSN:-}\n"),
        "cmd/web/.env": "# the web service's own\nREVERSE_PROXY_URL=http://localhost:5001\n",
        "k8s/web.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - name: web\n          image: shop/web\n          env:\n"
            "            - name: REVERSE_PROXY_URL\n              value: http://proxy:5000\n"
            "            - name: MODE\n              valueFrom:\n                configMapKeyRef:\n"
            "                  name: web-config\n                  key: mode\n"),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_service_lists_every_value_its_deployment_units_give_it(tmp_path: Path):
    """Compose ``environment`` (map and list), ``env_file`` and ``labels``, Kubernetes ``env``: each as written,
    with its ``file:line``; a value Compose settles from ``.env`` shows that too, and one nothing in the
    repository sets is said to be set at run time, never guessed."""
    config = _config(_go_system(tmp_path))
    assert [line for line in config["proxy"] if line.startswith("docker-compose")] == [
        "docker-compose service proxy environment GRPC_PRODUCT_HOST=product (docker-compose.yaml:5)",
        "docker-compose service proxy environment GRPC_PRODUCT_PORT=5001 (docker-compose.yaml:6)",
        "docker-compose service proxy env_file proxy.env: LOG_LEVEL=debug (proxy.env:1)",
        "docker-compose service proxy env_file proxy.env: TRACE=true (proxy.env:3)",
        "docker-compose service proxy label traefik.http.routers.proxy.rule=Host(`${DOMAIN}`) "
        "(= Host(`shop.local`)) (docker-compose.yaml:9)"]
    assert [line for line in config["web"] if "docker-compose" in line or "Kubernetes" in line] == [
        "docker-compose service web environment REVERSE_PROXY_URL=http://localhost:5000 (docker-compose.yaml:13)",
        "docker-compose service web environment SECRET=${SECRET} (= <set at run time>) (docker-compose.yaml:14)",
        "docker-compose service web environment TOKEN = redacted (from .env) (docker-compose.yaml:15)",
        "docker-compose service web environment API_KEY (set at run time) (docker-compose.yaml:16)",
        'docker-compose service web environment SENTRY_DSN=${SENTRY_DSN:-} (= "") (docker-compose.yaml:17)',
        "Kubernetes Deployment web env REVERSE_PROXY_URL=http://proxy:5000 (k8s/web.yaml:12)",
        "Kubernetes Deployment web env MODE from ConfigMap web-config key mode (k8s/web.yaml:14)"]


def test_a_service_lists_the_settings_files_its_code_reads(tmp_path: Path):
    """``cleanenv.ReadConfig(dir+"/config.yml", cfg)``: the file's settings with their lines, each one a struct
    tag lets an environment variable override saying which; a file no call names is left out."""
    config = _config(_go_system(tmp_path))
    assert [line for line in config["proxy"] if "cmd/proxy/" in line] == [
        "grpc.product_host: 0.0.0.0 (cmd/proxy/config.yml:2, overridden by environment GRPC_PRODUCT_HOST)",
        "grpc.product_port: 5001 (cmd/proxy/config.yml:3, overridden by environment GRPC_PRODUCT_PORT)",
        # one key name under two parents: each its own struct's variable (never the first ``url`` seen)
        "rabbitmq.url: amqp://localhost:5672/ (cmd/proxy/config.yml:5, overridden by environment RABBITMQ_URL)",
        "product_client.url: 0.0.0.0:5001 (cmd/proxy/config.yml:7, overridden by environment PRODUCT_CLIENT_URL)"]
    assert not any("seed" in line for lines in config.values() for line in lines)


def test_a_client_whose_address_reads_the_environment_says_where_it_is_set(tmp_path: Path):
    """``http.Get(os.Getenv("REVERSE_PROXY_URL") + ...)``: the client names the variable (``reads_env``) and
    every deployment line that sets it, with its file:line (``config_from``)."""
    nodes, _ = CodeGraph.build(_go_system(tmp_path)).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client" and n.props["microservice"] == "web")
    assert client.props["reads_env"] == ["REVERSE_PROXY_URL"]
    assert client.props["config_from"] == [
        "docker-compose service web environment REVERSE_PROXY_URL=http://localhost:5000 (docker-compose.yaml:13)",
        "Kubernetes Deployment web env REVERSE_PROXY_URL=http://proxy:5000 (k8s/web.yaml:12)",
        ".env of the service REVERSE_PROXY_URL=http://localhost:5001 (cmd/web/.env:2)",
        ".env of the project REVERSE_PROXY_URL=http://localhost:9000 (.env:4; where no unit sets REVERSE_PROXY_URL)"]



def test_a_client_finds_where_its_variable_is_set_beyond_the_describes_bound(tmp_path: Path):
    """A variable set past the 50 deployment values a describe lists is still the client's ``config_from`` (it
    said null, "set nowhere in the repository", while the env_file sets it and the URL was folded from it)."""
    orders = 'from fastapi import FastAPI\napp = FastAPI()\n\n\n@app.get("/api/orders/")\ndef items():\n    return []\n'
    shop = 'import os\nimport httpx\n\n\ndef load():\n    return httpx.get(os.environ["ORDERS_URL"] + "/api/orders/")\n'
    files = {
        "compose.yml": "services:\n  orders:\n    build: ./orders\n  shop:\n    build: ./shop\n    env_file: shop.env\n",
        "shop.env": "".join(f"VAR_{i:02}=x{i}\n" for i in range(60)) + "ORDERS_URL=http://orders:8000\n",
        "orders/requirements.txt": "fastapi\n", "orders/Dockerfile": "FROM python\n", "orders/main.py": orders,
        "shop/requirements.txt": "httpx\n", "shop/Dockerfile": "FROM python\n", "shop/load.py": shop,
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client")
    assert client.props["target_url"] == "http://orders:8000/api/orders/"
    assert client.props["config_from"] == [
        "docker-compose service shop env_file shop.env: ORDERS_URL=http://orders:8000 (shop.env:61)"]


def test_an_env_file_edit_updates_the_describe_like_a_full_build(tmp_path: Path):
    """``env_file: proxy.env`` (not named ``.env``): its edit reaches the service's listed values on an update."""
    root = _go_system(tmp_path)
    graph = CodeGraph.build(root)
    (root / "proxy.env").write_text("LOG_LEVEL=info\n\nTRACE=true\n")
    bump(root / "proxy.env")
    graph.update()

    def proxy(of: CodeGraph) -> list[str]:
        return next(n.props["config"] for n in of.layout_nodes if n.kind == "microservice" and n.name == "proxy")
    assert "docker-compose service proxy env_file proxy.env: LOG_LEVEL=info (proxy.env:1)" in proxy(graph)
    assert proxy(graph) == proxy(CodeGraph.build(root))


def test_a_long_settings_file_says_how_many_settings_are_left_out(tmp_path: Path):
    """At most 60 settings of a file are listed, then a count of the rest (they were dropped silently)."""
    root = _go_system(tmp_path)
    (root / "cmd/proxy/config.yml").write_text("".join(f"key{i:02}: {i}\n" for i in range(65)))
    proxy = [line for line in _config(root)["proxy"] if "cmd/proxy/" in line]
    assert len(proxy) == 61 and proxy[-1] == "... 5 more settings in cmd/proxy/config.yml"


def test_a_file_read_through_another_folder_is_not_the_module_folders_namesake(tmp_path: Path):
    """``open("fixtures/settings.json")`` reads ``fixtures/settings.json``: the module folder's own
    ``settings.json`` is no setting the service reads (it was listed)."""
    files = {"svc/requirements.txt": "flask\n", "svc/Dockerfile": "FROM python\n",
             "svc/main.py": 'import json\n\n\ndef load():\n    return json.load(open("fixtures/settings.json"))\n',
             "svc/settings.json": '{"port": 1}\n', "svc/fixtures/settings.json": '{"port": 2}\n'}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert not any("settings.json" in line for lines in _config(tmp_path).values() for line in lines)
    (tmp_path / "svc/main.py").write_text('import json\n\n\ndef load():\n    return json.load(open("./settings.json"))\n')
    assert _config(tmp_path)["svc"] == ["port: 1 (svc/settings.json:1)"]


def test_values_a_configmap_gives_through_env_from_are_listed_and_found_by_the_client(tmp_path: Path):
    """``envFrom: configMapRef``: the ConfigMap's values are the service's (the address was folded from them) and
    the describe and the client's ``config_from`` say where (they said nothing: null, "set nowhere")."""
    orders = 'from fastapi import FastAPI\napp = FastAPI()\n\n\n@app.get("/api/orders/")\ndef items():\n    return []\n'
    shop = 'import os\nimport httpx\n\n\ndef load():\n    return httpx.get(os.environ["ORDERS_URL"] + "/api/orders/")\n'
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n"
                  "      containers:\n        - name: {name}\n          image: acme/{name}\n{extra}")
    files = {
        "k8s/shop.yaml": deployment.format(name="shop", extra="          envFrom:\n            - configMapRef:\n"
                                                              "                name: shop-config\n"),
        "k8s/orders.yaml": deployment.format(name="orders", extra=""),
        "k8s/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-config\ndata:\n"
                       "  ORDERS_URL: http://orders:8000\n",
        "orders/requirements.txt": "fastapi\n", "orders/Dockerfile": "FROM python\n", "orders/main.py": orders,
        "shop/requirements.txt": "httpx\n", "shop/Dockerfile": "FROM python\n", "shop/load.py": shop,
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    note = "Kubernetes shop envFrom ConfigMap shop-config ORDERS_URL=http://orders:8000 (k8s/cm.yaml)"
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client")
    assert client.props["target_url"] == "http://orders:8000/api/orders/"
    assert client.props["config_from"] == [note]
    assert note in _config(tmp_path)["shop"]


def test_a_client_shows_the_codes_own_default_beside_the_deployments_value(tmp_path: Path):
    """``os.getenv("ORDERS_URL", "http://localhost:8000")`` and ``process.env.ORDERS_URL || "http://localhost:8000"``:
    where the deployment sets the variable the client is folded with its value, and ``config_from`` also says what
    the code falls back to where nothing sets it (it listed the Compose line only); a read without a default adds
    nothing."""
    orders = 'from fastapi import FastAPI\napp = FastAPI()\n\n\n@app.get("/api/orders/")\ndef items():\n    return []\n'
    shop = ('import os\nimport httpx\n\n\ndef load():\n'
            '    return httpx.get(os.getenv("ORDERS_URL", "http://localhost:8000") + "/api/orders/")\n\n\n'
            'def bare():\n    return httpx.get(os.environ["ORDERS_URL"] + "/api/orders/")\n')
    web = ('const base = process.env.ORDERS_URL || "http://localhost:8000";\n\n'
           'export function load() {\n  return fetch(`${base}/api/orders/`);\n}\n')
    files = {
        "compose.yml": "services:\n  orders:\n    build: ./orders\n  shop:\n    build: ./shop\n    environment:\n"
                       "      ORDERS_URL: http://orders:8000\n  web:\n    build: ./web\n    environment:\n"
                       "      ORDERS_URL: http://orders:8000\n",
        "orders/requirements.txt": "fastapi\n", "orders/Dockerfile": "FROM python\n", "orders/main.py": orders,
        "shop/requirements.txt": "httpx\n", "shop/Dockerfile": "FROM python\n", "shop/load.py": shop,
        "web/package.json": '{"name": "web"}\n', "web/Dockerfile": "FROM node\n", "web/src/load.js": web,
    }
    nodes, _ = CodeGraph.build(write_tree(tmp_path, files)).snapshot()
    clients = {(n.props["microservice"], n.props["declaring_fqn"].rsplit(".", 1)[-1].rsplit("#", 1)[-1]): n.props
               for n in nodes.values() if n.kind == "client"}
    default = "ORDERS_URL where nothing sets it: http://localhost:8000 (the code's default)"
    for key, line in ((("shop", "load"), 7), (("web", "load"), 11)):
        assert clients[key]["target_url"] == "http://orders:8000/api/orders/", key
        assert clients[key]["config_from"] == [
            f"docker-compose service {key[0]} environment ORDERS_URL=http://orders:8000 (compose.yml:{line})",
            default], key
        assert "env_defaults" not in clients[key]
    assert default not in clients[("shop", "bare")]["config_from"]
