"""A client in a shared library (a module no one deploys, whose code runs in whichever service calls it) is drawn on
the service map from each deployable service whose code calls into it, through the library's own methods too, and
from no service that does not; a library client no deployable service's call reaches stays the library's."""

from __future__ import annotations

from pathlib import Path

from helpers import backend
from helpers.code_tools import write_tree

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code.query import models, tools

POM = "<project><artifactId>{name}</artifactId>{rest}</project>"
BOOT = "<build><plugins><plugin><artifactId>spring-boot-maven-plugin</artifactId></plugin></plugins></build>"
JAVA = "src/main/java/com/example"


def _app(name: str, port: int) -> dict[str, str]:
    return {f"{name}/pom.xml": POM.format(name=name, rest=BOOT),
            f"{name}/src/main/resources/application.yml": f"server:\n  port: {port}\n"}


#: the library: a stock client its facade passes calls on to, and an audit client nothing calls
CLIENTS = '''package com.example.common;

import org.springframework.web.client.RestTemplate;

public class StockClient {
    private final RestTemplate rest = new RestTemplate();

    public String levels() {
        return rest.getForObject("http://stock:8081/levels", String.class);
    }
}
'''
FACADE = '''package com.example.common;

public class Inventory {
    private final StockClient stock = new StockClient();

    public String current() {
        return stock.levels();
    }
}
'''
AUDIT = '''package com.example.common;

import org.springframework.web.client.RestTemplate;

public class AuditClient {
    private final RestTemplate rest = new RestTemplate();

    public void send() {
        rest.postForObject("http://stock:8081/audit", "x", String.class);
    }
}
'''
STOCK = '''package com.example.stock;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class StockController {
    @GetMapping("/levels")
    public String levels() { return "[]"; }

    @PostMapping("/audit")
    public String audit() { return "ok"; }
}
'''
SHOP = '''package com.example.shop;

import com.example.common.Inventory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ShopController {
    private final Inventory inventory = new Inventory();

    @GetMapping("/shelf")
    public String shelf() { return inventory.current(); }
}
'''
REPORT = '''package com.example.report;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ReportController {
    @GetMapping("/report")
    public String report() { return "none"; }
}
'''


def test_a_library_client_is_drawn_from_the_services_that_call_into_it(tmp_path: Path, embedder):
    root = write_tree(tmp_path / "shop", {
        "pom.xml": POM.format(name="system", rest="<modules><module>common</module><module>shop</module>"
                                                  "<module>report</module><module>stock</module></modules>"),
        "common/pom.xml": POM.format(name="common", rest=""),
        f"common/{JAVA}/common/StockClient.java": CLIENTS,
        f"common/{JAVA}/common/Inventory.java": FACADE,
        f"common/{JAVA}/common/AuditClient.java": AUDIT,
        **_app("shop", 8080), f"shop/{JAVA}/shop/ShopController.java": SHOP,
        **_app("report", 8082), f"report/{JAVA}/report/ReportController.java": REPORT,
        **_app("stock", 8081), f"stock/{JAVA}/stock/StockController.java": STOCK,
    })
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        out = tools.service_map(runtime, parse_request(models.ServiceMapRequest, {"project_path": str(root)}))
    finally:
        runtime.close()
    pairs = {(link.source, link.target): link.labels for link in out.links if link.match == "cross_service"}
    assert pairs.get(("shop", "stock")) == ["GET /levels"], pairs        # shop -> Inventory.current -> StockClient.levels
    assert ("report", "stock") not in pairs                     # report never calls the library
    assert pairs.get(("common", "stock")) == ["POST /audit"], (out.services, out.links)     # no deployable service reaches it: not known


#: a report service that calls ``send()`` on things of unknown type: the library's ``AuditClient.send`` is the only
#: project method so named, so the call resolves by name alone
REPORT_UNTYPED = '''package com.example.report;

import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ReportController {
    private final List<Object> things = List.of();

    @GetMapping("/report")
    public String report() { things.forEach(t -> t.send()); return "none"; }
}
'''


def test_a_call_resolved_by_name_alone_makes_no_service_a_library_client(tmp_path: Path, embedder):
    """A call whose receiver's type is unknown (``t.send()``) is no evidence that the service runs the library's
    client: the arrow stays the library's, not the caller's."""
    root = write_tree(tmp_path / "shop", {
        "pom.xml": POM.format(name="system", rest="<modules><module>common</module><module>shop</module>"
                                                  "<module>report</module><module>stock</module></modules>"),
        "common/pom.xml": POM.format(name="common", rest=""),
        f"common/{JAVA}/common/StockClient.java": CLIENTS,
        f"common/{JAVA}/common/Inventory.java": FACADE,
        f"common/{JAVA}/common/AuditClient.java": AUDIT,
        **_app("shop", 8080), f"shop/{JAVA}/shop/ShopController.java": SHOP,
        **_app("report", 8082), f"report/{JAVA}/report/ReportController.java": REPORT_UNTYPED,
        **_app("stock", 8081), f"stock/{JAVA}/stock/StockController.java": STOCK,
    })
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        out = tools.service_map(runtime, parse_request(models.ServiceMapRequest, {"project_path": str(root)}))
    finally:
        runtime.close()
    pairs = {(link.source, link.target): link.labels for link in out.links if link.match == "cross_service"}
    assert ("report", "stock") not in pairs, pairs
    assert pairs.get(("common", "stock")) == ["POST /audit"], pairs
    assert pairs.get(("shop", "stock")) == ["GET /levels"], pairs
