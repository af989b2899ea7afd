"""HAProxy and Caddy configurations are gateway routes (`frameworks.haproxy`, `frameworks.caddy`): in a service
(``haproxy*.cfg``, a ``Caddyfile``) or run by a proxy container of their own (`layout.edge`), each forwarding to
the service its servers or upstreams name."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import orders_service, write_tree

from graphlore.toolsets.code.frameworks.caddy import caddy_routes
from graphlore.toolsets.code.frameworks.haproxy import haproxy_routes
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import plain
from graphlore.toolsets.code.query.filters import FRAMEWORKS

HAPROXY = """global
    maxconn 256
defaults
    mode http
frontend http-in
    bind *:80
    acl is_api path_beg /api/
    acl is_api path_beg /v2
    acl shop hdr(host) -i shop.example.com
    acl legacy path_reg ^/old/
    use_backend orders if is_api shop
    use_backend static if { path_beg /static }
    use_backend orders if legacy
    use_backend health if { path /health }
    default_backend web
backend orders
    http-request replace-path ^/api(/.*)? \\1
    server o1 "${env:ORDERS_HOST}:8000" check
backend static
    server s1 static:80
    server s2 static-b:80
backend web
    server w web:3000
backend health
    http-request set-path /status
    server h web:3000
listen stats
    bind :8404
    server app app:9000
"""


def _shown(routes) -> list[tuple[int, str, str | None, list[str] | None, str | None]]:
    return [(line, pattern, plain(f.target.text) if f.target is not None else None,
             list(f.rewrite) if f.rewrite else None, problem) for line, _, pattern, f, problem, _ in routes]


def test_haproxy_frontend_rules_backends_and_listen_sections():
    assert _shown(haproxy_routes("haproxy.cfg", HAPROXY)) == [
        (11, "/api/**", "http://${env:ORDERS_HOST}:8000", ["/api", "/"], None),   # ACL lines of one name are ORed;
        (11, "/v2/**", "http://${env:ORDERS_HOST}:8000", None, None),             # the host is no part of the route
        (12, "/static/**", "{http://static:80|http://static-b:80}", None, None),
        (13, "/**", None, ["/api", "/"], "its condition 'legacy' is not read"),
        (14, "/health", None, None, "the rule at line 13, which may match first, is not read"),
        (15, "/**", "http://web:3000", None, None),
        (27, "/**", "http://app:9000", None, None),
    ]


def test_haproxy_alternatives_and_a_regsub_set_path():
    text = """frontend front
    acl legacy path_beg -i /airports
    use_backend grafana if { path /grafana } or { path_beg /grafana/ }
    use_backend airports if legacy || { path_beg /v1/airports }
    use_backend airports if !legacy
backend grafana
    http-request set-path %[path,regsub(^/grafana/?,/)]
    server g grafana:3000
backend airports
    server a airports:8080 check resolvers docker_resolver
"""
    assert _shown(haproxy_routes("haproxy.cfg", text)) == [
        (3, "/grafana", "http://grafana:3000", ["/grafana", "/"], None),
        (3, "/grafana/**", "http://grafana:3000", ["/grafana", "/"], None),
        (4, "/airports/**", "http://airports:8080", None, None),
        (4, "/v1/airports/**", "http://airports:8080", None, None),
        (5, "/**", None, None, "its condition '!legacy' is not read"),
    ]


def test_haproxy_reads_no_rule_it_cannot_be_sure_of():
    """The first rule that matches wins (a later rule under an earlier prefix is never reached; after a rule not
    read, no later rule is sure); a frontend's own rewrite changes the paths every rule sees; ``-m``/``-f`` flags
    change what an ACL's words are. Before, each of these drew a route to a backend the request never reaches."""
    first = """frontend fe
    use_backend carts if { path_beg /api }
    use_backend orders if { path_beg /api/orders }
    use_backend admin if { hdr(host) -i admin.local }
    use_backend orders if { path_beg /shop }
    use_backend carts if { path_end .php }
    use_backend orders if { path /health }
backend orders
    server o orders:8000
backend carts
    server c carts:8000
backend admin
    server a admin:8000
"""
    assert _shown(haproxy_routes("lb.cfg", first)) == [
        (2, "/api/**", "http://carts:8000", None, None),
        (4, "/**", "http://admin:8000", None, None),   # by host: it takes no path from the rules after it
        (5, "/shop/**", "http://orders:8000", None, None),
        (6, "/**", None, None, "its condition '{ path_end .php }' is not read"),
        (7, "/health", None, None, "the rule at line 6, which may match first, is not read"),
    ]
    rewritten = """frontend fe
    http-request set-path /v2%[path]
    use_backend orders if { path_beg /v2/orders }
    default_backend orders
backend orders
    server o orders:8000
"""
    why = "its frontend's path rewrite 'http-request set-path /v2%[path]' is not read"
    assert _shown(haproxy_routes("lb.cfg", rewritten)) == [(3, "/v2/orders/**", None, None, why),
                                                           (4, "/**", None, None, why)]
    flags = """frontend fe
    acl api path -m beg /api
    acl listed path_beg -f /etc/haproxy/api.lst
    acl caseless path_beg -i /shop
    use_backend orders if api
    use_backend orders if listed
    use_backend orders if caseless
backend orders
    server o orders:8000
"""
    assert _shown(haproxy_routes("lb.cfg", flags)) == [
        (5, "/**", None, None, "its condition 'api' is not read"),
        (6, "/**", None, None, "its condition 'listed' is not read"),
        (7, "/shop/**", None, None, "the rule at line 5, which may match first, is not read")]


CADDYFILE = """{
    email admin@example.com
}
(common) {
    encode gzip
}
shop.example.com, :80 {
    import common
    @api path /api/* /v1/*
    @post {
        method POST
        path /form/*
    }
    handle_path /orders/* {
        reverse_proxy orders:8000
    }
    handle /static/* {
        file_server
    }
    route /carts/* {
        uri strip_prefix /carts
        reverse_proxy {$CART_HOST}:8080
    }
    reverse_proxy @api api1:9000 api2:9000
    reverse_proxy @post form:80
    reverse_proxy /ws/* ws:80
    reverse_proxy {
        to web:3000
    }
}
"""


def test_caddy_reverse_proxies_with_their_matchers_and_handle_blocks():
    assert _shown(caddy_routes("Caddyfile", CADDYFILE)) == [
        (15, "/orders/**", "http://orders:8000", ["/orders", "/"], None),   # handle_path strips its prefix
        (22, "/carts/**", "http://${env:CART_HOST}:8080", ["/carts", "/"], None),
        (24, "/api/**", "{http://api1:9000|http://api2:9000}", None, None),
        (24, "/v1/**", "{http://api1:9000|http://api2:9000}", None, None),
        (25, "/**", None, None, "its matcher @post (method POST) is not read"),
        (26, "/ws/**", "http://ws:80", None, None),
        (27, "/**", "http://web:3000", None, None),
    ]


def test_caddy_matchers_inside_a_block_see_the_path_it_left():
    """A matcher inside ``handle_path`` sees the path with the prefix stripped (the client sends ``/api/orders/..``);
    one outside its block's path is never reached; a ``uri strip_prefix`` that some of the block's paths lack is
    not read; in a ``route`` block the first ``reverse_proxy`` that matches wins. Before, the first read
    ``/orders/**`` unstripped, the second ``/v1/**``, the third drew ``/admin/**``, the fourth said the upstream
    sees the path unchanged, the last drew ``/r/orders/**``, which no request reaches."""
    text = """:80 {
    handle_path /api/* {
        reverse_proxy /orders/* orders:8000
    }
    handle_path /x/* {
        handle_path /v1/* {
            reverse_proxy orders:8000
        }
    }
    handle /y/* {
        reverse_proxy /admin/* admin:8000
    }
    handle_path /z/* {
        uri strip_prefix /v1
        reverse_proxy orders:8000
    }
    route /r/* {
        reverse_proxy /r/* carts:8000
        reverse_proxy /r/orders/* orders:8000
    }
}
"""
    assert _shown(caddy_routes("Caddyfile", text)) == [
        (3, "/api/orders/**", "http://orders:8000", ["/api", "/"], None),
        (7, "/x/v1/**", "http://orders:8000", ["/x/v1", "/"], None),
        (15, "/z/**", None, None, "its 'uri strip_prefix /v1' strips only some of its paths (/z/**): not read"),
        (18, "/r/**", "http://carts:8000", None, None),   # a route block runs as written: the first one wins
    ]


def test_a_caddy_sites_path_is_every_routes():
    """Before, a site at ``localhost/api/*`` gave ``/**`` (every path of the container)."""
    text = ("http://localhost:80/api/* {\n    reverse_proxy orders:8000\n}\n"
            "a.com/x/*, b.com {\n    reverse_proxy web:3000\n}\n")
    assert _shown(caddy_routes("Caddyfile", text)) == [
        (2, "/api/**", "http://orders:8000", None, None),
        (5, "/**", None, None, "its site's addresses have different paths (a.com/x/*, b.com), not read")]


def test_a_caddy_rewrite_anywhere_in_the_site_is_said():
    """Caddy runs ``uri``/``rewrite`` before ``reverse_proxy`` wherever they are written, and ``reverse_proxy``
    has a ``rewrite`` of its own. Before, each of these forwarded the path unchanged."""
    sites = [":80 {\n    uri strip_prefix /api\n    reverse_proxy orders:8000\n}\n",
             ":80 {\n    rewrite * /v2{uri}\n    reverse_proxy orders:8000\n}\n",
             ":80 {\n    reverse_proxy orders:8000 {\n        rewrite /v2{uri}\n    }\n}\n",
             "localhost/api/* {\n    uri strip_prefix /api\n    reverse_proxy orders:8000\n}\n"]
    assert [_shown(caddy_routes("Caddyfile", text)) for text in sites] == [
        [(3, "/**", None, None, "its 'uri strip_prefix /api' strips only some of its paths (/**): not read")],
        [(3, "/**", None, None, "its 'rewrite * /v2{uri}' is not read")],
        [(2, "/**", None, None, "its 'rewrite /v2{uri}' is not read")],
        [(3, "/api/**", "http://orders:8000", ["/api", "/"], None)]]


def test_the_framework_filter_knows_them():
    assert {"haproxy", "caddy"} <= set(FRAMEWORKS)


def _links(root: Path, graph: CodeGraph | None = None) -> list[tuple[str, str, str, str]]:
    nodes, edges = (graph or CodeGraph.build(root)).snapshot()
    return sorted((nodes[e.src].props["microservice"], nodes[e.src].props["framework"], nodes[e.src].props["label"],
                   nodes[e.dst].props["label"]) for e in edges.values() if e.type == "HTTP_CALLS")


def test_a_haproxy_container_and_a_caddy_container_forward_to_the_service(tmp_path: Path):
    """Before: each was a service with no routes (their configuration was not read)."""
    write_tree(tmp_path, {
        **orders_service(),
        "lb/Dockerfile": "FROM haproxy:2.9\nCOPY lb.cfg /usr/local/etc/haproxy/haproxy.cfg\n",
        "lb/lb.cfg": "frontend f\n    bind :80\n    use_backend orders if { path_beg /orders }\n"
                     "backend orders\n    server o orders:8000\n",
        "edge/Caddyfile": ":80 {\n    reverse_proxy /orders/* orders:8000\n}\n",
        "docker-compose.yml": "services:\n  lb:\n    build: ./lb\n  edge:\n    image: caddy:2\n    volumes:\n"
                              "      - ./edge/Caddyfile:/etc/caddy/Caddyfile\n  orders:\n    build: ./orders\n"})
    graph = CodeGraph.build(tmp_path)
    assert _links(tmp_path, graph) == [("edge", "caddy", "ANY /orders/**", "GET /orders/{order_id}"),
                                       ("edge", "caddy", "ANY /orders/**", "POST /orders"),
                                       ("lb", "haproxy", "ANY /orders/**", "GET /orders/{order_id}"),
                                       ("lb", "haproxy", "ANY /orders/**", "POST /orders")]
    # a backend's rewrite not read: the route forwards nowhere known (before: to /orders/** unchanged)
    (tmp_path / "lb/lb.cfg").write_text("frontend f\n    use_backend orders if { path_beg /orders }\nbackend orders\n"
                                        "    http-request replace-path ^/orders/(.*) /v2/orders/\\1\n"
                                        "    server o orders:8000\n")
    assert [link for link in _links(tmp_path) if link[0] == "lb"] == []
    # ``lb.cfg`` is no configuration file by its name: its edit still moves the routes, as a full build gives
    (tmp_path / "lb/lb.cfg").write_text("frontend f\n    use_backend orders if { path_beg /shop }\n"
                                        "backend orders\n    server o orders:8000\n")
    graph.update()
    assert [link for link in _links(tmp_path, graph) if link[0] == "lb"] == [
        link for link in _links(tmp_path) if link[0] == "lb"] == []   # /shop/orders/1: no route of orders


def test_a_caddyfile_in_a_services_folder_is_its_gateway(tmp_path: Path):
    write_tree(tmp_path, {
        **orders_service(),
        "web/package.json": '{"name": "web"}\n', "web/server.js": "const express = require('express');\n",
        "web/Caddyfile": "shop.example.com {\n    handle_path /api/* {\n        reverse_proxy orders:8000\n    }\n}\n",
        "docker-compose.yml": "services:\n  web:\n    build: ./web\n  orders:\n    build: ./orders\n"})
    assert _links(tmp_path) == [("web", "caddy", "ANY /api/**", "GET /orders/{order_id}"),
                                ("web", "caddy", "ANY /api/**", "POST /orders")]
