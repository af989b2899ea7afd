"""An environment value with a fallback, in every way TS/JS and Python write it, folds to the variable with the
code's default: ``process.env.X || "d"``, ``?? "d"``, ``X ? X : "d"``, ``X !== undefined ? X : "d"``, ``!X ? "d" :
X``, ``import.meta.env.X``; ``os.getenv("X", "d")``, ``os.environ.get("X") or "d"``, ``x if x else "d"``,
``os.environ["X"] if "X" in os.environ else "d"``. Where the deployment sets X the value is what it sets; where
nothing does, the default. A conditional on anything else is never settled to one of its two values."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import expand, plain, settle_env
from graphlore.toolsets.code.languages.python.constants import PythonFolder
from graphlore.toolsets.code.languages.python.extract import extract as extract_python
from graphlore.toolsets.code.languages.typescript.constants import ScriptFolder
from graphlore.toolsets.code.languages.typescript.extract import extract as extract_script


def _settled(value, deployed: dict[str, str]) -> list[str]:
    settled, _ = settle_env(value, lambda name: [deployed[name]] if name in deployed else [])
    return sorted(plain(v.text) for v in expand(settled))


def _script(expr: str):
    """``expr`` folded where it is written, and through a local that holds it (both ways a client reads it)."""
    src = f"const base = {expr};\nexport function call() {{\n  return fetch(base);\n}}\n"
    facts = extract_script("web/api.js", src.encode())
    files = {"web/api.js": facts}
    return ScriptFolder(files, "web/api.js").fold(expr), ScriptFolder(files, "web/api.js").at(facts, "call", 3).fold("base")


def _python(expr: str):
    src = f"import os\nBASE = {expr}\n\n\ndef call():\n    return BASE\n"
    facts = extract_python("svc/conf.py", src.encode())
    files = {"svc.conf": facts}
    return PythonFolder(files, "svc.conf").fold(expr), PythonFolder(files, "svc.conf").at(facts, "call", 6).fold("BASE")


SCRIPT_FALLBACKS = [
    'process.env.SHOP_URL || "/shop/"',
    'process.env.SHOP_URL ?? "/shop/"',
    'process.env.SHOP_URL ? process.env.SHOP_URL : "/shop/"',
    '(process.env.SHOP_URL ? process.env.SHOP_URL : "/shop/")',
    "process.env['SHOP_URL'] ? process.env.SHOP_URL : '/shop/'",
    'process.env.SHOP_URL !== undefined ? process.env.SHOP_URL : "/shop/"',
    'process.env.SHOP_URL != null ? process.env.SHOP_URL : "/shop/"',
    'typeof process.env.SHOP_URL !== "undefined" ? process.env.SHOP_URL : "/shop/"',
    'process.env.SHOP_URL === undefined ? "/shop/" : process.env.SHOP_URL',
    '!process.env.SHOP_URL ? "/shop/" : process.env.SHOP_URL',
    'import.meta.env.SHOP_URL ? import.meta.env.SHOP_URL : "/shop/"',
    '(import.meta.env.SHOP_URL || "/shop/")',
]

PYTHON_FALLBACKS = [
    'os.getenv("SHOP_URL", "/shop/")',
    'os.environ.get("SHOP_URL", "/shop/")',
    'os.environ.get("SHOP_URL") or "/shop/"',
    '(os.getenv("SHOP_URL") or "/shop/")',
    'os.getenv("SHOP_URL") if os.getenv("SHOP_URL") else "/shop/"',
    'os.environ.get("SHOP_URL") if os.environ.get("SHOP_URL") is not None else "/shop/"',
    'os.environ["SHOP_URL"] if "SHOP_URL" in os.environ else "/shop/"',
    '"/shop/" if "SHOP_URL" not in os.environ else os.environ["SHOP_URL"]',
    '"/shop/" if not os.getenv("SHOP_URL") else os.getenv("SHOP_URL")',
]


@pytest.mark.parametrize("expr", SCRIPT_FALLBACKS)
def test_a_script_environment_value_with_a_fallback_is_the_variable_with_that_default(expr: str):
    for value in _script(expr):
        assert plain(value.text) == "${env:SHOP_URL}"
        assert _settled(value, {}) == ["/shop/"]
        assert _settled(value, {"SHOP_URL": "http://shop:8080"}) == ["http://shop:8080"]


@pytest.mark.parametrize("expr", PYTHON_FALLBACKS)
def test_a_python_environment_value_with_a_fallback_is_the_variable_with_that_default(expr: str):
    for value in _python(expr):
        assert plain(value.text) == "${env:SHOP_URL}"
        assert _settled(value, {}) == ["/shop/"]
        assert _settled(value, {"SHOP_URL": "http://shop:8080"}) == ["http://shop:8080"]


def test_a_default_in_parentheses_inside_a_concatenation_folds():
    script, _ = _script('"http://" + (process.env.SHOP_HOST || "localhost") + ":8080"')
    python, _ = _python('"http://" + (os.getenv("SHOP_HOST") or "localhost") + ":8080"')
    for value in (script, python):
        assert _settled(value, {}) == ["http://localhost:8080"]
        assert _settled(value, {"SHOP_HOST": "shop"}) == ["http://shop:8080"]


def test_a_default_inside_a_template_literal_folds():
    for expr in ('`http://${process.env.SHOP_HOST || "localhost"}:8080`',
                 '`http://${process.env.SHOP_HOST ? process.env.SHOP_HOST : "localhost"}:8080`'):
        value, _ = _script(expr)
        assert _settled(value, {}) == ["http://localhost:8080"], expr
        assert _settled(value, {"SHOP_HOST": "shop"}) == ["http://shop:8080"], expr
    value, _ = _script("`http://${flag ? 'a' : 'b'}:8080`")
    assert value.text == "http://{?}:8080"


def test_a_local_that_holds_the_environment_value_takes_the_fallback_too():
    script = ("export function call() {\n  const url = process.env.SHOP_URL;\n  const a = url ? url : '/shop/';\n"
              "  const b = url || '/shop/';\n  return fetch(a + b);\n}\n")
    facts = extract_script("web/api.js", script.encode())
    for name in ("a", "b"):
        value = ScriptFolder({"web/api.js": facts}, "web/api.js").at(facts, "call", 5).fold(name)
        assert _settled(value, {}) == ["/shop/"], name
    python = ('import os\n\n\ndef call():\n    url = os.environ.get("SHOP_URL")\n    a = url if url else "/shop/"\n'
              '    b = url or "/shop/"\n    return a + b\n')
    facts = extract_python("svc/conf.py", python.encode())
    for name in ("a", "b"):
        value = PythonFolder({"svc.conf": facts}, "svc.conf").at(facts, "call", 8).fold(name)
        assert _settled(value, {}) == ["/shop/"], name


@pytest.mark.parametrize(("expr", "fold"), [
    ('process.env.MODE ? "http://a:1" : "http://b:2"', _script),
    ('flag ? "http://a:1" : "http://b:2"', _script),
    ('process.env.OTHER ? process.env.SHOP_URL : "/shop/"', _script),
    ('"http://a:1" if os.getenv("MODE") else "http://b:2"', _python),
    ('os.getenv("SHOP_URL") if os.getenv("OTHER") else "/shop/"', _python),
])
def test_a_conditional_on_anything_else_is_never_settled_to_one_of_its_values(expr, fold):
    """Folded where written it is not known; through a local it is both values, as before: never one picked."""
    direct, through_local = fold(expr)
    assert direct.text == "{?}" and not direct.known
    assert len(expand(through_local)) == 2


def test_the_conditional_is_stored_whole_as_one_value():
    facts = extract_script("web/api.js", b'const base = process.env.SHOP_URL ? process.env.SHOP_URL : "/shop/";\n')
    assert facts.extra["assigns"][""]["base"][0][1] == ['process.env.SHOP_URL ? process.env.SHOP_URL : "/shop/"']
    facts = extract_python("svc/conf.py", b'import os\nBASE = os.environ.get("SHOP_URL") or "/shop/"\n')
    assert facts.extra["assigns"][""]["BASE"][0][1] == ['os.environ.get("SHOP_URL") or "/shop/"']


TREE = {
    "web/package.json": '{"name": "web", "dependencies": {"axios": "1.0.0"}}\n',
    "web/src/http.js": "import axios from 'axios';\n\nexport const api = axios.create({\n"
                       "  baseURL: (process.env.SHOP_URL ? process.env.SHOP_URL : 'http://localhost:9000'),\n});\n\n"
                       "export function items() {\n  return api.get('/items');\n}\n",
    "shop/package.json": '{"name": "shop"}\n',
    "shop/index.js": "const express = require('express');\nconst app = express();\n"
                     "app.get('/items', (req, res) => res.json([]));\napp.listen(9000);\n",
}


def _client(root: Path):
    nodes, edges = CodeGraph.build(root).snapshot()
    client = next(n for n in nodes.values() if n.kind == "client" and n.props["file"] == "web/src/http.js")
    linked = {nodes[e.dst].props["microservice"] for e in edges.values() if e.src == client.id and e.type == "HTTP_CALLS"}
    return client.props, linked


def test_an_axios_base_url_with_a_fallback_is_set_by_the_deployment(tmp_path: Path):
    compose = ("services:\n  web:\n    build: ./web\n    environment:\n      SHOP_URL: http://shop:9000\n"
               "  shop:\n    build: ./shop\n")
    props, linked = _client(write_tree(tmp_path / "sys", {**TREE, "docker-compose.yml": compose}))
    assert props["reads_env"] == ["SHOP_URL"]
    assert linked == {"shop"}


def test_an_axios_base_url_with_a_fallback_shows_the_default_where_nothing_sets_it(tmp_path: Path):
    props, _ = _client(write_tree(tmp_path / "sys", TREE))
    assert props["reads_env"] == ["SHOP_URL"]
    assert any("SHOP_URL where nothing sets it: http://localhost:9000 (the code's default)" in line
               for line in props.get("config_from") or ())
