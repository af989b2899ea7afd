"""A call never crosses a deployed service on a name: a ``CALLS`` edge goes to code of the caller's own service or
of a library (a service that is not deployed itself); the same package, class or function name in another
deployed service is not what the call means (it runs in another process), and where two libraries declare it
the call stays unresolved (never a guess)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_graph import render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

POM = """<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{name}</artifactId>
<version>1</version>{extra}</project>
"""
BOOT = "<build><plugins><plugin><artifactId>spring-boot-maven-plugin</artifactId></plugin></plugins></build>"
REACTOR = "<packaging>pom</packaging><modules>{}</modules>"
UTIL = "package acme;\npublic class Util {{ public static int {name}() {{ return 2; }} }}\n"
MAIN = "package acme;\npublic class Main {{ void go() {{ {body} }} }}\n"


def _reactor(root: Path, modules: dict[str, bool], files: dict[str, str]) -> Path:
    """A Maven reactor over ``modules`` (name -> deployed: the Spring Boot plugin), with ``files`` in them."""
    listed = "".join(f"<module>{m}</module>" for m in modules)
    poms = {f"{m}/pom.xml": POM.format(name=m, extra=BOOT if boot else "") for m, boot in modules.items()}
    return write_tree(root, {"pom.xml": POM.format(name="shop", extra=REACTOR.format(listed)), **poms, **files})


def _calls(root: Path) -> tuple[set[tuple[str, str]], dict[str, list[dict]]]:
    """(caller file, callee file) of every CALLS edge; unresolved call sites by their symbol's fqn."""
    nodes, edges = CodeGraph.build(root).snapshot()
    calls = {(nodes[e.src].props["file"], nodes[e.dst].props["file"]) for e in edges.values() if e.type == "CALLS"}
    unresolved = {n.props.get("fqn", n.name): n.props["unresolved_calls"] for n in nodes.values()
                  if n.props.get("unresolved_calls")}
    return calls, unresolved


def test_a_java_class_only_another_deployed_service_declares_is_not_called(tmp_path: Path):
    root = _reactor(tmp_path / "shop", {"a": True, "b": True}, {
        "a/src/main/java/acme/Util.java": UTIL.format(name="run"),
        "b/src/main/java/acme/Main.java": MAIN.format(body="Util.run();")})
    calls, unresolved = _calls(root)
    assert calls == set()
    assert [site["name"] for site in unresolved["acme.Main#go()"]] == ["run"]


def test_the_same_java_class_in_two_services_is_each_service_own(tmp_path: Path):
    # b's Main is listed after a's Util in path order: the old first-found pick went to a's
    root = _reactor(tmp_path / "shop", {"a": True, "b": True}, {
        "a/src/main/java/acme/Util.java": UTIL.format(name="run"),
        "b/src/main/java/acme/Util.java": UTIL.format(name="run"),
        "b/src/main/java/acme/Main.java": MAIN.format(body="Util.run();"),
        "c/src/main/java/acme/Main.java": MAIN.format(body="Util.run();")})
    calls, _ = _calls(root)
    assert ("b/src/main/java/acme/Main.java", "b/src/main/java/acme/Util.java") in calls
    assert not any(callee.startswith("a/") for _caller, callee in calls)


def test_a_shared_library_is_called_from_every_service_and_two_libraries_are_no_guess(tmp_path: Path):
    root = _reactor(tmp_path / "shop", {"common": False, "a": True, "b": True}, {
        "common/src/main/java/acme/Util.java": UTIL.format(name="run"),
        "a/src/main/java/acme/Main.java": MAIN.format(body="Util.run();"),
        "b/src/main/java/acme/Main.java": MAIN.format(body="Util.run();")})
    calls, _ = _calls(root)
    assert calls == {("a/src/main/java/acme/Main.java", "common/src/main/java/acme/Util.java"),
                     ("b/src/main/java/acme/Main.java", "common/src/main/java/acme/Util.java")}
    write_tree(root, {"other/pom.xml": POM.format(name="other", extra=""),
                  "other/src/main/java/acme/Util.java": UTIL.format(name="run"),
                  "pom.xml": POM.format(name="shop", extra=REACTOR.format(
                      "".join(f"<module>{m}</module>" for m in ("common", "other", "a", "b"))))})
    calls, unresolved = _calls(root)
    assert calls == set()
    assert {site["name"] for site in unresolved["acme.Main#go()"]} == {"run"}


def test_a_java_method_named_alike_in_another_service_is_no_name_only_candidate(tmp_path: Path):
    root = _reactor(tmp_path / "shop", {"a": True, "b": True}, {
        "a/src/main/java/acme/Stock.java": "package acme;\npublic class Stock { public int reserve() { return 1; } }\n",
        "b/src/main/java/acme/Main.java": MAIN.format(body="thing().reserve();")})
    calls, unresolved = _calls(root)
    assert calls == set()
    assert [site["name"] for site in unresolved["acme.Main#go()"] if site["name"] == "reserve"] == ["reserve"]


PHP_LIB = "<?php\nfunction helper() { return 1; }\nclass Util { public static function run() { return 2; } }\n"
PHP_MAIN = "<?php\nfunction go() {\n    helper();\n    Util::run();\n    $u = new Util();\n}\n"


def test_php_functions_and_classes_of_another_deployed_service_are_not_called(tmp_path: Path):
    files = {"a/composer.json": '{"name": "acme/a", "type": "project"}', "a/Dockerfile": "FROM php:8\n",
             "a/functions.php": PHP_LIB,
             "b/composer.json": '{"name": "acme/b", "type": "project"}', "b/Dockerfile": "FROM php:8\n",
             "b/main.php": PHP_MAIN}
    calls, unresolved = _calls(write_tree(tmp_path / "shop", files))
    assert calls == set()
    assert [site["name"] for site in unresolved["go"]] == ["helper", "run", "Util"]
    # the same files with b's own copy of the library: every call is b's own
    calls, _ = _calls(write_tree(tmp_path / "shop", {"b/lib.php": PHP_LIB}))
    assert calls == {("b/main.php", "b/lib.php")}


def test_a_python_module_name_is_the_callers_own_services_and_a_path_import_is_kept(tmp_path: Path):
    service = {"Dockerfile": "FROM python:3.12\n", "requirements.txt": "flask\n",
               "logger.py": "def get():\n    return 1\n", "main.py": "import logger\n\n\ndef run():\n    logger.get()\n"}
    files = {f"{name}/{rel}": text for name in ("email", "recommend") for rel, text in service.items()}
    calls, _ = _calls(write_tree(tmp_path / "shop", files))
    assert calls == {("email/main.py", "email/logger.py"), ("recommend/main.py", "recommend/logger.py")}
    (tmp_path / "shop/recommend/logger.py").unlink()
    calls, _ = _calls(tmp_path / "shop")
    assert calls == {("email/main.py", "email/logger.py")}   # never the other service's logger
    # TS/JS import files by their path: what a relative import names is what the code runs, whichever folder
    web = {"api/package.json": '{"name": "api"}', "api/Dockerfile": "FROM node:20\n",
           "api/server.ts": "import { total } from '../web/src/money';\nexport function sum() { return total(); }\n",
           "web/package.json": '{"name": "web"}', "web/Dockerfile": "FROM nginx\n",
           "web/src/money.ts": "export function total() { return 1; }\n"}
    calls, _ = _calls(write_tree(tmp_path / "ts", web))
    assert calls == {("api/server.ts", "web/src/money.ts")}


def test_a_library_that_becomes_deployed_loses_its_callers_on_update_as_in_a_full_build(tmp_path: Path):
    root = _reactor(tmp_path / "shop", {"common": False, "a": True, "b": True}, {
        "common/src/main/java/acme/Util.java": UTIL.format(name="run"),
        "a/src/main/java/acme/Main.java": MAIN.format(body="Util.run();"),
        "b/src/main/java/acme/Main.java": MAIN.format(body="Util.run();")})
    graph = CodeGraph.build(root)
    assert len([e for e in graph.snapshot()[1].values() if e.type == "CALLS"]) == 2
    write_tree(root, {"common/pom.xml": POM.format(name="common", extra=BOOT)})   # now an application of its own
    graph.update()
    assert render(graph) == render(CodeGraph.build(root))
    assert not [e for e in graph.snapshot()[1].values() if e.type == "CALLS"]


def test_a_python_module_two_libraries_declare_is_no_guess(tmp_path: Path):
    files = {"a/Dockerfile": "FROM python:3.12\n", "a/requirements.txt": "flask\n",
             "a/main.py": "import helpers\n\n\ndef run():\n    helpers.go()\n",
             "x/pyproject.toml": '[project]\nname = "x"\n', "x/helpers.py": "def go():\n    return 1\n",
             "y/pyproject.toml": '[project]\nname = "y"\n', "y/helpers.py": "def go():\n    return 2\n"}
    calls, _ = _calls(write_tree(tmp_path / "shop", files))
    assert calls == set()   # x's was taken by path order: which one is on sys.path is not read
    (tmp_path / "shop/y/helpers.py").unlink()
    calls, _ = _calls(tmp_path / "shop")
    assert calls == {("a/main.py", "x/helpers.py")}   # the one library's
