"""Per-file extraction (pure: path + bytes -> facts) for the language features the fixtures leave out,
and bad input (syntax errors, bytes that are not UTF-8, empty files)."""

from __future__ import annotations

from graphlore.toolsets.code.languages.java import extract as java
from graphlore.toolsets.code.languages.python import extract as python
from graphlore.toolsets.code.languages.typescript import extract as typescript


def keys(facts) -> list[tuple[str, str, bool]]:
    return [(s.kind, s.key, s.generated) for s in facts.symbols]


def test_java_lombok_records_enums_local_and_anonymous_classes():
    src = b"""package p;
import lombok.*;
import java.util.*;
@Value @Builder @Slf4j
public class Point {
    int x;
    int y;
    public <T extends Comparable<T>> T max(List<T> items, T... more) { return null; }
    int[] grid(int[][] cells) { return null; }
    void run() {
        class Local { void go() { helper(); } }
        new Runnable() { public void run() { helper(); } };
    }
    void helper() {}
}
interface Shape { default double area() { return 0; } double perimeter(); }
enum Color { RED, GREEN; Color() {} }
record Pair<A, B>(A left, B right) { Pair { } }
class Holder { @Getter @Setter private String name; private final boolean done = true; }
"""
    facts = java.extract("p/Point.java", src)
    assert keys(facts) == [
        ("class", "Point", False), ("field", "Point#x", False), ("field", "Point#y", False),
        ("method", "Point#max(List,T...)", False), ("method", "Point#grid(int[][])", False),
        ("method", "Point#run()", False), ("method", "Point#helper()", False),
        ("method", "Point#getX()", True), ("method", "Point#getY()", True), ("constructor", "Point#Point(int,int)", True),
        ("method", "Point#builder()", True), ("field", "Point#log", True),
        ("interface", "Shape", False), ("method", "Shape#area()", False), ("method", "Shape#perimeter()", False),
        ("enum", "Color", False), ("field", "Color#RED", False), ("field", "Color#GREEN", False),
        ("constructor", "Color#Color()", False), ("method", "Color#values()", True),
        ("method", "Color#valueOf(String)", True),
        ("record", "Pair", False), ("field", "Pair#left", False), ("field", "Pair#right", False),
        ("constructor", "Pair#Pair(A,B)", False), ("method", "Pair#left()", True), ("method", "Pair#right()", True),
        ("class", "Holder", False), ("field", "Holder#name", False), ("field", "Holder#done", False),
        ("method", "Holder#getName()", True), ("method", "Holder#setName(String)", True),
        ("class", "Point.Local", False), ("method", "Point.Local#go()", False),
    ]
    by_key = {s.key: s for s in facts.symbols}
    assert by_key["Shape#perimeter()"].modifiers == ("abstract",)
    assert by_key["Shape#area()"].modifiers == ("default",)
    assert by_key["Point.Local"].modifiers == ("local",)
    assert by_key["Point#max(List,T...)"].type_params == ("T",)
    # the anonymous Runnable's call belongs to the enclosing method; the local class's to its method
    owners = {(c.owner, c.name) for c in facts.calls if c.name == "helper"}
    assert owners == {("Point.Local#go()", "helper"), ("Point#run()", "helper")}
    assert facts.imports[1].names == (("*", "*"),)


def test_python_conditional_nested_async_property_and_imports():
    src = b'''"""Doc."""
from __future__ import annotations
from ..base import Base as B, other
from . import sibling
import os.path
if TYPE_CHECKING:
    from typing import Any
try:
    import ujson as json
except ImportError:
    import json
__all__ = ["Thing"]

class Thing(B):
    label: str = "x"

    class Meta:
        ordering = ["id"]

    @property
    def size(self) -> int:
        return 1

    async def fetch(self, *args, key=None, **kwargs):
        async def inner():
            return await other(self)
        return inner

    @classmethod
    def make(cls):
        return cls()

if os.path.exists("x"):
    def helper():
        pass
else:
    def helper():
        pass
'''
    facts = python.extract("pkg/mod.py", src)
    assert keys(facts) == [
        ("class", "Thing", False), ("field", "Thing.label", False), ("class", "Thing.Meta", False),
        ("field", "Thing.Meta.ordering", False), ("method", "Thing.size", False), ("method", "Thing.fetch", False),
        ("function", "Thing.fetch.inner", False), ("method", "Thing.make", False),
        ("function", "helper", False), ("function", "helper~2", False),
    ]
    by_key = {s.key: s for s in facts.symbols}
    assert by_key["Thing.size"].modifiers == ("property",) and by_key["Thing.size"].type == "int"
    assert by_key["Thing.fetch"].modifiers == ("async",)
    assert by_key["Thing.fetch"].params == (("*args", ""), ("key", ""), ("**kwargs", ""))
    assert by_key["Thing.make"].modifiers == ("classmethod",) and by_key["Thing.make"].extra["self"] == "cls"
    assert [(i.target, i.names) for i in facts.imports] == [
        ("..base", (("Base", "B"), ("other", "other"))), (".", (("sibling", "sibling"),)),
        ("os.path", (("os.path", "os"),)), ("typing", (("Any", "Any"),)), ("ujson", (("ujson", "json"),)),
        ("json", (("json", "json"),)),
    ]
    assert facts.extra["all"] == ["Thing"] and facts.extra["docstring"] == "Doc."


def test_typescript_and_javascript_module_forms():
    ts = b"""export * as ns from './ns';
export default class {
  run(): void {}
}
const Widget = class { draw() {} };
export enum Mode { On = 1, Off }
export function* gen() {}
namespace_call();
"""
    facts = typescript.extract("src/a.ts", ts)
    assert keys(facts) == [
        ("class", "default", False), ("method", "default.run", False), ("class", "Widget", False),
        ("method", "Widget.draw", False), ("enum", "Mode", False), ("field", "Mode.On", False),
        ("field", "Mode.Off", False), ("function", "gen", False),
    ]
    assert facts.extra["default"] == "default" and facts.extra["exports"] == {"Mode": "Mode", "gen": "gen"}
    assert facts.imports[0].names == (("*", "ns"),) and facts.imports[0].reexport
    js = b"""(function ($) {
  function setup() { helper(); }
  function helper() {}
})(jQuery);
const { a, b: c } = require('./lib');
exports.run = function () { setup(); };
module.exports.Thing = class Thing {};
"""
    facts = typescript.extract("static/app.js", js)
    assert facts.language == "javascript"
    assert keys(facts) == [("function", "setup", False), ("function", "helper", False),
                           ("function", "run", False), ("class", "Thing", False)]
    assert facts.extra["exports"] == {"run": "run", "Thing": "Thing"}
    assert facts.imports[0].target == "./lib" and facts.imports[0].names == (("a", "a"), ("b", "c"))


def test_bad_input_gives_partial_facts_never_an_exception():
    broken = java.extract("A.java", b"package p; class A { void ok() {} void broken( { } class B {}")
    assert broken.syntax_errors == 1 and any(s.key == "A" for s in broken.symbols)
    latin = python.extract("l.py", "def caf\xe9():\n    return '\xe9'\n".encode("latin-1"))
    assert latin.syntax_errors in (0, 1) and latin.loc == 2
    for extract, name in ((java.extract, "E.java"), (python.extract, "e.py"), (typescript.extract, "e.ts")):
        empty = extract(name, b"")
        assert empty.symbols == [] and empty.loc == 0
    tsx = typescript.extract("c.tsx", b"export const C = () => <div onClick={() => go()}>hi</div>;\n")
    assert [(s.kind, s.key) for s in tsx.symbols] == [("function", "C")]
    assert [c.name for c in tsx.calls] == ["go"]


def test_call_arguments_and_constants_are_kept_as_written_for_part_two():
    java_facts = java.extract("C.java", b'class C { static final String BASE = "/api" + "/v1";\n'
                                        b'  void go() { rest.getForObject(BASE + "/users/{id}", User.class, id); } }')
    assert [c.args for c in java_facts.calls] == [('BASE + "/users/{id}"', "User.class", "id")]
    assert {s.key: s.extra.get("value") for s in java_facts.symbols}["C#BASE"] == '"/api" + "/v1"'
    py = python.extract("m.py", b'PREFIX = "/orders"\nrouter = APIRouter(prefix=PREFIX)\n'
                                b'httpx.get(f"{BASE}/items/{key}", timeout=3)\n')
    assert py.extra["values"] == {"PREFIX": '"/orders"'}
    assert [c.args for c in py.calls] == [("prefix=PREFIX",), ('f"{BASE}/items/{key}"', "timeout=3")]
    ts = typescript.extract("a.ts", b"const API = `/api/${version}`;\nfetch(API + '/x', { method: 'POST' });\n")
    assert ts.extra["values"] == {"API": "`/api/${version}`"}
    assert [c.args for c in ts.calls] == [("API + '/x'", "{ method: 'POST' }")]


def test_a_second_type_of_one_name_gives_its_members_their_own_names(tmp_path):
    """Two declarations of one name in a file (a redefinition, TypeScript's interface + class merging): the
    second's members are the type's members, never the type itself."""
    from graphlore.toolsets.code.index.graph import CodeGraph

    (tmp_path / "mod.py").write_text("class Foo:\n    def first(self):\n        return 1\n\n\n"
                                     "class Foo:\n    def second(self):\n        return 2\n", encoding="utf-8")
    (tmp_path / "shapes.ts").write_text("export interface Shape { area(): number }\n"
                                        "export class Shape { perimeter(): number { return 0 } }\n", encoding="utf-8")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    methods = sorted(n.props["fqn"] for n in nodes.values()
                     if n.kind == "symbol" and n.props["symbol_kind"] == "method")
    assert methods == ["mod.Foo.first", "mod.Foo.second", "shapes.ts#Shape.area", "shapes.ts#Shape.perimeter"]


def test_typescript_wrapped_functions_and_compositions():
    """``const f = curry((a, b) => ...)`` is the function f (its calls are f's); ``flow(getUser, fmt.full)``
    calls what it composes; ``[1].map(i => ...)`` is no function definition."""
    facts = typescript.extract("db.ts", b"""import { curry, flow } from "lodash/fp";
export const save = curry((sender: string, balance: number) =>
  updateUser(sender, { balance })
);
export const fullName = (id: string) => flow(getUserById, fmt.full)(id);
const doubled = [1, 2].map((i) => i * 2);
""")
    assert [(s.kind, s.name, s.line_start) for s in facts.symbols] == [("function", "save", 2),
                                                                       ("function", "fullName", 5)]
    calls = {(c.owner, c.name, c.line) for c in facts.calls}
    assert {("save", "updateUser", 3), ("fullName", "getUserById", 5), ("fullName", "full", 5)} <= calls
    assert ("", "map", 6) in calls


def test_csharp_primary_constructor_parameters_are_fields_on_their_own_lines():
    """A record's or a class's primary constructor parameters are properties where each is written, not on the
    type's first line (a list broken over lines; ``record R(int A, int B)`` on one line keeps that line)."""
    from graphlore.toolsets.code.languages.csharp import extract as csharp
    src = b"""namespace Shop;

public class CachedCart
    (ICartStore store,
     ICache cache)
    : ICartStore
{
    public void Put(string id) { }
}

public record Line(string Sku, int Count);
"""
    facts = csharp.extract("Shop/CachedCart.cs", src)
    lines = {s.key: (s.kind, s.line_start, s.line_end) for s in facts.symbols}
    assert lines["CachedCart"][1] == 3
    assert lines["CachedCart.store"] == ("field", 4, 4)
    assert lines["CachedCart.cache"] == ("field", 5, 5)
    assert lines["Line.Sku"] == ("field", 11, 11) and lines["Line.Count"] == ("field", 11, 11)
