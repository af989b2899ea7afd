"""A Java client's URL built with Spring's ``UriComponentsBuilder`` (``fromUriString(base).path("/x/{id}")...
.build().toUri()``, ``fromHttpUrl``, ``fromPath``, ``pathSegment``), in a local or inline, is folded: the base with
each path appended; query, expansion and encoding keep it; a method that changes the address (``replacePath``,
``host``) makes it unknown, never a guess."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

CALLS = """package shop.cart;

import java.net.URI;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.util.UriComponentsBuilder;

public class StockCalls {
  private static final String STOCK = "http://stock:8080/";
  private final RestClient restClient;
  private final RestTemplate rest = new RestTemplate();

  public StockCalls(RestClient restClient) { this.restClient = restClient; }

  String local(long id) {
    final URI url = UriComponentsBuilder.fromUriString(STOCK)
        .path("/items/{id}")
        .queryParam("full", true)
        .buildAndExpand(id)
        .toUri();
    return restClient.get().uri(url).retrieve().body(String.class);
  }

  String inline() {
    return rest.getForObject(UriComponentsBuilder.fromHttpUrl("http://stock:8080").path("/items")
        .queryParam("page", 1).build().toUriString(), String.class);
  }

  String segments(String sku) {
    URI uri = UriComponentsBuilder.fromUriString("http://stock:8080/items").pathSegment("sku", "{sku}")
        .build(sku);
    return restClient.get().uri(uri).retrieve().body(String.class);
  }

  String pathOnly() {
    return restClient.get().uri(UriComponentsBuilder.fromPath("/items/count").toUriString())
        .retrieve().body(String.class);
  }

  String replaced() {
    URI uri = UriComponentsBuilder.fromUriString(STOCK).replacePath("/other").build().toUri();
    return restClient.get().uri(uri).retrieve().body(String.class);
  }
}
"""


def test_a_url_built_with_uri_components_builder_is_folded(tmp_path: Path):
    tree = write_tree(tmp_path / "shop", {
        "cart/Dockerfile": "FROM scratch\n",
        "cart/src/main/java/shop/cart/StockCalls.java": CALLS,
    })
    nodes, _ = CodeGraph.build(tree).snapshot()
    clients = {n.props["declaring_fqn"].rpartition("#")[2].partition("(")[0]: n.props
               for n in nodes.values() if n.kind == "client"}
    assert clients["local"]["target_url"] == "http://stock:8080/items/{id}"   # one slash where base and path join
    assert clients["inline"]["target_url"] == "http://stock:8080/items"
    assert clients["segments"]["target_url"] == "http://stock:8080/items/sku/{sku}"
    assert clients["pathOnly"]["target_path_template"] == "/items/count"
    # replacePath changes the address: unknown, not the base's path
    assert clients["replaced"]["match"] == "unresolved"
    assert "replacePath" in clients["replaced"]["unresolved_reason"]
