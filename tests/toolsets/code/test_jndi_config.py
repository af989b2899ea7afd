"""A Java web application's container settings in its service's ``describe``: ``web.xml`` env entries,
context and init parameters and resource references, Tomcat ``context.xml`` environments, and each JNDI
lookup, ``@Resource`` and ``getInitParameter`` of its code with the value its files declare for that name (or
saying none does); a ``lookup`` on something that is no JNDI context is no setting."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

WEB_XML = '''<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="5.0">
  <context-param>
    <param-name>mode</param-name>
    <param-value>live</param-value>
  </context-param>
  <servlet>
    <servlet-name>orders</servlet-name>
    <servlet-class>com.acme.shop.OrdersServlet</servlet-class>
    <init-param>
      <param-name>pageSize</param-name>
      <param-value>20</param-value>
    </init-param>
  </servlet>
  <env-entry>
    <env-entry-name>registryURL</env-entry-name>
    <env-entry-type>java.lang.String</env-entry-type>
    <env-entry-value>http://registry:8080/registry/rest/services/</env-entry-value>
  </env-entry>
  <env-entry>
    <env-entry-name>greeting</env-entry-name>
    <env-entry-value>hello</env-entry-value>
  </env-entry>
  <resource-ref>
    <res-ref-name>jdbc/Orders</res-ref-name>
    <res-type>javax.sql.DataSource</res-type>
  </resource-ref>
</web-app>
'''

CONTEXT_XML = '''<Context>
  <Environment name="databaseHost" value="db" type="java.lang.String" override="false"/>
</Context>
'''

SETTINGS = '''package com.acme.shop;

import jakarta.annotation.Resource;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.servlet.http.HttpServlet;

public class OrdersServlet extends HttpServlet {
    @Resource(name = "greeting")
    private String greeting;

    @Resource(name = "orderService")
    private Object orders;

    String registry() throws Exception {
        return (String) new InitialContext().lookup("java:comp/env/registryURL");
    }

    Object orders() throws Exception {
        Context env = (Context) new InitialContext().lookup("java:comp/env");
        return env.lookup("jdbc/Orders");
    }

    String host() throws Exception {
        return (String) new InitialContext().lookup("java:comp/env/databaseHost");
    }

    String mode(Cache cache) {
        cache.lookup("notASetting");
        return getServletContext().getInitParameter("mode");
    }
}
'''


def _shop(tmp_path: Path) -> Path:
    webapp = "shop/src/main/webapp"
    return write_tree(tmp_path, {
        "shop/pom.xml": ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
                         "<artifactId>shop</artifactId><version>1</version><packaging>war</packaging></project>\n"),
        "shop/Dockerfile": "FROM tomcat:10\n",
        f"{webapp}/WEB-INF/web.xml": WEB_XML,
        f"{webapp}/META-INF/context.xml": CONTEXT_XML,
        "shop/src/main/java/com/acme/shop/OrdersServlet.java": SETTINGS,
    })


def test_container_settings_and_where_the_code_reads_them(tmp_path: Path):
    webapp = "shop/src/main/webapp"
    nodes, _ = CodeGraph.build(_shop(tmp_path)).snapshot()
    config = next(n.props["config"] for n in nodes.values() if n.kind == "microservice" and n.name == "shop")
    web, context = f"{webapp}/WEB-INF/web.xml", f"{webapp}/META-INF/context.xml"
    code = "shop/src/main/java/com/acme/shop/OrdersServlet.java"
    assert config == [
        f"web.xml context-param mode = live ({web}:4)",
        f"web.xml init-param pageSize = 20 ({web}:11)",
        f"web.xml env-entry registryURL = http://registry:8080/registry/rest/services/ (java.lang.String) ({web}:16)",
        f"web.xml env-entry greeting = hello ({web}:21)",
        f"web.xml resource-ref jdbc/Orders (javax.sql.DataSource) ({web}:25)",
        f"context.xml Environment databaseHost = db (override=false: web.xml cannot change it) ({context}:2)",
        f"@Resource greeting read at {code}:9 (OrdersServlet.greeting): web.xml env-entry hello ({web}:21)",
        # no @Resource orderService (a name the module does not declare: a Spring bean's as often)
        f"JNDI lookup java:comp/env/registryURL read at {code}:16 (OrdersServlet.registry): web.xml env-entry "
        f"http://registry:8080/registry/rest/services/ ({web}:16)",
        f"JNDI lookup jdbc/Orders read at {code}:21 (OrdersServlet.orders): web.xml resource-ref (no value) ({web}:25)",
        f"JNDI lookup java:comp/env/databaseHost read at {code}:25 (OrdersServlet.host): context.xml Environment db "
        f"({context}:2)",
        # no cache.lookup("notASetting"): the receiver is no JNDI context
        f"getInitParameter mode read at {code}:30 (OrdersServlet.mode): web.xml context-param live ({web}:4)",
    ]


def test_updates_equal_a_full_build_when_a_container_setting_changes(tmp_path: Path):
    from helpers.code_graph import edit, render

    def config(graph: CodeGraph) -> list[str]:   # `render` leaves a service's config out
        nodes, _ = graph.snapshot()
        return next(n.props["config"] for n in nodes.values() if n.kind == "microservice" and n.name == "shop")

    graph = CodeGraph.build(_shop(tmp_path))
    for path, old, new in (("shop/src/main/webapp/META-INF/context.xml", 'value="db"', 'value="db2"'),
                           ("shop/src/main/webapp/WEB-INF/web.xml", "registry:8080", "registry:9090"),
                           ("shop/src/main/java/com/acme/shop/OrdersServlet.java", '"mode"', '"pageSize"')):
        edit(tmp_path, path, old, new)
        assert graph.update().layout_changed == path.endswith(".xml"), path   # a settings file: the index knows
        full = CodeGraph.build(tmp_path)
        assert render(graph) == render(full), path
        assert config(graph) == config(full), path
    assert any("Environment databaseHost = db2" in line for line in config(graph))
    assert any("getInitParameter pageSize" in line for line in config(graph))


TWO_SERVLETS_XML = '''<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="5.0">
  <context-param>
    <param-name>region</param-name>
    <param-value>eu</param-value>
  </context-param>
  <servlet>
    <servlet-name>a</servlet-name>
    <servlet-class>com.acme.shop.AServlet</servlet-class>
    <init-param>
      <param-name>mode</param-name>
      <param-value>fast</param-value>
    </init-param>
  </servlet>
</web-app>
'''

A_SERVLET = '''package com.acme.shop;

import javax.servlet.http.HttpServlet;

public class AServlet extends HttpServlet {
    String mode() {
        return getInitParameter("mode");
    }
}
'''

B_SERVLET = '''package com.acme.shop;

import javax.naming.InitialContext;
import javax.servlet.http.HttpServlet;

public class BServlet extends HttpServlet {
    String mode() {
        return getInitParameter("mode");
    }

    String contextMode() {
        return getServletContext().getInitParameter("mode");
    }

    String region() throws Exception {
        return (String) new InitialContext().lookup("java:comp/env/region");
    }
}
'''


def test_a_read_sees_only_what_its_scope_declares(tmp_path: Path):
    """A servlet's init parameter is its own (another servlet's getInitParameter, or the context's, does not see
    it), and a context parameter is no JNDI name."""
    web = "shop/src/main/webapp/WEB-INF/web.xml"
    code = "shop/src/main/java/com/acme/shop"
    root = write_tree(tmp_path, {
        "shop/pom.xml": ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
                         "<artifactId>shop</artifactId><version>1</version><packaging>war</packaging></project>\n"),
        "shop/Dockerfile": "FROM tomcat:10\n",
        web: TWO_SERVLETS_XML,
        f"{code}/AServlet.java": A_SERVLET,
        f"{code}/BServlet.java": B_SERVLET,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    config = next(n.props["config"] for n in nodes.values() if n.kind == "microservice" and n.name == "shop")
    none = "declared in none of the module's files: the container's deployment gives it"
    assert [line for line in config if " read at " in line] == [
        f"getInitParameter mode read at {code}/AServlet.java:7 (AServlet.mode): web.xml init-param fast ({web}:11)",
        f"getInitParameter mode read at {code}/BServlet.java:8 (BServlet.mode): {none}",
        f"getInitParameter mode read at {code}/BServlet.java:12 (BServlet.contextMode): {none}",
        f"JNDI lookup java:comp/env/region read at {code}/BServlet.java:16 (BServlet.region): {none}",
    ]
