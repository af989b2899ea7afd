"""A client's base URL read through a Lombok getter of another project class (``config.getApiUrl()`` where the
class has ``@Getter``/``@Data`` and the field is injected with ``@Value("${...}")`` or is a constant) is the field's
value; a getter written by hand, or a field Lombok writes no getter for, stays as before (unknown)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

CONF = """package shop.cart.config;

import lombok.Getter;
import org.springframework.beans.factory.annotation.Value;

@Getter
public class StockConfig {
  @Value("${shop.stock-url}")
  private String apiUrl;

  private String other;

  public String getOther() { return other; }
}
"""

DATA = """package shop.cart.config;

import lombok.Data;

@Data
public class Paths {
  private final String items = "/items";
}
"""

PLAIN = """package shop.cart.config;

import org.springframework.beans.factory.annotation.Value;

public class PlainConfig {
  @Value("${shop.stock-url}")
  private String apiUrl;
}
"""

CALLS = """package shop.cart;

import org.springframework.web.client.RestTemplate;
import shop.cart.config.Paths;
import shop.cart.config.PlainConfig;
import shop.cart.config.StockConfig;

public class Calls {
  private final RestTemplate rest = new RestTemplate();
  private final StockConfig config;
  private final PlainConfig plain;
  private final Paths paths;

  public Calls(StockConfig config, PlainConfig plain, Paths paths) {
    this.config = config; this.plain = plain; this.paths = paths;
  }

  String lombok() { return rest.getForObject(config.getApiUrl() + "/items", String.class); }

  String handWritten() { return rest.getForObject(config.getOther() + "/items", String.class); }

  String noGetter() { return rest.getForObject(plain.getApiUrl() + "/items", String.class); }
}
"""


def test_a_lombok_getter_reads_the_field_it_gets(tmp_path: Path):
    tree = write_tree(tmp_path / "shop", {
        "cart/Dockerfile": "FROM scratch\n",
        "cart/src/main/resources/application.properties": "shop.stock-url=http://stock:8080\n",
        "cart/src/main/java/shop/cart/config/StockConfig.java": CONF,
        "cart/src/main/java/shop/cart/config/Paths.java": DATA,
        "cart/src/main/java/shop/cart/config/PlainConfig.java": PLAIN,
        "cart/src/main/java/shop/cart/Calls.java": CALLS,
    })
    nodes, _ = CodeGraph.build(tree).snapshot()
    clients = {n.props["declaring_fqn"].rpartition("#")[2].partition("(")[0]: n.props
               for n in nodes.values() if n.kind == "client"}
    assert clients["lombok"]["target_url"] == "http://stock:8080/items"
    assert clients["handWritten"]["target_url"].startswith("{?")
    assert clients["noGetter"]["target_url"].startswith("{?")
