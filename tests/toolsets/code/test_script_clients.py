"""JavaScript clients: the request package's calls, and k6 load tests as HTTP clients: ``http.get/post/del/request`` of ``k6/http`` (any name, or its functions
imported by name), the URL folded with ``__ENV.X`` settled by the deployment (a Dockerfile's ``k6 run -e``,
a Deployment's env) or the ``||`` default; a URL that does not fold is an unresolved client saying why."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.code_graph import FIXTURES

from graphlore.toolsets.code.index.graph import CodeGraph

SCRIPT = '''import http from "k6/http";
import { del as remove } from "k6/http";
import { check } from "k6";

const BASE = __ENV.SHOP_URL || "http://localhost:8080";

export default function () {
  http.get(`${BASE}/cart`);
  http.post(BASE + "/cart", JSON.stringify({ sku: "x" }));
  http.request("GET", `${BASE}/product/${__VU}`);
  remove(`${BASE}/cart`);
  http.get(pick());
}
'''


def _clients(root: Path) -> list[tuple[int, str | None, str | None, str | None, str | None]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return sorted((n.props["line"], n.props["http_method"], n.props["target_url"], n.props["target_service"],
                   n.props["match"]) for n in nodes.values()
                  if n.kind == "client" and n.props["client_kind"] == "k6")


def _project(tmp_path: Path, dockerfile: str) -> Path:
    root = tmp_path / "load-tests"
    shutil.copytree(FIXTURES / "load-tests", root)
    (root / "k6load").mkdir()
    (root / "k6load/script.js").write_text(SCRIPT)
    (root / "k6load/Dockerfile").write_text(dockerfile)
    return root


def test_k6_requests_are_clients_of_the_service_the_deployment_names(tmp_path: Path):
    root = _project(tmp_path, 'FROM grafana/k6\nCOPY script.js /s.js\nCMD ["run", "-e", "SHOP_URL=http://shop:8080", "/s.js"]\n')
    clients = _clients(root)
    assert [c[:2] for c in clients] == [(8, "GET"), (9, "POST"), (10, "GET"), (11, "DELETE"), (12, "GET")]
    by_line = {c[0]: c[2:] for c in clients}
    assert by_line[8] == ("http://shop:8080/cart", "shop", "cross_service")
    assert by_line[9] == ("http://shop:8080/cart", "shop", "cross_service")
    assert by_line[10][1:] == ("shop", "cross_service")     # /product/{?}: any product
    assert by_line[11] == ("http://shop:8080/cart", "shop", "no_route")   # the shop has no DELETE /cart
    assert by_line[12][2] == "unresolved"


def test_without_a_deployment_value_the_default_is_the_url(tmp_path: Path):
    """The || default stands in; the service is then named by the variable (SHOP_URL: shop), as for any
    environment read, and says so."""
    root = _project(tmp_path, "FROM grafana/k6\nCOPY script.js /s.js\n")
    nodes, _ = CodeGraph.build(root).snapshot()
    get = next(n.props for n in nodes.values() if n.kind == "client" and n.props["client_kind"] == "k6"
               and n.props["line"] == 8)
    assert (get["target_url"], get["target_service"]) == ("http://localhost:8080/cart", "shop")
    assert "the name of the environment variable SHOP_URL" in get["target_service_matched_by"]


REQUEST = '''const request = require("request");
const catalogueHost = process.env.CATALOGUE_HOST || "catalogue";

function getProduct(sku) {
  request("http://" + catalogueHost + ":8080/product/" + sku, (err, res, body) => {});
}

function addToCart(sku) {
  request({ url: `http://${catalogueHost}:8080/cart/${sku}`, method: "POST" }, () => {});
  request.del("http://" + catalogueHost + ":8080/cart/" + sku);
}
'''

CATALOGUE = '''const express = require("express");
const app = express();
app.get("/product/:sku", (req, res) => res.json({}));
app.post("/cart/:sku", (req, res) => res.json({}));
'''


def test_the_request_package_calls_are_clients(tmp_path: Path):
    """The Node request package (the cart-calls-catalogue shape): request(url, cb) is a GET, an options object
    gives url and method, request.del is a DELETE; the host from an env read's || default."""
    for name, source in (("cart", REQUEST), ("catalogue", CATALOGUE)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "package.json").write_text(f'{{"name": "{name}", "version": "1.0.0"}}\n')
        (tmp_path / name / "server.js").write_text(source)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    found = sorted((n.props["line"], n.props["http_method"], n.props["target_url"], n.props["match"])
                   for n in nodes.values() if n.kind == "client" and n.props["client_kind"] == "request")
    assert found == [(5, "GET", "http://catalogue:8080/product/{sku}", "cross_service"),
                     (9, "POST", "http://catalogue:8080/cart/{sku}", "cross_service"),
                     (10, "DELETE", "http://catalogue:8080/cart/{sku}", "no_route")]


DESTRUCTURED = '''const { ORDERS_URL = 'http://orders:3000', STOCK_URL: stock = 'http://stock-old:1', NOWHERE } = process.env;

async function run() {
  await fetch(`${ORDERS_URL}/orders`);
  await fetch(`${stock}/levels`);
  await fetch(`${NOWHERE}/x`);
}
'''


def test_destructured_environment_reads_with_defaults(tmp_path: Path):
    """``const { X = 'url' } = process.env``: an environment read whose default is the code's value, the
    deployment's value (Compose ``environment``) first, as ``process.env.X ?? 'url'`` would be."""
    for service, path in (("orders", "/orders"), ("stock", "/levels")):
        (tmp_path / service).mkdir()
        (tmp_path / service / "package.json").write_text(f'{{"name": "{service}"}}\n')
        (tmp_path / service / "index.js").write_text(
            f"const express = require('express');\nconst app = express();\napp.get('{path}', (req, res) => res.send());\n")
    (tmp_path / "web").mkdir()
    (tmp_path / "web/package.json").write_text('{"name": "web"}\n')
    (tmp_path / "web/index.js").write_text(DESTRUCTURED)
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n  web:\n    build: ./web\n    environment:\n      STOCK_URL: http://stock:3000\n"
        "  orders:\n    build: ./orders\n  stock:\n    build: ./stock\n")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    found = sorted((n.props["line"], n.props["target_url"], n.props["target_service"], n.props["match"])
                   for n in nodes.values() if n.kind == "client")
    assert found[:2] == [(4, "http://orders:3000/orders", "orders", "cross_service"),
                         (5, "http://stock:3000/levels", "stock", "cross_service")]
    assert found[2][0] == 6 and found[2][3] == "unresolved"


ANGULAR_JS = '''(function(angular) {
    var shop = angular.module('shop', []);
    shop.controller('payform', function($scope, $http, $location) {
        $scope.pay = function() {
            $http({
                url: '/api/payment/pay/' + $scope.data.id,
                method: 'POST',
                data: $scope.data.cart
            }).then((res) => { $location.url('/done'); });
        };
        function load() {
            $http.get('/api/cart/cart/' + $scope.data.id);
            $http({url: '/api/catalogue/categories'});
            $location.get('/not/a/request');
            $http({method: 'jsonp', url: '/api/feed'});
        }
    });
})(angular);
'''

ANGULAR_TS = '''import * as angular from "angular";

export class OrdersService {
  static $inject = ["$http"];
  constructor(private $http: angular.IHttpService) {}

  list(customer: string) {
    return this.$http.delete(`/api/orders/${customer}`);
  }

  place(order: object) {
    return this.$http({ method: "PUT", url: "/api/orders", data: order });
  }
}
'''


def test_angularjs_http_calls_are_clients(tmp_path: Path):
    """AngularJS's ``$http`` service, injected by that name: the config-object form (GET when no method is given)
    and the shortcut methods, called on the injected parameter (JS) or kept on ``this`` (TS)."""
    for name, file, source in (("web", "static/js/controller.js", ANGULAR_JS), ("shop", "src/orders.ts", ANGULAR_TS)):
        (tmp_path / name / file).parent.mkdir(parents=True)
        (tmp_path / name / "package.json").write_text(f'{{"name": "{name}", "version": "1.0.0"}}\n')
        (tmp_path / name / file).write_text(source)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    found = sorted((n.props["file"], n.props["line"], n.props["http_method"], n.props["label"].rsplit(" ", 1)[-1])
                   for n in nodes.values() if n.kind == "client")
    assert found == [("shop/src/orders.ts", 8, "DELETE", "/api/orders/{customer}"),
                     ("shop/src/orders.ts", 12, "PUT", "/api/orders"),
                     ("web/static/js/controller.js", 5, "POST", "/api/payment/pay/{id}"),
                     ("web/static/js/controller.js", 12, "GET", "/api/cart/cart/{id}"),
                     ("web/static/js/controller.js", 13, "GET", "/api/catalogue/categories"),
                     ("web/static/js/controller.js", 15, "GET", "/api/feed")]   # JSONP is a GET


AXIOS_NAMED_HTTP = '''import axios from "axios";

const $http = axios.create({ baseURL: "http://orders:3000" });

export function listOrders() {
  return $http.get("/orders");
}
'''


def test_an_axios_instance_named_dollar_http_stays_axios(tmp_path: Path):
    """``$http`` is also a common name for an axios instance (Vue projects): it is read as axios, with its
    ``baseURL``, before the name is taken for AngularJS's service."""
    (tmp_path / "web/src").mkdir(parents=True)
    (tmp_path / "web/package.json").write_text('{"name": "web", "version": "1.0.0", "dependencies": {"axios": "1"}}\n')
    (tmp_path / "web/src/api.js").write_text(AXIOS_NAMED_HTTP)
    # a wrapper of that name imported through a path alias, or declared in the file: the project's own, not a client
    (tmp_path / "web/src/users.js").write_text('import $http from "@/utils/http";\n\nexport const me = () => $http.get("/me");\n')
    (tmp_path / "web/src/wrap.js").write_text('function $http(options) { return fetch(options.url); }\n\n'
                                              'export const stock = () => $http({ url: "/stock" });\n')
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    found = sorted((n.props["client_kind"], n.props["http_method"], n.props.get("target_url"),
                    n.props.get("target_service")) for n in nodes.values() if n.kind == "client")
    assert found == [("axios", "GET", "http://orders:3000/orders", "orders"), ("fetch", "GET", "{url}", None)]
