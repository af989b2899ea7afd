"""Go interface dispatch: a method of a type that implements a project interface ``OVERRIDES`` the interface's
method (also when the method is declared in another file than its type, and through an embedded interface), so a
call through the interface reaches every implementation in ``impact`` and ``paths``; a method that only shares a
name with no interface the type implements overrides nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import backend
from helpers.code_tools import node, run, write_tree

from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.graph import CodeGraph

FILES = {
    "go.mod": "module example.org/bakery\n\ngo 1.22\n",
    "ovens/ovens.go": """package ovens

type Reader interface {
	Temperature(id string) int
}

// Oven is what the bakery calls; it embeds Reader
type Oven interface {
	Reader
	Bake(id string, minutes int) error
}
""",
    "ovens/gas.go": "package ovens\n\ntype gasOven struct{ burners int }\n",
    "ovens/gas_methods.go": """package ovens

func (g *gasOven) Bake(id string, minutes int) error { return nil }

func (g *gasOven) Temperature(id string) int { return 200 }
""",
    "ovens/electric.go": """package ovens

type electricOven struct{}

func (e electricOven) Bake(id string, minutes int) error { return nil }

func (e electricOven) Temperature(id string) int { return 180 }

// Bake with another arity on a type that implements nothing: no override
type toaster struct{}

func (t toaster) Bake(id string) error { return nil }
""",
    "bakery/bakery.go": """package bakery

import "example.org/bakery/ovens"

type Bakery struct {
	oven ovens.Oven
}

func (b *Bakery) Loaf(id string) error {
	return b.oven.Bake(id, 40)
}

func (b *Bakery) Check(id string) int {
	return b.oven.Temperature(id)
}
""",
}


def _tree(root: Path) -> Path:
    return write_tree(root, FILES)


def test_implementing_methods_override_the_interface_s_methods(tmp_path: Path):
    nodes, edges = CodeGraph.build(_tree(tmp_path / "bakery")).snapshot()
    fqn = {n.id: n.props.get("fqn", n.name) for n in nodes.values()}
    overrides = {(fqn[e.src].rsplit("/", 1)[-1], fqn[e.dst].rsplit("/", 1)[-1]) for e in edges.values()
                 if e.type == "OVERRIDES"}
    assert overrides == {("ovens.gasOven.Bake", "ovens.Oven.Bake"), ("ovens.electricOven.Bake", "ovens.Oven.Bake"),
                         ("ovens.gasOven.Temperature", "ovens.Reader.Temperature"),
                         ("ovens.electricOven.Temperature", "ovens.Reader.Temperature")}


@pytest.fixture(scope="module")
def project(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("go-dispatch")
    tree = _tree(base / "bakery")
    runtime = Runtime(backend.settings_for(base / "home"), embedder=embedder)
    run(runtime, tree, "index", embed=False)
    yield runtime, tree
    runtime.close()


def test_impact_and_paths_go_through_the_interface_to_each_implementation(project):
    gas = node(project, "example.org/bakery/ovens.gasOven.Bake")
    reached = {hit.node.label.rsplit(".", 1)[-1] for hit in run(*project, "impact", id=gas, depth=1).results}
    assert "Loaf" in reached and "Check" not in reached
    loaf = node(project, "example.org/bakery/bakery.Bakery.Loaf")
    found = run(*project, "paths", from_id=loaf, to_id=gas)
    assert [[h.target.label.rsplit("/", 1)[-1] for h in p.hops] for p in found.paths] == [
        ["ovens.Oven.Bake", "ovens.gasOven.Bake"]]
    electric = node(project, "example.org/bakery/ovens.electricOven.Temperature")
    check = node(project, "example.org/bakery/bakery.Bakery.Check")
    assert run(*project, "paths", from_id=check, to_id=electric).paths
