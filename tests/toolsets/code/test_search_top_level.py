"""Code search over top-level code and past a crowd of declarations: a file's top-level statements (a TS or JS
module's setup, a Python module's wiring, C# top-level statements, a PHP or Ruby script's statements) are words
of the file's symbol, which then ranks as code; and the page is filled with code however many declarations outrank
it (they stay listed after it)."""

from __future__ import annotations

import pytest
from helpers import backend
from helpers.code_tools import run, write_tree

from graphlore.runtime import Runtime

#: one file per way a language writes code outside every function, each calling ``configure`` with words no
#: other symbol of the tree holds
TOP_LEVEL = {
    "web/package.json": '{"name": "web", "dependencies": {"axios": "1"}}\n',
    "web/src/main.ts": (
        'import { client } from "./client";\n\n'
        "client.setConfig({\n"
        '  baseURL: import.meta.env.VITE_API_URL ?? "",\n'
        '  auth: () => localStorage.getItem("bearer_credential") || "",\n'
        "});\n\n"
        "export function render(): void {\n  document.title = 'web';\n}\n"),
    "web/src/client.ts": "export const client = { setConfig(options: object): void {} };\n",
    "api/requirements.txt": "flask\n",
    "api/app.py": (
        "from flask import Flask\n\napp = Flask(__name__)\n"
        "app.config.from_prefixed_env('PARCEL')\n"
        "limiter.attach_quota(app, 'parcels per minute')\n\n\n"
        "def health():\n    return 'ok'\n"),
    "basket/Basket.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>\n',
    "basket/Program.cs": (
        "var builder = WebApplication.CreateBuilder(args);\n"
        "builder.Services.AddStackExchangeRedisCache(options =>\n"
        "{\n"
        '    options.Configuration = builder.Configuration.GetConnectionString("Redis");\n'
        "});\n"
        "var app = builder.Build();\n"
        "app.Run();\n"),
    "basket/Models/Basket.cs": (
        "namespace Basket.Models;\n\npublic class Basket\n{\n    public string UserName { get; set; }\n}\n"),
}


@pytest.fixture
def runtime(tmp_path, embedder):
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    yield runtime
    runtime.close()


@pytest.mark.parametrize(("query", "file"), [
    ("local storage bearer credential", "web/src/main.ts"),
    ("parcels per minute quota", "api/app.py"),
    ("redis cache connection", "basket/Program.cs"),
])
def test_a_file_is_found_by_what_its_top_level_code_calls_and_says(tmp_path, runtime, query, file):
    tree = write_tree(tmp_path / "tree", TOP_LEVEL)
    run(runtime, tree, "index", embed=False)
    found = run(runtime, tree, "search", query=query, kind="symbol", limit=3).results
    assert found and found[0].node.file == file and found[0].node.line == 1, [(h.node.label, h.node.file) for h in found]
    described = run(runtime, tree, "describe", id=found[0].node.id)
    assert described.attributes.get("top_level_code") is True


def test_a_typed_file_without_top_level_code_stays_a_declaration(tmp_path, runtime):
    """A C# file that only declares a class has no top-level code: it keeps coming after the code."""
    tree = write_tree(tmp_path / "tree", TOP_LEVEL)
    run(runtime, tree, "index", embed=False)
    found = run(runtime, tree, "search", query="basket", kind="symbol", limit=20).results
    files = [h for h in found if h.node.symbol_kind == "file"]
    assert files and "top_level_code" not in run(runtime, tree, "describe", id=files[0].node.id).attributes


def test_the_page_is_code_however_many_declarations_outrank_it(tmp_path, runtime):
    """Fields whose short text is all the query's words outrank the method that does the work by far more than
    the page the ranking fetched at first; the page still shows the method first, the fields after it."""
    fields = "\n".join(f"    public decimal Price{i} {{ get; set; }}\n    public decimal Discount{i} {{ get; set; }}"
                       for i in range(12))
    tree = write_tree(tmp_path / "tree", {
        "cart/Cart.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>\n',
        "cart/Models/CartLine.cs": f"namespace Cart.Models;\n\npublic class CartLine\n{{\n{fields}\n}}\n",
        "cart/Handlers/Checkout.cs": (
            "namespace Cart.Handlers;\n\npublic class Checkout\n{\n"
            "    public async Task Apply(Cart cart)\n    {\n"
            "        foreach (var line in cart.Lines)\n        {\n"
            "            var coupon = await discounts.GetDiscountAsync(line.Product);\n"
            "            line.Subtract(coupon);\n"
            "        }\n    }\n}\n"),
    })
    run(runtime, tree, "index", embed=False)
    found = run(runtime, tree, "search", query="cart price discount", kind="symbol", limit=2).results
    assert [h.node.name for h in found][:1] == ["Apply"], [h.node.label for h in found]
    listed = run(runtime, tree, "search", query="cart price discount", kind="symbol", limit=30).results
    kinds = [h.node.symbol_kind for h in listed]
    assert kinds.index("method") < kinds.index("field")


def test_a_ruby_require_is_an_import_not_top_level_code(tmp_path, runtime):
    """``require``/``require_relative`` load a file (the index reads them as imports): a Ruby file whose only
    top-level lines are requires has no top-level code (it stays a declaration, and the required paths are not
    words of its text), while a file that runs something at top level has some."""
    tree = write_tree(tmp_path / "tree", {
        "Gemfile": "",
        "lib/ledger.rb": ("require 'bigdecimal'\nrequire_relative 'sprocket_rounding'\n\n"
                          "class Ledger\n  def total\n    0\n  end\nend\n"),
        "config/boot.rb": "require 'bundler'\n\nLedgerQueue.configure_server(concurrency: 'five workers')\n",
    })
    run(runtime, tree, "index", embed=False)
    files = {h.file: h.id for h in run(runtime, tree, "find", kind="symbol",
                                                filter={"symbol_kind": "file"}).results}
    said = {file: run(runtime, tree, "describe", id=node).attributes.get("top_level_code") for file, node in files.items()}
    assert said == {"lib/ledger.rb": None, "config/boot.rb": True}
    assert not run(runtime, tree, "search", query="sprocket rounding", kind="symbol").results
    assert [h.node.file for h in run(runtime, tree, "search", query="five workers", kind="symbol").results] == \
        ["config/boot.rb"]
