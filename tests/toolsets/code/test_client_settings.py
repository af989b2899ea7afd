"""A client whose address is read from the framework's settings (Spring and Micronaut ``@Value("${a.b}")`` on a field
or a constructor parameter, a ``@ConfigurationProperties`` getter, a Quarkus REST client's URL key) names the keys
(``reads_settings``) and its ``config_from`` gives the settings lines that set them (``file:line``, each profile's),
then the deployment lines of the environment variables they defer to; a secret stays redacted."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

POM = ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{}</artifactId>"
       "<version>1</version><dependencies><dependency><groupId>org.springframework.boot</groupId>"
       "<artifactId>spring-boot-starter-web</artifactId></dependency></dependencies></project>\n")

PRINTER = '''package com.acme.billing;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

@ConfigurationProperties(prefix = "ledger")
class LedgerProperties {
    private String url;
    public String getUrl() { return url; }
}

@Service
public class Printer {
    private final RestTemplate rest = new RestTemplate();
    private final LedgerProperties ledger;
    private final String archive;

    @Value("${printer.host}")
    private String host;

    @Value("${printer.port}")
    private String port;

    public Printer(LedgerProperties ledger, @Value("${archive.url}") String archive) {
        this.ledger = ledger;
        this.archive = archive;
    }

    public String print(String body) {
        return rest.postForObject("http://" + host + ":" + port + "/v1/print", body, String.class);
    }

    public String post(String entry) {
        return rest.postForObject(ledger.getUrl() + "/entries", entry, String.class);
    }

    public String store(String doc) {
        return rest.postForObject(archive + "/documents", doc, String.class);
    }
}
'''

SETTINGS = '''spring:
  application:
    name: billing
printer:
  host: ${PRINTER_HOST:localhost}
  port: 9100
ledger:
  url: ${ledger.base}/api
  base: http://clerk:secret@ledger:8080
'''


def _clients(root: Path) -> dict[str, dict]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["target_path"] or n.props["declaring_fqn"]: n.props for n in nodes.values() if n.kind == "client"}


def _by_path(clients: dict[str, dict], path: str) -> dict:
    return next(props for props in clients.values() if (props.get("target_url") or "").endswith(path))


def test_spring_value_fields_say_which_settings_lines_and_deployment_set_them(tmp_path: Path):
    root = write_tree(tmp_path, {
        "billing/pom.xml": POM.format("billing"), "billing/Dockerfile": "FROM eclipse-temurin:21\n",
        "billing/src/main/resources/application.yml": SETTINGS,
        "billing/src/main/resources/application-docker.yml": "printer:\n  host: print-box\n",
        "billing/src/main/java/com/acme/billing/Printer.java": PRINTER,
        "docker-compose.yml": "services:\n  billing:\n    build: ./billing\n    environment:\n"
                              "      PRINTER_HOST: printer-svc\n      ARCHIVE_URL: http://archive:9000\n",
    })
    clients = _clients(root)
    printer = _by_path(clients, "/v1/print")
    assert printer["reads_settings"] == ["printer.host", "printer.port"]
    settings = "billing/src/main/resources/application.yml"
    assert printer["config_from"] == [
        f"printer.host: ${{PRINTER_HOST:localhost}} ({settings}:5)",
        "printer.host: print-box (billing/src/main/resources/application-docker.yml:2, profile docker)",
        f"printer.port: 9100 ({settings}:6)",
        "docker-compose service billing environment PRINTER_HOST=printer-svc (docker-compose.yml:5)"]
    # a getter of a @ConfigurationProperties class; its value names another key, followed; the userinfo redacted
    ledger = _by_path(clients, "/api/entries")
    assert ledger["reads_settings"][0] == "ledger.url"
    assert ledger["config_from"][:2] == [f"ledger.url: ${{ledger.base}}/api ({settings}:8)",
                                         f"ledger.base: http://ledger:8080 ({settings}:9)"]
    assert not any("secret" in line for line in ledger["config_from"])
    # a constructor parameter's key no settings file sets: the deployment's variable of Spring's relaxed binding
    archive = _by_path(clients, "/documents")
    assert archive["reads_settings"] == ["archive.url"]
    assert archive["config_from"] == [
        "docker-compose service billing environment ARCHIVE_URL=http://archive:9000 (docker-compose.yml:6)"]


QUARKUS_POM = ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>shop</artifactId>"
               "<version>1</version><dependencies><dependency><groupId>io.quarkus</groupId>"
               "<artifactId>quarkus-rest-client</artifactId></dependency></dependencies></project>\n")

STOCK_CLIENT = '''package com.acme.shop;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

@Path("/stock")
@RegisterRestClient(configKey = "stock")
public interface StockClient {
    @GET
    String levels();
}
'''


def test_a_rest_clients_url_key_and_its_profile_values_are_where_it_is_configured(tmp_path: Path):
    """Quarkus: ``quarkus.rest-client.stock.url`` (and its ``%prod.`` value) is where the client's address is set."""
    root = write_tree(tmp_path, {
        "shop/pom.xml": QUARKUS_POM, "shop/Dockerfile": "FROM eclipse-temurin:21\n",
        "shop/src/main/resources/application.properties":
            "quarkus.application.name=shop\nquarkus.rest-client.stock.url=http://localhost:8081\n"
            "%prod.quarkus.rest-client.stock.url=http://stock:8080\n",
        "shop/src/main/java/com/acme/shop/StockClient.java": STOCK_CLIENT,
    })
    [client] = [p for p in _clients(root).values() if p["client_kind"] == "mp_rest_client"]
    assert client["reads_settings"] == ["quarkus.rest-client.stock.url"]
    props = "shop/src/main/resources/application.properties"
    assert client["config_from"] == [f"quarkus.rest-client.stock.url: http://localhost:8081 ({props}:2)",
                                     f"quarkus.rest-client.stock.url: http://stock:8080 ({props}:3, profile prod)"]
