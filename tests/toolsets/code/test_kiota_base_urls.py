"""A Kiota root client's base URL is what the project's constructions of it give its request adapter
(`frameworks.kiota_roots`): a method of the class that makes the adapter (its parameter bound to the construction's
argument: a ``@ConfigurationProperties`` getter on ``this.field``, an environment variable the deployment sets), a
local given ``setBaseUrl`` first, an adapter ``@Bean`` injected into a ``@Bean`` method, a new adapter (the generated
default); each root of a service its own; several values: unknown. Generated builders of one simple name in two
packages are two classes (each call site reaches its own)."""

from __future__ import annotations

import pytest
from helpers.code_tools import orders_service, write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

JAVA = "src/main/java/com/example/ui"
POM = ("<project><artifactId>ui</artifactId><dependencies><dependency><groupId>org.springframework.boot</groupId>"
       "<artifactId>spring-boot-starter-web</artifactId></dependency></dependencies></project>")
CATALOG = '''from flask import Flask

app = Flask(__name__)


@app.get("/products/<product_id>")
def product(product_id):
    return {}
'''


def _builder(package: str, name: str, template: str, returns: tuple[str, str, str] | None, get: bool) -> str:
    """A Kiota request builder (``returns``: (method, type, its import) of the next builder; ``get``: a GET)."""
    nxt = f'''    public {returns[1]} {returns[0]}() {{
        return new {returns[1]}(pathParameters, requestAdapter);
    }}
''' if returns else ""
    op = '''    public String get() {
        return this.requestAdapter.sendPrimitive(toGetRequestInformation(), null, String.class);
    }
    public RequestInformation toGetRequestInformation() {
        return new RequestInformation(HttpMethod.GET, urlTemplate, pathParameters);
    }
''' if get else ""
    imported = f"import {returns[2]};\n" if returns else ""
    return f'''package {package};

{imported}import com.microsoft.kiota.BaseRequestBuilder;
import com.microsoft.kiota.HttpMethod;
import com.microsoft.kiota.RequestAdapter;
import com.microsoft.kiota.RequestInformation;

@jakarta.annotation.Generated("com.microsoft.kiota")
public class {name} extends BaseRequestBuilder {{
    public {name}(final RequestAdapter requestAdapter) {{
        super(requestAdapter, "{template}");
    }}
{nxt}{op}}}
'''


def _client(api: str, root: str, segment: str, collection: str) -> dict[str, str]:
    """A root client ``root`` (package ``client.<api>``) -> ``<segment>()`` -> ``byId()`` -> ``GET /<segment>/{id}``;
    every client's item builder is named ``WithIdItemRequestBuilder``."""
    base = f"com.example.ui.client.{api}"
    folder = f"ui/{JAVA}/client/{api}"
    return {
        f"{folder}/{root}.java": _builder(base, root, "{+baseurl}",
                                          (segment, collection, f"{base}.{segment}.{collection}"), False),
        f"{folder}/{segment}/{collection}.java": _builder(
            f"{base}.{segment}", collection, f"{{+baseurl}}/{segment}",
            ("byId", "WithIdItemRequestBuilder", f"{base}.{segment}.item.WithIdItemRequestBuilder"), False),
        f"{folder}/{segment}/item/WithIdItemRequestBuilder.java": _builder(
            f"{base}.{segment}.item", "WithIdItemRequestBuilder", f"{{+baseurl}}/{segment}/{{id}}", None, True),
    }


USE = '''package com.example.ui.web;

import com.example.ui.client.catalog.CatalogClient;
import com.example.ui.client.orders.OrdersClient;

public class Shop {
    private final CatalogClient catalogClient;
    private final OrdersClient ordersClient;

    public Shop(CatalogClient catalogClient, OrdersClient ordersClient) {
        this.catalogClient = catalogClient;
        this.ordersClient = ordersClient;
    }

    public String product(String id) {
        return this.catalogClient.products().byId().get();
    }

    public String order(String id) {
        return ordersClient.orders().byId().get();
    }
}
'''
HEADER = '''package com.example.ui.config;

import com.example.ui.client.catalog.CatalogClient;
import com.example.ui.client.orders.OrdersClient;
import com.microsoft.kiota.RequestAdapter;
import com.microsoft.kiota.http.OkHttpRequestAdapter;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
public class Clients {
'''
ENDPOINTS = '''package com.example.ui.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

@ConfigurationProperties("shop.endpoints")
public class Endpoints {
    private String catalog;
    private String orders;

    public String getCatalog() { return catalog; }
    public String getOrders() { return orders; }
}
'''
#: a method of the class makes each adapter; the URLs come from @ConfigurationProperties getters on a field
THROUGH_METHOD = HEADER + '''    @Autowired
    private Endpoints endpoints;

    public RequestAdapter adapter(String endpoint) {
        var adapter = new OkHttpRequestAdapter(null);
        adapter.setBaseUrl(endpoint);
        return adapter;
    }

    @Bean
    public CatalogClient catalogClient() {
        return new CatalogClient(adapter(this.endpoints.getCatalog()));
    }

    @Bean
    public OrdersClient ordersClient() {
        return new OrdersClient(this.adapter(this.endpoints.getOrders()));
    }
}
'''
#: a local given setBaseUrl, and a new adapter (the generated default)
LOCAL_AND_NEW = HEADER + '''    @Bean
    public CatalogClient catalogClient() {
        RequestAdapter adapter = new OkHttpRequestAdapter(null);
        adapter.setBaseUrl("http://catalog:5000");
        return new CatalogClient(adapter);
    }

    @Bean
    public OrdersClient ordersClient() {
        return new OrdersClient(new OkHttpRequestAdapter(null));
    }
}
'''
#: an adapter bean injected into the bean method that builds the root client
INJECTED = HEADER + '''    @Bean
    public RequestAdapter catalogAdapter() {
        var adapter = new OkHttpRequestAdapter(null);
        adapter.setBaseUrl("http://catalog:5000");
        return adapter;
    }

    @Bean
    public CatalogClient catalogClient(RequestAdapter adapter) {
        return new CatalogClient(adapter);
    }

    @Bean
    public OrdersClient ordersClient() {
        RequestAdapter adapter = new OkHttpRequestAdapter(null);
        adapter.setBaseUrl("http://orders:8080");
        return new OrdersClient(adapter);
    }
}
'''
#: the catalog client built twice with different bases
TWICE = HEADER + '''    public CatalogClient one() {
        RequestAdapter adapter = new OkHttpRequestAdapter(null);
        adapter.setBaseUrl("http://catalog:5000");
        return new CatalogClient(adapter);
    }

    public CatalogClient two() {
        RequestAdapter adapter = new OkHttpRequestAdapter(null);
        adapter.setBaseUrl("http://orders:8080");
        return new CatalogClient(adapter);
    }
}
'''
#: the catalog adapter given its base in two branches: either may run
BRANCHED = HEADER + '''    @Bean
    public CatalogClient catalogClient() {
        RequestAdapter adapter = new OkHttpRequestAdapter(null);
        if (System.getenv("LOCAL") != null) {
            adapter.setBaseUrl("http://orders:8080");
        } else {
            adapter.setBaseUrl("http://catalog:5000");
        }
        return new CatalogClient(adapter);
    }
}
'''
COMPOSE = '''services:
  ui:
    build: ./ui
    environment:
      - SHOP_ENDPOINTS_ORDERS=http://orders:8080
  catalog:
    build: ./catalog
  orders:
    build: ./orders
'''


def _tree(config: str, **extra: str) -> dict[str, str]:
    orders_root = _client("orders", "OrdersClient", "orders", "OrdersRequestBuilder")
    orders_root[f"ui/{JAVA}/client/orders/OrdersClient.java"] = orders_root[
        f"ui/{JAVA}/client/orders/OrdersClient.java"].replace(
        'super(requestAdapter, "{+baseurl}");', 'super(requestAdapter, "{+baseurl}");\n'
        '        if (requestAdapter.getBaseUrl() == null) {\n'
        '            requestAdapter.setBaseUrl("http://orders:8080");\n        }')
    return {
        **orders_service(), "catalog/Dockerfile": "FROM python:3.12\n", "catalog/requirements.txt": "flask\n",
        "catalog/app.py": CATALOG, "ui/pom.xml": POM,
        **_client("catalog", "CatalogClient", "products", "ProductsRequestBuilder"), **orders_root,
        f"ui/{JAVA}/web/Shop.java": USE, f"ui/{JAVA}/config/Clients.java": config, **extra,
    }


def _calls(tmp_path, files: dict[str, str]) -> dict[str, dict]:
    """The generated clients of ``Shop``, by the method that makes them (``product``, ``order``)."""
    nodes, _ = CodeGraph.build(write_tree(tmp_path / "shop", files)).snapshot()
    out = {}
    for node in nodes.values():
        props = node.props
        if node.kind == "client" and props["file"].endswith("Shop.java"):
            assert props["declaring_fqn"].split("#")[-1].split("(")[0] not in out
            out[props["declaring_fqn"].split("#")[-1].split("(")[0]] = props
    return out


def _target(props: dict) -> tuple:
    return props["match"], props.get("target_service"), props["target_path_template"]


@pytest.mark.slow
def test_each_root_takes_what_the_method_making_its_adapter_is_given_through_config_and_deployment(tmp_path):
    files = _tree(THROUGH_METHOD, **{
        f"ui/{JAVA}/config/Endpoints.java": ENDPOINTS, "docker-compose.yml": COMPOSE,
        "ui/src/main/resources/application.yml": "shop:\n  endpoints:\n    catalog: http://catalog:5000\n    orders:\n"})
    found = _calls(tmp_path, files)
    assert _target(found["product"]) == ("cross_service", "catalog", "/products/{id}")
    assert found["product"]["base_url"] == "http://catalog:5000"
    # empty in application.yml, set by the deployment's SHOP_ENDPOINTS_ORDERS
    assert _target(found["order"]) == ("cross_service", "orders", "/orders/{id}")


@pytest.mark.slow
def test_a_local_given_its_base_first_and_a_new_adapter_taking_the_generated_default(tmp_path):
    found = _calls(tmp_path, _tree(LOCAL_AND_NEW))
    assert (found["product"]["base_url"], found["order"]["base_url"]) == ("http://catalog:5000", "http://orders:8080")
    assert _target(found["product"])[:2] == ("cross_service", "catalog")
    assert _target(found["order"])[:2] == ("cross_service", "orders")


@pytest.mark.slow
def test_an_adapter_bean_injected_into_the_bean_method_that_builds_the_root(tmp_path):
    found = _calls(tmp_path, _tree(INJECTED))
    assert (found["product"]["base_url"], found["order"]["base_url"]) == ("http://catalog:5000", "http://orders:8080")


@pytest.mark.slow
def test_a_root_built_with_two_bases_has_none_and_says_so(tmp_path):
    found = _calls(tmp_path, _tree(TWICE))
    assert found["product"]["match"] == "unresolved" and found["product"]["base_url"] is None
    assert "set 2 ways" in found["product"]["unresolved_reason"]


@pytest.mark.slow
def test_a_property_without_a_value_anywhere_leaves_the_base_unknown(tmp_path):
    files = _tree(THROUGH_METHOD, **{f"ui/{JAVA}/config/Endpoints.java": ENDPOINTS})
    found = _calls(tmp_path, files)
    assert found["product"]["match"] == "unresolved" and "shop.endpoints.catalog" in found["product"][
        "unresolved_reason"]


@pytest.mark.slow
def test_an_adapter_given_its_base_in_two_branches_has_both_never_the_last_line(tmp_path):
    """Two ``setBaseUrl`` before the construction (an ``if``/``else``): either may be the one the root carries, so
    the base is not the later line's."""
    found = _calls(tmp_path, _tree(BRANCHED))
    assert found["product"]["base_url"] != "http://catalog:5000"
    assert found["product"]["match"] != "cross_service"
