"""Part 2: routes, clients, producers and links on the fixture systems (exact expected sets), on piggymetrics
(an expected set written by hand from grep), and incremental updates that keep them equal to a full build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.code_graph import FIXTURES, edit, expected_lines, render

from graphlore.toolsets.code.index.graph import CodeGraph

PART2_EDGES = ("EXPOSES", "HTTP_CALLS", "ASYNC_CALLS", "DECLARES_CLIENT", "DECLARES_PRODUCER")


def part2(graph: CodeGraph, services: bool = True) -> list[str]:
    return [line for line in render(graph) if line[0] in "RCP" or (services and line[0] == "S")
            or (line.startswith("E ") and line.split()[1] in PART2_EDGES)]


@pytest.mark.parametrize("system", ["spring-system", "py-system", "ts-system"])
def test_system_routes_clients_producers_and_links_are_exactly_the_expected_ones(system):
    expected = expected_lines(f"{system.replace('-', '_')}_services.txt")
    services = any(line.startswith("S ") for line in expected)
    assert part2(CodeGraph.build(FIXTURES / system), services) == expected


def test_every_match_kind_occurs_and_no_link_is_false():
    lines = [line for system in ("spring-system", "py-system", "ts-system")
             for line in expected_lines(f"{system.replace('-', '_')}_services.txt")]
    matches = {line.rsplit("match=", 1)[1].split()[0] for line in lines if line.startswith(("C ", "P "))}
    assert matches == {"cross_service", "ambiguous", "unresolved", "no_route"}
    graph = CodeGraph.build(FIXTURES / "spring-system")
    nodes, edges = graph.snapshot()
    for edge in edges.values():
        if edge.type == "HTTP_CALLS" and edge.props["match"] != "no_route":
            client, route = nodes[edge.src].props, nodes[edge.dst].props
            assert route["microservice"] == client["target_service"]
            assert edge.props["evidence"]["route_template"] == route["path_template"]
            assert route["http_method"] in (client["http_method"], "ANY")


def test_piggymetrics_matches_the_hand_written_set(shared_data):
    root = shared_data / "code" / "piggymetrics"
    if not root.is_dir():
        pytest.skip(f"needs {root}")
    got = part2(CodeGraph.build(root), services=False)
    expected = expected_lines("piggymetrics_services.txt")
    routes = sorted(line for line in got if line.startswith("R "))
    assert routes == sorted(line for line in expected if line.startswith("R "))
    links = sorted(line for line in got if line.startswith("E HTTP_CALLS") or line.startswith("E ASYNC_CALLS"))
    assert links == sorted(line for line in expected if line.startswith("E "))  # every Feign link, no false one
    for line in expected:
        if line.startswith("C "):
            assert line in got
    assert not any(line.startswith(("P ", "E ASYNC_CALLS")) for line in got)


@pytest.fixture
def spring(tmp_path: Path) -> Path:
    root = tmp_path / "spring-system"
    shutil.copytree(FIXTURES / "spring-system", root)
    return root


def test_incremental_updates_keep_part_two_equal_to_a_full_build(spring):
    graph = CodeGraph.build(spring)
    common = "common/src/main/java/com/acme/common"

    def same() -> list[str]:
        lines = part2(graph)
        assert lines == part2(CodeGraph.build(spring))
        return lines

    # a constant in another module moves the orders routes and the clients that call them
    edit(spring, f"{common}/ApiPaths.java", 'ORDERS = API + "/orders"', 'ORDERS = API + "/v2/orders"')
    graph.update()
    lines = same()
    assert "R GET /api/v2/orders/{id} framework=spring_web handler=com.acme.orders.OrderController#get(String) " \
           "service=orders-service resolved=True" in lines
    assert any(line.startswith("C GET orders-service /api/v2/orders/{id} kind=web_client") and
               "match=cross_service" in line for line in lines)

    # the config server's shared file moves billing's context path: the Feign client no longer fits
    edit(spring, "config-server/src/main/resources/shared/billing-service.yml", "/billing", "/invoicing")
    graph.update()
    lines = same()
    assert "R GET /invoicing/api/invoices/{orderId} framework=spring_web handler=com.acme.billing.InvoiceController" \
           "#invoice(String) service=billing-service resolved=True" in lines
    feign = next(line for line in lines if line.startswith("C ") and "BillingClient" in line)
    assert "match=no_route why=no route of billing-service fits GET /billing/api/invoices/{orderId}" in feign

    # a listener's topic constant changes: the producer loses its listener
    edit(spring, f"{common}/Topics.java", 'ORDER_EVENTS = PREFIX + "orders.events"', 'ORDER_EVENTS = "orders"')
    graph.update()
    lines = same()
    assert "P kafka orders kind=kafka_template from=com.acme.orders.OrderEvents#placed(String) match=cross_service" \
        in lines

    # a controller is deleted: its routes go, and the client that called one becomes unresolved
    (spring / "inventory/src/main/java/com/acme/inventory/StockResource.java").unlink()
    graph.update()
    lines = same()
    assert not any("/rest/stock" in line and line.startswith("R ") for line in lines)


@pytest.mark.parametrize("location", ["file:../../outside-config", "file:escape"])
def test_a_config_server_location_out_of_the_project_is_not_read(tmp_path, location):
    """``..`` or a symlink in a config server's search-locations never leads the code index out of the project."""
    from graphlore.toolsets.code.index.graph import settings_of

    root = tmp_path / "system"
    shutil.copytree(FIXTURES / "spring-system", root)
    outside = tmp_path / "outside-config"
    outside.mkdir()
    (outside / "billing-service.yml").write_text("server:\n  servlet:\n    context-path: /leaked\n")
    (root / "config-server" / "escape").symlink_to(outside)
    config = root / "config-server" / "src/main/resources/application.yml"
    config.write_text(config.read_text().replace("classpath:/shared", location))
    values = settings_of(CodeGraph.build(root))[1]
    assert not any(v.get("server.servlet.context-path") == "/leaked" for v in values.values())
    assert not any("billing-service.yml" in f for v in values.values() for f in v.files)
    # the same file inside the project is read (the location rule, not the file, kept it out)
    shutil.copytree(outside, root / "config-server" / "inside")
    config.write_text(config.read_text().replace(location, "file:inside"))
    values = settings_of(CodeGraph.build(root))[1]
    assert any(v.get("server.servlet.context-path") == "/leaked" for v in values.values())


def test_cloud_system_routes_clients_and_links_are_exactly_the_hand_made_ones():
    # one pattern of issue 22 each (see the expected file's header), designed before the first run
    lines = [line for line in render(CodeGraph.build(FIXTURES / "cloud-system"))
             if line[0] in "RCP" or line.startswith(("E HTTP_CALLS", "E ASYNC_CALLS"))]
    assert lines == expected_lines("cloud_system_services.txt")


def test_a_service_goes_by_every_name_its_build_and_deployment_give_it():
    nodes, edges = CodeGraph.build(FIXTURES / "cloud-system").snapshot()
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert services["inventory-service"]["aliases"] == {
        "inventory-service": "spring.application.name", "inventory": "docker-compose service",
        "inventory-app": "artifactId", "inventory-svc": "folder"}
    assert services["orders-service"]["aliases"]["orders-api"] == "Kubernetes Service"
    assert services["notifier"]["aliases"]["notifier-image"] == "container image"   # Skaffold: image -> folder
    assert "mongo" not in {alias for p in services.values() for alias in p["aliases"]}   # a stock image: no service
    clients = {n.props["declaring_fqn"]: n.props for n in nodes.values() if n.kind == "client"}
    payments = clients["com.acme.orders.PaymentsClient#charge(Order)"]
    assert payments["target_service_matched_by"] == "URL host: the only service published at port 8083"
    levels = clients["com.acme.orders.InventoryLevels#level(String)"]
    assert levels["target_service_matched_by"] == "feign name: spring.application.name"
    assert clients["com.acme.orders.ShippingClient#audit(String,Order)"]["source_layer"] == "declared"


def test_a_deployment_file_edit_moves_links_as_a_full_build_would(tmp_path):
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    graph = CodeGraph.build(root)
    edit(root, "k8s/notifier.yaml", 'orders.addr: "orders-api:8080"', 'orders.addr: "payments:8080"')
    graph.update()
    lines = part2(graph)
    assert lines == part2(CodeGraph.build(root))
    assert any(line.startswith("C GET payments /orders/{order_id} kind=requests") and "match=no_route" in line
               for line in lines)
    (root / "k8s/notifier.yaml").unlink()   # no deployment file sets ORDERS_ADDR any more
    graph.update()
    lines = part2(graph)
    assert lines == part2(CodeGraph.build(root))
    assert any(line.startswith("C GET ? /orders/{?} kind=requests") and "variable ORDERS_ADDR is set by none" in line
               for line in lines)


def test_a_clients_url_settled_by_the_deployment_is_shown_and_no_longer_unresolved():
    """cloud-system: the notifier's ORDERS_ADDR comes from a ConfigMap; orders' payments URL from two profiles.
    The client shows the URL as settled, and only what stays unknown is a reason."""
    nodes, _ = CodeGraph.build(FIXTURES / "cloud-system").snapshot()
    by_label = {n.props["label"]: n.props for n in nodes.values() if n.kind == "client"}
    create = by_label["POST orders-service /orders"]
    assert (create["target_url"], create["resolved"], create["unresolved_reason"]) == (
        "http://orders-api:8080/orders", True, None)
    fetch = by_label["GET orders-service /orders/{order_id}"]
    assert fetch["target_url"] == "http://orders-api:8080/orders/{order_id}" and fetch["resolved"] is False
    assert "environment variable" not in fetch["unresolved_reason"] and "order_id" in fetch["unresolved_reason"]
    assert by_label["POST payments /charges"]["target_url"] == "{http://localhost:8083|http://payments:8080}/charges"
    assert by_label["GET inventory-service /levels/{sku}"]["target_url"] is None  # Feign: no URL of its own


def test_an_update_reads_again_only_the_frameworks_whose_files_changed_and_stays_equal_to_a_full_build(tmp_path):
    """Part 2 keeps each framework's items while none of the files it reads changed; a framework that reads
    again still sees what another file says (a mount's prefix moves the routes of a file that did not change)."""
    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURES / "py-system", root / "py")
    shutil.copytree(FIXTURES / "polyglot-web", root / "web")
    graph = CodeGraph.build(root)
    assert graph.update().frameworks_read == []   # nothing changed: nothing read again

    edit(root, "py/catalog/catalog/main.py", 'prefix="/api"', 'prefix="/api/v3"')
    stats = graph.update()
    # nginx and the configured proxies read their module settings and each module's first file, so any change
    # reads them again (cheaply)
    assert set(stats.frameworks_read) == {"python_web", "locust", "grpc_python", "amqp", "kafka", "azure_messaging", "dapr_sdks", "declared", "nginx",
                                          "proxies", "openapi_servers"}
    lines = part2(graph)
    assert lines == part2(CodeGraph.build(root))
    assert any(line.startswith("R GET /api/v3/") and "catalog.items" in line for line in lines)

    edit(root, "web/catalog/paths.go", '"/api/v1"', '"/api/v2"')   # a constant another Go file's routes use
    stats = graph.update()
    assert set(stats.frameworks_read) == {"go_web", "go_openapi", "grpc_go", "grpc_gokit", "watermill", "amqp", "dapr_sdks", "nginx",
                                          "proxies"}
    assert part2(graph) == part2(CodeGraph.build(root))


def test_locust_load_tests_are_clients_of_the_service_their_host_names():
    """load-tests: task functions of a TaskSet (host from the Dockerfile's ``locust --host`` and the Deployment's
    env), a user class naming its host, and one whose host nothing gives (unresolved, saying why)."""
    nodes, _ = CodeGraph.build(FIXTURES / "load-tests").snapshot()
    clients = {(n.props["microservice"], n.props["http_method"], n.props["target_path_template"] or
                n.props["target_path"]): n.props for n in nodes.values() if n.kind == "client"}
    assert all(c["client_kind"] == "locust" for c in clients.values())
    assert {key: (c["target_service"], c["match"]) for key, c in clients.items() if key[0] == "loadgen"} == {
        ("loadgen", "GET", "/"): ("shop", "cross_service"),
        ("loadgen", "GET", "/product/{?}"): ("shop", "cross_service"),
        ("loadgen", "POST", "/cart"): ("shop", "cross_service")}
    assert clients[("loadgen", "GET", "/")]["target_url"] == "http://shop:8080/"
    assert (clients[("smoke", "GET", "/")]["target_service"], clients[("smoke", "GET", "/")]["match"]) == (
        "shop", "cross_service")
    assert clients[("smoke", "GET", "/missing")]["match"] == "no_route"
    [orphan] = [c for key, c in clients.items() if key[0] == "orphan"]
    assert (orphan["http_method"], orphan["target_path"]) == ("GET", '"/cart"')
    assert orphan["match"] == "unresolved" and "LOCUST_HOST" in orphan["unresolved_reason"]
    assert not any(c["declaring_fqn"].endswith("helper") for c in clients.values())   # no task: not Locust's client


@pytest.mark.parametrize(("client", "route", "fits"), [
    ("/cart", "/{?}/cart", True),                  # an unknown prefix may be empty
    ("/a/b/cart", "/{?}/cart", True),              # or several segments
    ("/product/{id}", "/{?}/product/{pid}", True),
    ("/cart/x", "/{?}/cart", False),               # the known tail still has to fit
    ("/api/vx", "/api/v{?}", True),
    ("/api/x", "/api/v{?}", False),
    ("/cart", "/cart", False),                     # a route with nothing unknown is matched, not 'may fit'
])
def test_a_route_with_unknown_parts_may_fit_a_client_path(client, route, fits):
    """Such a route makes a client's no_route a claim nobody can make: the link stays unresolved instead."""
    from graphlore.toolsets.code.services.endpoints import may_fit
    assert may_fit(client, route) is fits
