"""An application name copied into a second service (``spring.application.name=orders`` in the delivery service
too, as FTGO's delivery service has the order service's): the service whose folder or build artifact carries the
name keeps it, whichever comes first by path; the other goes by its own artifact (or folder), the copied name
still among its declared names; a ``microservice`` filter with the name is that service alone. When neither (or
both) carry it, the first by path keeps it and the second is ``name@folder``, as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import backend
from helpers.code_tools import run, write_tree

from graphlore.runtime import Runtime
from graphlore.toolsets.code.layout.layout import detect_layout
from graphlore.toolsets.code.layout.walk import scan

CONTROLLER = ("package com.acme.{pkg};\n\nimport org.springframework.web.bind.annotation.*;\n\n"
              "@RestController\npublic class Api {{\n    @GetMapping(\"{path}\")\n"
              "    public String get(@PathVariable String id) {{ return id; }}\n}}\n")


def _service(folder: str, artifact: str, application: str, path: str) -> dict[str, str]:
    pkg = folder.replace("-", "")
    return {f"{folder}/pom.xml": f"<project><artifactId>{artifact}</artifactId></project>\n",
            f"{folder}/src/main/resources/application.properties": f"spring.application.name={application}\n",
            f"{folder}/src/main/java/com/acme/{pkg}/Api.java": CONTROLLER.format(pkg=pkg, path=path)}


def _names(root: Path) -> dict[str, tuple[str, dict[str, str]]]:
    """service root -> (its name, its declared names)."""
    return {s.root: (s.name, s.declared_names) for s in detect_layout(scan(root)).services.values()}


@pytest.mark.parametrize("copy", ["delivery", "shipping"])   # before and after ``orders`` by path
def test_the_service_whose_folder_carries_a_copied_name_keeps_it(tmp_path: Path, copy: str):
    tree = write_tree(tmp_path, {**_service("orders", "orders", "orders", "/orders/{id}"),
                                 **_service(copy, copy, "orders", "/deliveries/{id}")})
    names = _names(tree)
    assert names["orders"][0] == "orders"
    assert names[copy] == (copy, {"spring.application.name": "orders", "artifactId": copy})


def test_the_artifact_carries_the_name_too(tmp_path: Path):
    """The folder is ``order-svc`` but its artifact is ``orders``: it keeps the name; the copy in ``billing`` goes by
    its artifact ``billing-app``, not its folder."""
    tree = write_tree(tmp_path, {**_service("order-svc", "orders", "orders", "/orders/{id}"),
                                 **_service("billing", "billing-app", "orders", "/bills/{id}")})
    names = _names(tree)
    assert names["order-svc"][0] == "orders" and names["billing"][0] == "billing-app"


def test_a_name_neither_service_carries_stays_first_by_path(tmp_path: Path):
    tree = write_tree(tmp_path, {**_service("alpha", "alpha", "shop", "/a/{id}"),
                                 **_service("beta", "beta", "shop", "/b/{id}")})
    names = _names(tree)
    assert names["alpha"][0] == "shop" and names["beta"][0] == "shop@beta"


@pytest.fixture
def project(tmp_path: Path, embedder):
    tree = write_tree(tmp_path / "sys", {**_service("orders", "orders", "orders", "/orders/{id}"),
                                         **_service("delivery", "delivery", "orders", "/deliveries/{id}")})
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    run(runtime, tree, "index", embed=False)
    yield runtime, tree
    runtime.close()


def test_a_filter_with_a_services_own_name_is_that_service_alone(project):
    runtime, tree = project
    routes = run(runtime, tree, "find", kind="route", filter={"microservice": "orders"}).results
    assert [r.label for r in routes] == ["GET /orders/{id}"]
    # the copy's own name still finds it
    routes = run(runtime, tree, "find", kind="route", filter={"microservice": "delivery"}).results
    assert [r.label for r in routes] == ["GET /deliveries/{id}"]


def test_a_filter_with_a_name_neither_service_carries_is_both(tmp_path: Path, embedder):
    """``alpha`` and ``beta`` both declare ``shop`` and neither's folder or artifact is ``shop``: the layout names
    them ``shop`` and ``shop@beta`` by path alone, so a filter with ``shop`` is not ``alpha`` alone."""
    tree = write_tree(tmp_path / "sys", {**_service("alpha", "alpha", "shop", "/a/{id}"),
                                         **_service("beta", "beta", "shop", "/b/{id}")})
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        run(runtime, tree, "index", embed=False)
        routes = run(runtime, tree, "find", kind="route", filter={"microservice": "shop"}).results
        assert sorted(r.label for r in routes) == ["GET /a/{id}", "GET /b/{id}"]
    finally:
        runtime.close()
