"""A Java client's URL built by a static method of another project class (``Paths.Orders.one(base, id)`` where the
helper returns ``base + "/orders/" + id`` or ``String.format(...)``), imported or in the same package, nested or
not, is folded at the call: the helper's returned value with its parameters bound to the call's arguments; several
returns are several values; an overload, a method of a variable's object and a type two services declare stay
unknown."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

PATHS = """package shop.gateway.web.paths;

public final class Paths {
  public static final class Orders {
    public static String one(String base, long id) {
      return base + "/orders/" + id;
    }
    public static String list(String base, String version) {
      return String.format("%s/%s/orders", base, version);
    }
  }

  public static String cart(String base, boolean saved) {
    if (saved) {
      return base + "/carts/saved";
    }
    return base + "/carts/open";
  }

  public static String deep(String base) { return deep(base + "/again"); }

  public static String pick(String base) { return base + "/one"; }
  public static String pick(String base, String other) { return base + "/two"; }
}
"""

LOCAL = """package shop.gateway.web;

public class Links {
  public static String stock(String base) { return base + "/stock"; }
}
"""

CALLS = """package shop.gateway.web;

import org.springframework.web.client.RestTemplate;
import shop.gateway.web.paths.Paths;
import shop.common.Shared;

public class Calls {
  private static final String ORDERS = "http://orders:8080";
  private final RestTemplate rest = new RestTemplate();

  String one(long id) { return rest.getForObject(Paths.Orders.one(ORDERS, id), String.class); }

  String all() {
    String url = Paths.Orders.list(ORDERS, "v2");
    return rest.getForObject(url, String.class);
  }

  String cart(boolean saved) { return rest.getForObject(Paths.cart(ORDERS, saved), String.class); }

  String stock() { return rest.getForObject(Links.stock(ORDERS), String.class); }

  String loop() { return rest.getForObject(Paths.deep(ORDERS), String.class); }

  String overloaded() { return rest.getForObject(Paths.pick(ORDERS), String.class); }

  String shared() { return rest.getForObject(Shared.url(ORDERS), String.class); }

  String variable(Paths paths) { return rest.getForObject(paths.cart(ORDERS, true), String.class); }
}
"""


def _shared(path: str) -> str:
    return f"package shop.common;\n\npublic class Shared {{\n  public static String url(String b) {{ return b + \"{path}\"; }}\n}}\n"


def test_a_url_returned_by_a_static_helper_of_another_class_is_folded_at_each_call(tmp_path: Path):
    tree = write_tree(tmp_path / "shop", {
        "gateway/Dockerfile": "FROM scratch\n",
        "gateway/src/main/java/shop/gateway/web/paths/Paths.java": PATHS,
        "gateway/src/main/java/shop/gateway/web/Links.java": LOCAL,
        "gateway/src/main/java/shop/gateway/web/Calls.java": CALLS,
        "gateway/src/main/java/shop/common/Shared.java": _shared("/a"),
        "other/Dockerfile": "FROM scratch\n",
        "other/src/main/java/shop/common/Shared.java": _shared("/b"),
    })
    nodes, _ = CodeGraph.build(tree).snapshot()
    clients = {n.props["declaring_fqn"].rpartition("#")[2].partition("(")[0]: n.props for n in nodes.values() if n.kind == "client"}
    assert clients["one"]["target_url"] == "http://orders:8080/orders/{id}"         # nested class, imported
    assert clients["all"]["target_url"] == "http://orders:8080/v2/orders"           # String.format
    assert clients["cart"]["target_url"] == "{http://orders:8080/carts/saved|http://orders:8080/carts/open}"
    assert clients["stock"]["target_url"] == "http://orders:8080/stock"             # same package, no import
    # a helper calling itself is followed a few calls deep, then unknown; an overload, a type two services declare
    # and a method of a parameter's object are never guessed
    assert (clients["loop"]["target_url"], clients["loop"]["unresolved_reason"]) == ("{?}", "the result of deep(...)")
    assert clients["overloaded"]["unresolved_reason"] == "the result of Paths.pick(...)"
    assert clients["shared"]["unresolved_reason"] == "the result of Shared.url(...)"
    assert clients["variable"]["unresolved_reason"] == "the result of paths.cart(...)"
