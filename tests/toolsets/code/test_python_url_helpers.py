"""A Python client's URL built by a module-level function of the project (``def order_url(base, order_id): return
f"{base}/orders/{order_id}"``), called in its own module, imported by name or through its module, is folded at
the call: the function's returned value with its parameters bound to the call's arguments (f-string, ``format``,
``%``, concatenation); several returns are several values; a function defined twice, one calling itself and a
call with keyword arguments stay unknown."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

URLS = '''ORDERS = "http://orders:8080"


def order_url(base, order_id):
    return f"{base}/orders/{order_id}"


def list_url(base, version):
    return "{}/{}/orders".format(base, version)


def cart_url(base, saved):
    if saved:
        return "%s/carts/saved" % base
    return base + "/carts/open"


def deep(base):
    return deep(base + "/again")


def twice(base):
    return base + "/one"


def twice(base):
    return base + "/two"
'''

APP = '''import requests

from web import urls
from web.urls import ORDERS, order_url, cart_url


def stock_url(base):
    return base + "/stock"


def one(order_id):
    return requests.get(order_url(ORDERS, order_id))


def all_orders():
    url = urls.list_url(ORDERS, "v2")
    return requests.get(url)


def cart(saved):
    return requests.get(cart_url(ORDERS, saved))


def stock():
    return requests.get(stock_url(ORDERS))


def loop():
    return requests.get(urls.deep(ORDERS))


def overloaded():
    return requests.get(urls.twice(ORDERS))


def keywords():
    return requests.get(order_url(order_id=1, base=ORDERS))
'''


def test_a_url_returned_by_a_module_function_is_folded_at_each_call(tmp_path: Path):
    tree = write_tree(tmp_path / "shop", {"web/requirements.txt": "requests\n", "web/Dockerfile": "FROM scratch\n",
                                          "web/__init__.py": "", "web/urls.py": URLS, "web/app.py": APP})
    nodes, _ = CodeGraph.build(tree).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values() if n.kind == "client"}
    assert clients["one"]["target_url"] == "http://orders:8080/orders/{order_id}"    # f-string, imported by name
    assert clients["all_orders"]["target_url"] == "http://orders:8080/v2/orders"      # format, through the module
    assert clients["cart"]["target_url"] == "{http://orders:8080/carts/saved|http://orders:8080/carts/open}"
    assert clients["stock"]["target_url"] == "http://orders:8080/stock"               # the module's own function
    assert clients["loop"]["unresolved_reason"] == "the result of deep(...)"
    assert clients["overloaded"]["unresolved_reason"] == "the result of urls.twice(...)"
    assert clients["keywords"]["unresolved_reason"] == "the result of order_url(...)"
