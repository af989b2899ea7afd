"""The language interface: every registered language answers it, and adding a language is one package plus one
registry line (a toy language from the tests folder, Starlark over the Python grammar, proves it)."""

from __future__ import annotations

from helpers import starlark
from helpers.code_graph import bump

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages import registry
from graphlore.toolsets.code.languages.resolver import Resolver
from graphlore.toolsets.code.model import FileFacts, module_id


def test_every_registered_language_answers_the_interface():
    assert registry.NAMES == ("java", "python", "typescript", "javascript", "go", "kotlin", "csharp", "php", "ruby", "rust",
                              "cpp", "proto")
    for language in registry.LANGUAGES:
        assert language.names and set(language.extensions.values()) == set(language.names)
        assert issubclass(language.resolver, Resolver)
        for suffix, name in language.extensions.items():
            facts = language.extract(f"src/empty{suffix}", b"")
            assert isinstance(facts, FileFacts) and facts.language == name and facts.symbols == []
            assert registry.by_name(name) is language and registry.suffixes()[suffix] == name


DEFS = 'def greet(name):\n    return "hi " + name\n\n\ndef _unused():\n    pass\n'
MAIN = '''load("//tools:defs.bzl", "greet", hello = "greet")
load("@rules//x:y.bzl", "z")


def run():
    greet("a")
    hello("b")
    helper()
    z()


def helper():
    print("x")
    missing()
'''


def _calls(graph: CodeGraph) -> set[tuple[str, str, str]]:
    nodes, edges = graph.snapshot()
    return {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"], e.props["resolution"])
            for e in edges.values() if e.type == "CALLS"}


def _unresolved(graph: CodeGraph) -> set[tuple[str, str, str]]:
    nodes, _ = graph.snapshot()
    return {(n.props["fqn"], s["name"], s["reason"]) for n in nodes.values() for s in n.props.get("unresolved_calls", [])}


def test_a_language_is_one_package_and_one_registry_line(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "LANGUAGES", (*registry.LANGUAGES, starlark.LANGUAGE))
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "defs.bzl").write_text(DEFS)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.star").write_text(MAIN)
    (tmp_path / "app" / "tool.py").write_text("def py():\n    return 1\n")   # the other languages read alongside

    graph = CodeGraph.build(tmp_path)
    nodes, edges = graph.snapshot()
    symbols = {n.props["fqn"]: n for n in nodes.values() if n.kind == "symbol"}
    assert {"tools/defs.bzl", "tools/defs.bzl%greet", "tools/defs.bzl%_unused", "app/main.star",
            "app/main.star%run", "app/main.star%helper", "tool", "tool.py"} <= set(symbols)
    assert symbols["app/main.star%run"].props["language"] == "starlark"
    assert symbols["app/main.star%run"].props["role"] == "OTHER"
    assert symbols["app/main.star"].props["imports_external"] == ["@rules//x:y.bzl"]
    assert _calls(graph) == {("app/main.star%run", "tools/defs.bzl%greet", "static_import"),
                             ("app/main.star%run", "app/main.star%helper", "local")}
    assert _unresolved(graph) == {("app/main.star%run", "z", "external_name"),
                                  ("app/main.star%helper", "print", "builtin"),
                                  ("app/main.star%helper", "missing", "undefined_name")}
    imports = {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"]) for e in edges.values() if e.type == "IMPORTS"}
    assert imports == {("app/main.star", "tools/defs.bzl%greet")}
    declared = {(e.src, e.dst) for e in edges.values() if e.type == "DECLARES"}
    assert (module_id("."), symbols["tools/defs.bzl"].id) in declared   # the layout declares its files

    # an edit to the loaded file re-resolves the file that loads it, exactly as a full build would
    defs = tmp_path / "tools" / "defs.bzl"
    defs.write_text(DEFS.replace("def greet", "def welcome"))
    bump(defs)
    stats = graph.update()
    assert "app/main.star" in stats.resolved_paths
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    assert ("app/main.star%run", "greet", "external_name") in _unresolved(graph)


def test_role_tables_are_each_languages_own(tmp_path):
    """A decorator name means a role only in the language whose frameworks use it: NestJS's ``@Injectable`` makes
    a TS class a SERVICE, not a Java class; Spring's ``@Service`` a Java class, not a Python one."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "Thing.java").write_text("package a;\n@Injectable class Thing {}\n@Service class Other {}\n")
    (tmp_path / "a" / "thing.ts").write_text("@Injectable()\nexport class Thing {}\n")
    (tmp_path / "a" / "thing.py").write_text("@Service\nclass Thing:\n    pass\n")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    roles = {n.props["fqn"]: n.props["role"] for n in nodes.values() if n.kind == "symbol"}
    assert roles["a.Thing"] == "OTHER" and roles["a.Other"] == "SERVICE"
    assert roles["a/thing.ts#Thing"] == "SERVICE" and roles["thing.Thing"] == "OTHER"
