"""C++: the cpp-grpc fixture system (its README: grpc++ servers and clients) against its exact expected set, the
structure a file gives (namespaces, classes and bases, methods in the class and out of line, includes), calls
resolved by declared types and never by name alone, how values fold, CMake projects as services, and updates
equal to a full build."""

from __future__ import annotations

import shutil

import pytest
from helpers.code_graph import FIXTURES, bump, edges_by_fqn, edit, expected_lines, render

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.cpp.constants import CppFolder, CppValues
from graphlore.toolsets.code.languages.cpp.extract import extract

PART2_EDGES = ("EXPOSES", "HTTP_CALLS", "DECLARES_CLIENT", "DECLARES_PRODUCER", "ASYNC_CALLS", "GRPC_CALLS")


def part2(graph: CodeGraph) -> list[str]:
    return [line for line in render(graph) if line[0] in "RCPS"
            or (line.startswith("E ") and line.split()[1] in PART2_EDGES)]


def test_cpp_grpc_routes_clients_and_links_are_exactly_the_expected_ones():
    assert part2(CodeGraph.build(FIXTURES / "cpp-grpc")) == expected_lines("cpp_grpc_services.txt")


def test_the_channel_address_is_folded_from_constants_strcat_and_the_deployment_environment():
    nodes, _ = CodeGraph.build(FIXTURES / "cpp-grpc").snapshot()
    clients = {n.props["grpc"]: n.props for n in nodes.values() if n.kind == "client"}
    assert clients["shop.CartService/GetCart"]["channel_address"] == "cart:7070"      # getenv settled by compose
    assert clients["shop.CartService/GetCart"]["channel_service"] == "cart"
    assert clients["shop.CurrencyService/Convert"]["channel_address"] == "currency:7001"   # member initialiser
    empty = clients["shop.CartService/EmptyCart"]
    assert empty["channel_service"] is None and "parameter" in empty["channel_service_matched_by"]   # handed in


HEADER = b"""#pragma once
#include "store.h"
#include <vector>

namespace shop::v1 {

/// A cart.
class Cart : public Base, private other::Thing {
 public:
  explicit Cart(int n);
  void Add(int x);
  static Cart Make() { return Cart(1); }
  virtual int Size() const = 0;

 private:
  std::unique_ptr<Store> store_;
  struct Line { int qty; };
};

void Helper(int x);

}  // namespace shop::v1
"""


def test_a_file_gives_namespaces_classes_bases_members_and_includes():
    facts = extract("src/cart.h", HEADER)
    symbols = {s.key: s for s in facts.symbols}
    assert set(symbols) == {"shop.v1.Cart", "shop.v1.Cart.Cart", "shop.v1.Cart.Add", "shop.v1.Cart.Make",
                            "shop.v1.Cart.Size", "shop.v1.Cart.store_", "shop.v1.Cart.Line", "shop.v1.Cart.Line.qty"}
    cart = symbols["shop.v1.Cart"]
    assert cart.supers == (("extends", "Base"), ("extends", "other.Thing")) and cart.docstring == "A cart."
    assert symbols["shop.v1.Cart.Cart"].kind == "constructor"
    assert symbols["shop.v1.Cart.Make"].modifiers == ("public", "static")
    assert "abstract" in symbols["shop.v1.Cart.Size"].modifiers
    assert symbols["shop.v1.Cart.store_"].type == "Store"       # a smart pointer stands for what it points to
    assert [i.target for i in facts.imports] == ["store.h"]      # <vector> is a library's
    assert facts.extra["namespaces"] == ["shop.v1"]
    # out of line: a method of the class the file declares, else one that says its class
    body = extract("src/cart.cpp", b'#include "cart.h"\nnamespace shop::v1 {\nvoid Cart::Add(int x) {}\n'
                                   b'Cart::Cart(int n) {}\n}\nint main() {}\n')
    by_key = {s.key: s for s in body.symbols}
    assert by_key["shop.v1.Cart.Add"].kind == "method" and by_key["shop.v1.Cart.Add"].extra["receiver"] == "Cart"
    assert by_key["shop.v1.Cart.Cart"].kind == "constructor"
    assert by_key["main"].extra["entry_point"]


STORE_H = """#pragma once
namespace shop {
class Store {
 public:
  void Put(int x);
  static Store Open();
};
int Count(const Store& s);
}
"""
STORE_CPP = """#include "store.h"
namespace shop {
void Store::Put(int x) { Flush(); }
Store Store::Open() { return Store(); }
int Count(const Store& s) { return 0; }
void Flush() {}
}
"""
CART_H = """#pragma once
#include "store.h"
namespace shop {
class Cart {
 public:
  void Add(int x);
  void Grow();
 private:
  Store store_;
};
}
"""
CART_CPP = """#include <memory>
#include "cart.h"
namespace shop {
void Cart::Add(int x) {
  this->Grow();
  Grow();
  store_.Put(x);
  Store s = Store::Open();
  s.Put(1);
  auto p = std::make_unique<Store>();
  p->Put(2);
  Store* q = new Store();
  q->Put(3);
  shop::Count(s);
  auto r = library::Make();
  r->Put(4);
}
void Cart::Grow() {}
}
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text("project(shop)\nadd_executable(shop src/cart.cpp src/store.cpp)\n")
    src = tmp_path / "src"
    src.mkdir()
    for name, text in (("store.h", STORE_H), ("store.cpp", STORE_CPP), ("cart.h", CART_H), ("cart.cpp", CART_CPP)):
        (src / name).write_text(text)
    return tmp_path


def test_calls_resolve_by_declared_types_only(project):
    graph = CodeGraph.build(project)
    calls = edges_by_fqn(graph, "CALLS")
    assert calls[("shop.Cart.Add", "shop.Cart.Grow")] == "same_class"              # this->m() and a bare m()
    assert calls[("shop.Cart.Add", "shop.Store.Put")] in ("receiver_type", "inferred_type")
    assert calls[("shop.Cart.Add", "shop.Store.Open")] == "static"                 # T::m()
    assert calls[("shop.Cart.Add", "shop.Count")] == "static"                      # ns::f()
    assert calls[("shop.Store.Put", "shop.Flush")] == "local"
    nodes, edges = graph.snapshot()
    add = next(n for n in nodes.values() if n.kind == "symbol" and n.props["fqn"] == "shop.Cart.Add"
               and n.props["file"].endswith(".cpp"))
    put = {n.id: n.props["file"] for n in nodes.values() if n.kind == "symbol" and n.props["fqn"] == "shop.Store.Put"}
    to_put = [e for e in edges.values() if e.type == "CALLS" and e.src == add.id and e.dst in put]
    # the out-of-line definition is the method calls reach (the header's declaration stays a symbol)
    assert [put[e.dst] for e in to_put] == ["src/store.cpp"]
    assert to_put[0].props["lines"] == [7, 9, 11, 13]   # a member, a declared local, make_unique, new
    unresolved = {site["name"]: site["reason"] for site in add.props["unresolved_calls"]}
    assert unresolved == {"make_unique": "external_name", "Make": "external_name", "Put": "external_type"}   # no guess
    imports = edges_by_fqn(graph, "IMPORTS")
    assert ("src/cart.cpp", "src/cart.h") in imports and ("src/cart.h", "src/store.h") in imports


def test_cmake_executables_are_services_and_libraries_are_not(tmp_path):
    for name, cmake in (("api", "project(api-server)\nadd_executable(api main.cpp)\n"),
                        ("util", "add_library(util util.cpp)\n"), ("worker", "add_executable(worker main.cpp)\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "CMakeLists.txt").write_text(cmake)
        (tmp_path / name / ("util.cpp" if name == "util" else "main.cpp")).write_text("int main() {}\n")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert services["api-server"]["deployable"] and services["worker"]["deployable"]
    assert not services["util"]["deployable"]


VALUES = b"""#include <cstdlib>
namespace cfg {
const std::string kHost = "cart";
constexpr char kPort[] = "7070";
}
void Dial() {
  std::string base = "http://" + kHost;
  auto joined = absl::StrCat(kHost, ":", kPort);
  const char* env = std::getenv("CART_ADDR");
  std::string wrapped = std::string(getenv("X_ADDR"));
  auto raw = R"(a"b)";
  int n = Compute();
}
"""


@pytest.mark.parametrize(("expr", "value"), [
    ("base", "http://cart"),
    ("joined", "cart:7070"),
    ("env", "\x01CART_ADDR\x02"),
    ("wrapped", "\x01X_ADDR\x02"),
    ("raw", 'a"b'),
    ('"a" "b"', "ab"),
    ("n", "{?:n}"),
])
def test_cpp_values_fold_from_literals_constants_strcat_and_the_environment(expr, value):
    facts = extract("src/v.cc", VALUES)
    assert CppFolder(CppValues([facts]), facts).at(facts, "Dial", 13).fold(expr).text == value


def test_a_stub_of_a_service_no_proto_declares_is_an_unresolved_client_that_says_why(tmp_path):
    root = tmp_path / "cpp-grpc"
    shutil.copytree(FIXTURES / "cpp-grpc", root)
    edit(root, "checkout/src/main.cpp", "auto stub = shop::CartService::NewStub(channel);",
         "auto stub = shop::LedgerService::NewStub(channel);")
    lines = part2(CodeGraph.build(root))
    ledger = [line for line in lines if line.startswith("C ") and "LedgerService" in line]
    assert ledger == ["C grpc ? {?}.LedgerService/EmptyCart kind=grpc from=checkout.EmptyCartOn match=unresolved "
                      "why=no .proto in the project declares a gRPC service named LedgerService"]


def test_a_class_of_the_project_s_own_code_is_no_generated_stub_or_base_whatever_its_name(tmp_path):
    root = tmp_path / "cpp-grpc"
    shutil.copytree(FIXTURES / "cpp-grpc", root)
    (root / "checkout" / "src" / "own.h").write_text(
        "namespace shop {\nclass CurrencyService {\n public:\n  class Stub {\n   public:\n    void Convert();\n  };\n"
        "  class Service {};\n};\n}\n")
    (root / "checkout" / "src" / "local.cpp").write_text(
        '#include "own.h"\nnamespace checkout {\nclass Local : public shop::CurrencyService::Service {\n'
        "  void Convert() {}\n};\n}\n")
    lines = part2(CodeGraph.build(root))
    assert not any("CurrencyService/Convert" in line and "checkout" in line.split(" from=")[-1]
                   for line in lines if line.startswith("C "))
    assert not any("handler=checkout.Local" in line for line in lines)
    assert "R grpc shop.CurrencyService/Convert framework=grpc handler=CurrencyService.Convert service=currency " \
           "resolved=True" in lines


def test_updates_equal_a_full_build(tmp_path):
    root = tmp_path / "cpp-grpc"
    shutil.copytree(FIXTURES / "cpp-grpc", root)
    graph = CodeGraph.build(root)
    # the currency server serves Audit too, and the cart's GetCart moves to another file of the class
    edit(root, "currency/server.cc", "  Status Convert(",
         "  Status Audit(ServerContext* context, const shop::Empty* request, shop::Empty* response) override {\n"
         "    return Status::OK;\n  }\n\n  Status Convert(")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(root).snapshot()
    assert "R grpc shop.CurrencyService/Audit framework=grpc handler=CurrencyService.Audit service=currency " \
           "resolved=True" in part2(graph)


def test_a_header_added_later_is_included_like_a_full_build(tmp_path):
    """`#include "util.h"` of a header that does not exist yet: adding it updates the including file's
    IMPORTS edge, as a full build draws it (the include is looked up by the file's name)."""
    root = tmp_path / "shop"
    (root / "svc/src").mkdir(parents=True)
    (root / "svc/CMakeLists.txt").write_text("project(svc)\nadd_executable(svc src/main.cpp)\n")
    (root / "svc/src/main.cpp").write_text('#include "util.h"\nint main() { return 0; }\n')
    graph = CodeGraph.build(root)
    (root / "svc/src/util.h").write_text("int helper();\n")
    bump(root / "svc/src/util.h")
    graph.update()
    assert render(graph) == render(CodeGraph.build(root))
    assert "E IMPORTS svc/src/main.cpp -> svc/src/util.h" in render(graph)


def test_each_service_includes_its_own_header_of_a_shared_name(tmp_path):
    """Two services, each with ``include/cart.h``: ``#include "cart.h"`` from ``src/`` is the including file's
    service's header (two candidates across the tree left the include unresolved)."""
    root = tmp_path / "shop"
    for s in "ab":
        for rel, text in {"CMakeLists.txt": f"project({s})\nadd_executable({s} src/main.cpp)\n",
                          "include/cart.h": "class Cart {};\n",
                          "src/main.cpp": '#include "cart.h"\nint main() { return 0; }\n'}.items():
            (root / s / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / s / rel).write_text(text)
    imports = [line for line in render(CodeGraph.build(root)) if " IMPORTS " in line]
    assert imports == ["E IMPORTS a/src/main.cpp -> a/include/cart.h", "E IMPORTS b/src/main.cpp -> b/include/cart.h"]
