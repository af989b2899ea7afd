"""Java web applications as a servlet container serves them: JAX-RS routes under the war's context root (Maven
``<finalName>``, ``jboss-web.xml`` ``<context-root>``, else ``{?}``) and the ``web.xml`` ``<url-pattern>`` of the
JAX-RS servlet (Jersey, RESTEasy, an ``Application`` subclass), and clients whose URL carries the context root."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph


def _pom(name: str, build: str = "", packaging: str = "war") -> str:
    return (f"<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>"
            f"<groupId>com.acme</groupId><artifactId>{name}</artifactId><version>1.0</version>"
            f"<packaging>{packaging}</packaging>{build}</project>\n")


def _web_xml(servlet: str, pattern: str, name: str = "rest") -> str:
    return (f'<?xml version="1.0"?>\n<web-app xmlns="http://xmlns.jcp.org/xml/ns/javaee" version="3.1">\n'
            f"  <servlet><servlet-name>{name}</servlet-name>{servlet}</servlet>\n"
            f"  <servlet-mapping><servlet-name>{name}</servlet-name><url-pattern>{pattern}</url-pattern>"
            f"</servlet-mapping>\n</web-app>\n")


def _resource(package: str, path: str, extra: str = "") -> str:
    return f'''package {package};

import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
{extra}
@Path("{path}")
public class Resource {{
    @GET
    @Path("{{id}}")
    public String get(@PathParam("id") long id) {{ return ""; }}

    @POST
    public void add(String body) {{ }}
}}
'''


APPLICATION = '''package com.acme.billing;

import javax.ws.rs.ApplicationPath;
import javax.ws.rs.core.Application;

@ApplicationPath("/ignored")
public class BillingApplication extends Application { }
'''

ORDERS_APPLICATION = '''package com.acme.orders;

import javax.ws.rs.ApplicationPath;
import javax.ws.rs.core.Application;

@ApplicationPath("v1")
public class OrdersApplication extends Application { }
'''

CALLER = '''package com.acme.web;

import javax.ws.rs.client.ClientBuilder;
import javax.ws.rs.client.Entity;

public class Calls {
    private static final String INVENTORY = "http://inventory:8080/inventory/rest";

    String item(long id) {
        return ClientBuilder.newClient().target(INVENTORY).path("items").path(String.valueOf(id)).request().get(String.class);
    }

    void bill(String body) {
        ClientBuilder.newClient().target("http://billing:8080/billing-api/api/invoices").request().post(Entity.json(body));
    }

    void order(String body) {
        ClientBuilder.newClient().target("http://orders:8080/orders-1.0/v1/orders").request().post(Entity.json(body));
    }

    void stock(long id) {
        ClientBuilder.newClient().target("http://stock:8080/items/" + id).request().get(String.class);
    }
}
'''


def _tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {
        "pom.xml": ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>shop"
                    "</artifactId><version>1.0</version><packaging>pom</packaging><modules><module>inventory</module>"
                    "<module>billing</module><module>orders</module><module>stock</module><module>web</module>"
                    "</modules></project>\n"),
        # Jersey's servlet at /rest/*, the war named by <finalName> through a property (Tomcat's context root)
        "inventory/pom.xml": _pom("inventory", "<build><finalName>${project.artifactId}</finalName></build>"),
        "inventory/Dockerfile": "FROM tomcat:9\nCOPY target/*.war /usr/local/tomcat/webapps/\n",
        "inventory/src/main/webapp/WEB-INF/web.xml": _web_xml(
            "<servlet-class>org.glassfish.jersey.servlet.ServletContainer</servlet-class>", "/rest/*"),
        "inventory/src/main/java/com/acme/inventory/Resource.java": _resource("com.acme.inventory", "items"),
        # an Application subclass named as the servlet (no class): its mapping replaces @ApplicationPath;
        # the context root from jboss-web.xml
        "billing/pom.xml": _pom("billing", "<build><finalName>billing-war</finalName></build>"),
        "billing/Dockerfile": "FROM jboss/wildfly\n",
        "billing/src/main/webapp/WEB-INF/web.xml": _web_xml("", "/api/*", "com.acme.billing.BillingApplication"),
        "billing/src/main/webapp/WEB-INF/jboss-web.xml": "<jboss-web><context-root>/billing-api</context-root></jboss-web>\n",
        "billing/src/main/java/com/acme/billing/BillingApplication.java": APPLICATION,
        "billing/src/main/java/com/acme/billing/Resource.java": _resource("com.acme.billing", "/invoices"),
        # a war with no name of its own: the deployment chooses the context root
        "orders/pom.xml": _pom("orders"),
        "orders/Dockerfile": "FROM tomcat:9\n",
        "orders/src/main/java/com/acme/orders/OrdersApplication.java": ORDERS_APPLICATION,
        "orders/src/main/java/com/acme/orders/Resource.java": _resource("com.acme.orders", "orders"),
        # a jar (Quarkus, a Boot app): no context root
        "stock/pom.xml": _pom("stock", packaging="jar"),
        "stock/Dockerfile": "FROM eclipse-temurin:17\n",
        "stock/src/main/java/com/acme/stock/Resource.java": _resource("com.acme.stock", "items"),
        "web/pom.xml": _pom("web", packaging="jar"),
        "web/Dockerfile": "FROM eclipse-temurin:17\n",
        "web/src/main/java/com/acme/web/Calls.java": CALLER,
    })


def test_jaxrs_routes_under_the_servlet_mapping_and_the_context_root(tmp_path: Path):
    graph = CodeGraph.build(_tree(tmp_path))
    nodes, edges = graph.snapshot()
    routes = {(n.props["microservice"], n.props["http_method"], n.props["path_template"])
              for n in nodes.values() if n.kind == "route"}
    assert routes == {
        ("inventory", "GET", "/inventory/rest/items/{id}"), ("inventory", "POST", "/inventory/rest/items"),
        ("billing", "GET", "/billing-api/api/invoices/{id}"), ("billing", "POST", "/billing-api/api/invoices"),
        ("orders", "GET", "/{?}/v1/orders/{id}"), ("orders", "POST", "/{?}/v1/orders"),
        ("stock", "GET", "/items/{id}"), ("stock", "POST", "/items"),
    }
    orders = next(n.props for n in nodes.values() if n.kind == "route" and n.props["microservice"] == "orders")
    assert not orders["resolved"] and "no <finalName>" in orders["unresolved_reason"]

    by_id = {n.id: n for n in nodes.values()}
    clients = {n.props["line"]: n.props for n in nodes.values() if n.kind == "client"}
    linked = {by_id[e.src].props["line"]: (e.props["match"], by_id[e.dst].props.get("path_template"))
              for e in edges.values() if e.type == "HTTP_CALLS"}
    assert linked == {
        10: ("cross_service", "/inventory/rest/items/{id}"),   # the context root in the client's base URL
        14: ("cross_service", "/billing-api/api/invoices"),
        22: ("cross_service", "/items/{id}"),
    }
    # a route whose context root is not known could fit, so the client links to nothing (never guessed)
    assert clients[18]["match"] == "unresolved" and "POST /{?}/v1/orders" in clients[18]["match_detail"]

    # a changed mapping or context root: incremental == full
    (tmp_path / "inventory/src/main/webapp/WEB-INF/web.xml").write_text(_web_xml(
        "<servlet-class>org.glassfish.jersey.servlet.ServletContainer</servlet-class>", "/api/*"))
    (tmp_path / "billing/src/main/webapp/WEB-INF/jboss-web.xml").write_text("<jboss-web/>\n")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    labels = {n.props["label"] for n in graph.snapshot()[0].values() if n.kind == "route"}
    assert {"GET /inventory/api/items/{id}", "GET /billing-war/api/invoices/{id}"} <= labels


BASE_SERVLET = '''package com.acme.shopui;

import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

public abstract class PageServlet extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        render(request, response);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        render(request, response);
    }

    protected abstract void render(HttpServletRequest request, HttpServletResponse response) throws IOException;
}
'''

PAGES = '''package com.acme.shopui;

import java.io.IOException;
import javax.servlet.ServletException;
import javax.servlet.annotation.WebServlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

@WebServlet("/index")
class IndexServlet extends PageServlet {
    protected void render(HttpServletRequest request, HttpServletResponse response) { }
}

@WebServlet(urlPatterns = {Paths.CART, "/basket"}, name = "cart")
class CartServlet extends PageServlet {
    protected void render(HttpServletRequest request, HttpServletResponse response) { }
}

@WebServlet(value = "/files/*")
class FileServlet extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) { }
    @Override
    protected void doDelete(HttpServletRequest request, HttpServletResponse response) { }
}

class LegacyServlet extends HttpServlet {
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) { }
}

class ReportServlet extends com.vendor.BaseServlet {
}

class Paths {
    static final String CART = "/cart";
}
'''

SHOP_UI_WEB_XML = '''<?xml version="1.0"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="5.0">
  <servlet><servlet-name>legacy</servlet-name><servlet-class>com.acme.shopui.LegacyServlet</servlet-class></servlet>
  <servlet-mapping><servlet-name>legacy</servlet-name><url-pattern>*.do</url-pattern></servlet-mapping>
  <servlet><servlet-name>report</servlet-name><servlet-class>com.acme.shopui.ReportServlet</servlet-class></servlet>
  <servlet-mapping><servlet-name>report</servlet-name><url-pattern>/report</url-pattern></servlet-mapping>
  <servlet><servlet-name>jersey</servlet-name>
    <servlet-class>org.glassfish.jersey.servlet.ServletContainer</servlet-class></servlet>
  <servlet-mapping><servlet-name>jersey</servlet-name><url-pattern>/rest/*</url-pattern></servlet-mapping>
</web-app>
'''

UI_CALLER = '''package com.acme.probe;

import javax.ws.rs.client.ClientBuilder;

public class Probe {
    String home() {
        return ClientBuilder.newClient().target("http://shop-ui:8080/shop/index").request().get(String.class);
    }

    String cart() {
        return ClientBuilder.newClient().target("http://shop-ui:8080/shop/basket").request().post(null);
    }
}
'''


RENDER = "render(HttpServletRequest,HttpServletResponse)"


def test_servlets_by_web_servlet_and_web_xml_with_the_methods_they_handle(tmp_path: Path):
    root = write_tree(tmp_path, {
        "pom.xml": ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>all"
                    "</artifactId><version>1.0</version><packaging>pom</packaging><modules><module>shop-ui</module>"
                    "<module>probe</module></modules></project>\n"),
        "shop-ui/pom.xml": _pom("shop-ui", "<build><finalName>shop</finalName></build>"),
        "shop-ui/Dockerfile": "FROM tomcat:10\n",
        "shop-ui/src/main/webapp/WEB-INF/web.xml": SHOP_UI_WEB_XML,
        "shop-ui/src/main/java/com/acme/shopui/PageServlet.java": BASE_SERVLET,
        "shop-ui/src/main/java/com/acme/shopui/Pages.java": PAGES,
        "probe/pom.xml": _pom("probe", packaging="jar"),
        "probe/Dockerfile": "FROM eclipse-temurin:17\n",
        "probe/src/main/java/com/acme/probe/Probe.java": UI_CALLER,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    routes = {(n.props["http_method"], n.props["path_template"], n.props["handler_fqn"], n.props["resolved"])
              for n in nodes.values() if n.kind == "route"}
    assert routes == {
        # inherited doGet/doPost, filed at the page's own method they hand the request to (a template method)
        ("GET", "/shop/index", f"com.acme.shopui.IndexServlet#{RENDER}", True),
        ("POST", "/shop/index", f"com.acme.shopui.IndexServlet#{RENDER}", True),
        ("GET", "/shop/cart", f"com.acme.shopui.CartServlet#{RENDER}", True),       # a constant in the array
        ("POST", "/shop/cart", f"com.acme.shopui.CartServlet#{RENDER}", True),
        ("GET", "/shop/basket", f"com.acme.shopui.CartServlet#{RENDER}", True),
        ("POST", "/shop/basket", f"com.acme.shopui.CartServlet#{RENDER}", True),
        # its own handlers, at each method
        ("GET", "/shop/files/**", "com.acme.shopui.FileServlet#doGet(HttpServletRequest,HttpServletResponse)", True),
        ("DELETE", "/shop/files/**",
         "com.acme.shopui.FileServlet#doDelete(HttpServletRequest,HttpServletResponse)", True),
        # web.xml only: service() takes any method; a library base class: any method, unresolved
        ("ANY", "/shop/**/*.do", "com.acme.shopui.LegacyServlet#service(HttpServletRequest,HttpServletResponse)", True),
        ("ANY", "/shop/report", "com.acme.shopui.ReportServlet", False),
    }
    by_id = {n.id: n for n in nodes.values()}
    linked = {(by_id[e.src].props["line"], e.props["match"], by_id[e.dst].props.get("label"))
              for e in edges.values() if e.type == "HTTP_CALLS"}
    assert linked == {(7, "cross_service", "GET /shop/index"), (11, "cross_service", "POST /shop/basket")}


def test_jboss_web_xml_names_the_context_root_of_a_war_without_web_xml(tmp_path: Path):
    """A war of annotated resources has no ``web.xml``; its ``jboss-web.xml`` still names the context root, which
    comes before the war's ``<finalName>``."""
    write_tree(tmp_path, {
        "stock/pom.xml": _pom("stock", "<build><finalName>stock</finalName></build>"),
        "stock/Dockerfile": "FROM jboss/wildfly\n",
        "stock/src/main/webapp/WEB-INF/jboss-web.xml": "<jboss-web><context-root>/warehouse</context-root></jboss-web>\n",
        "stock/src/main/java/com/acme/stock/Resource.java": _resource("com.acme.stock", "/items"),
    })
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    paths = {n.props["path_template"] for n in nodes.values() if n.kind == "route"}
    assert paths == {"/warehouse/items/{id}", "/warehouse/items"}


def test_a_war_renamed_by_its_dockerfile_is_served_under_the_deployed_name(tmp_path: Path):
    """``COPY target/stock.war .../deployments/ROOT.war`` serves the war at ``/`` whatever its ``<finalName>``;
    two Dockerfiles deploying it under different names leave the context root unknown (never one of them)."""
    write_tree(tmp_path, {
        "stock/pom.xml": _pom("stock", "<build><finalName>stock</finalName></build>"),
        "stock/Dockerfile": "FROM quay.io/wildfly/wildfly\n"
                            "COPY --chown=jboss target/stock.war /opt/jboss/wildfly/standalone/deployments/ROOT.war\n",
        "stock/src/main/java/com/acme/stock/Resource.java": _resource("com.acme.stock", "/items"),
    })
    graph = CodeGraph.build(tmp_path)

    def paths() -> set[str]:
        return {n.props["path_template"] for n in graph.snapshot()[0].values() if n.kind == "route"}

    assert paths() == {"/items/{id}", "/items"}
    (tmp_path / "stock/Dockerfile.tomcat").write_text("FROM tomcat:9\nCOPY target/stock.war /usr/local/tomcat/webapps/\n")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    assert paths() == {"/{?}/items/{id}", "/{?}/items"}


def test_a_metadata_complete_web_xml_leaves_web_servlet_unread(tmp_path: Path):
    """``<web-app metadata-complete="true">``: the container ignores ``@WebServlet``, so only the ``web.xml``
    mappings are routes."""
    servlet = ('package com.acme.ui;\n\nimport javax.servlet.annotation.WebServlet;\nimport javax.servlet.http.*;\n\n'
               '@WebServlet("/annotated")\npublic class Page extends HttpServlet {\n'
               '    protected void doGet(HttpServletRequest req, HttpServletResponse resp) { }\n}\n')
    web_xml = _web_xml("<servlet-class>com.acme.ui.Page</servlet-class>", "/mapped", "page").replace(
        'version="3.1">', 'version="3.1" metadata-complete="true">')
    write_tree(tmp_path, {
        "ui/pom.xml": _pom("ui", "<build><finalName>ROOT</finalName></build>"),
        "ui/Dockerfile": "FROM tomcat:9\n",
        "ui/src/main/webapp/WEB-INF/web.xml": web_xml,
        "ui/src/main/java/com/acme/ui/Page.java": servlet,
    })
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    assert {n.props["label"] for n in nodes.values() if n.kind == "route"} == {"GET /mapped"}


def test_a_web_xml_that_is_not_well_formed_leaves_the_jaxrs_mapping_unknown(tmp_path: Path):
    """A broken ``web.xml`` may map the JAX-RS servlet anywhere: the routes say so (``{?}``), never ``@ApplicationPath``
    or no prefix as if it were absent."""
    write_tree(tmp_path, {
        "inv/pom.xml": _pom("inv", "<build><finalName>ROOT</finalName></build>"),
        "inv/Dockerfile": "FROM tomcat:9\n",
        "inv/src/main/webapp/WEB-INF/web.xml": "<web-app><servlet><servlet-name>rest</servlet-name>\n",
        "inv/src/main/java/com/acme/inv/Resource.java": _resource("com.acme.inv", "/items"),
    })
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    routes = {n.props["path_template"]: n.props for n in nodes.values() if n.kind == "route"}
    assert set(routes) == {"/{?}/items", "/{?}/items/{id}"}
    assert "inv/src/main/webapp/WEB-INF/web.xml is not well-formed XML" in routes["/{?}/items"]["unresolved_reason"]


TEMPLATE_BASE = '''package com.acme.ui;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

public abstract class UiServlet extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) {
        prepare(request);
        handleGet(request, response);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) {
        handlePost(request, response);
    }

    @Override
    protected void doPut(HttpServletRequest request, HttpServletResponse response) {
        handleGet(request, response);
        handlePost(request, response);
    }

    protected void prepare(HttpServletRequest request) { }

    protected void handlePost(HttpServletRequest request, HttpServletResponse response) {
        handleGet(request, response);
    }

    protected abstract void handleGet(HttpServletRequest request, HttpServletResponse response);
}
'''

TEMPLATE_PAGES = '''package com.acme.ui;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

@WebServlet("/catalog")
public class CatalogPage extends UiServlet {
    @Override
    protected void handleGet(HttpServletRequest request, HttpServletResponse response) { }
}

@WebServlet("/login")
class LoginPage extends UiServlet {
    @Override
    protected void handleGet(HttpServletRequest request, HttpServletResponse response) { }

    @Override
    protected void handlePost(HttpServletRequest request, HttpServletResponse response) { }
}
'''


def test_an_inherited_handler_is_filed_at_the_template_method_the_servlet_overrides(tmp_path: Path):
    """A project base servlet's ``doGet`` that calls a method the page overrides files the route at the page's
    method, also through the base's own methods (``doPost`` -> ``handlePost`` -> ``handleGet``); a handler that
    reaches two of the page's methods stays at the class (neither is the one)."""
    write_tree(tmp_path, {
        "ui/pom.xml": _pom("ui", "<build><finalName>ui</finalName></build>"),
        "ui/Dockerfile": "FROM tomcat:10\n",
        "ui/src/main/java/com/acme/ui/UiServlet.java": TEMPLATE_BASE,
        "ui/src/main/java/com/acme/ui/Pages.java": TEMPLATE_PAGES,
    })
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    routes = {(n.props["http_method"], n.props["path_template"], n.props["handler_fqn"])
              for n in nodes.values() if n.kind == "route"}
    get, post = "handleGet(HttpServletRequest,HttpServletResponse)", "handlePost(HttpServletRequest,HttpServletResponse)"
    assert routes == {
        ("GET", "/ui/catalog", f"com.acme.ui.CatalogPage#{get}"),
        ("POST", "/ui/catalog", f"com.acme.ui.CatalogPage#{get}"),     # through the base's handlePost
        ("PUT", "/ui/catalog", f"com.acme.ui.CatalogPage#{get}"),
        ("GET", "/ui/login", f"com.acme.ui.LoginPage#{get}"),
        ("POST", "/ui/login", f"com.acme.ui.LoginPage#{post}"),        # its own override
        ("PUT", "/ui/login", "com.acme.ui.LoginPage"),                 # reaches both: the class
    }


PRIVATE_BASE = '''package com.acme.ui;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

public abstract class BaseServlet extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) {
        audit(request);
        handleGet(request, response);
    }

    private void audit(HttpServletRequest request) { }

    protected void handleGet(HttpServletRequest request, HttpServletResponse response) { }
}
'''

PRIVATE_PAGE = '''package com.acme.ui;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServletRequest;

@WebServlet("/about")
public class AboutPage extends BaseServlet {
    private void audit(HttpServletRequest request) { }
}
'''


def test_a_private_method_of_the_page_is_no_template_method(tmp_path: Path):
    """The base's ``doGet`` calls its own private ``audit``: the page's private ``audit`` of the same name overrides
    nothing, so it is not the method the request is handed to (the page overrides no template method: the class)."""
    write_tree(tmp_path, {
        "ui/pom.xml": _pom("ui", "<build><finalName>ui</finalName></build>"),
        "ui/Dockerfile": "FROM tomcat:10\n",
        "ui/src/main/java/com/acme/ui/BaseServlet.java": PRIVATE_BASE,
        "ui/src/main/java/com/acme/ui/AboutPage.java": PRIVATE_PAGE,
    })
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    routes = {(n.props["http_method"], n.props["path_template"], n.props["handler_fqn"])
              for n in nodes.values() if n.kind == "route"}
    assert routes == {("GET", "/ui/about", "com.acme.ui.AboutPage")}
