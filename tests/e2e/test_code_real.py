"""Real code nobody here wrote: piggymetrics (Spring Cloud, ../shared/data) and django (from PyPI).
Each assertion is a fact checked by hand in the source."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
from helpers import backend
from helpers.code_graph import edit, render

from graphlore.toolsets.code.index.graph import CodeGraph

ACCOUNT = "com.piggymetrics.account"


@pytest.fixture(scope="module")
def piggymetrics(request):
    shared = request.getfixturevalue("shared_data")
    root = shared / "code" / "piggymetrics"
    if not root.is_dir():
        pytest.skip(f"needs {root}")
    return CodeGraph.build(root)


@pytest.fixture(scope="module")
def django_graph():
    spec = importlib.util.find_spec("django")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("needs django installed from PyPI (python -m pip install django)")
    return CodeGraph.build(Path(next(iter(spec.submodule_search_locations))))


def index(graph: CodeGraph):
    nodes, edges = graph.snapshot()
    by_fqn = {n.props["fqn"]: n for n in nodes.values() if n.kind == "symbol"}
    triples = {(nodes[e.src].props.get("fqn", nodes[e.src].name), e.type, nodes[e.dst].props.get("fqn", nodes[e.dst].name))
               for e in edges.values()}
    return nodes, by_fqn, triples


def test_piggymetrics_services_are_its_nine_applications(piggymetrics):
    nodes, _, _ = index(piggymetrics)
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    apps = ["account-service", "auth-service", "config", "gateway", "monitoring", "notification-service", "registry",
            "statistics-service", "turbine-stream-service"]
    # the root reactor aggregates the nine applications; it keeps the one file outside them
    # (mongodb/dump/account-service-dump.js, a mongo shell script)
    assert sorted(services) == sorted([*apps, "piggymetrics"])
    assert services["piggymetrics"]["deployable"] is False and services["piggymetrics"]["files"] == 1
    assert services["account-service"]["declared_names"]["spring.application.name"] == "account-service"
    assert services["config"]["name_source"] == "artifactId"   # config declares no spring.application.name
    assert all(services[name]["deployable"] for name in apps)


def test_piggymetrics_facts(piggymetrics):
    _, by_fqn, triples = index(piggymetrics)
    controller = by_fqn[f"{ACCOUNT}.controller.AccountController"].props
    assert controller["role"] == "CONTROLLER" and "HTTP_ENDPOINT" in controller["capabilities"]
    assert controller["microservice"] == "account-service"
    assert by_fqn[f"{ACCOUNT}.repository.AccountRepository"].props["role"] == "REPOSITORY"
    assert by_fqn[f"{ACCOUNT}.client.StatisticsServiceClient"].props["role"] == "CLIENT"
    assert "HTTP_CLIENT" in by_fqn[f"{ACCOUNT}.client.StatisticsServiceClient"].props["capabilities"]
    assert by_fqn[f"{ACCOUNT}.service.AccountServiceImpl"].props["role"] == "SERVICE"
    assert by_fqn[f"{ACCOUNT}.AccountApplication"].props["role"] == "CONFIG"
    assert (f"{ACCOUNT}.service.AccountServiceImpl", "IMPLEMENTS", f"{ACCOUNT}.service.AccountService") in triples
    assert (f"{ACCOUNT}.service.AccountServiceImpl#create(User)", "OVERRIDES",
            f"{ACCOUNT}.service.AccountService#create(User)") in triples
    assert (f"{ACCOUNT}.service.AccountServiceImpl", "INJECTS", f"{ACCOUNT}.repository.AccountRepository") in triples
    assert (f"{ACCOUNT}.controller.AccountController#getAccountByName(String)", "CALLS",
            f"{ACCOUNT}.service.AccountService#findByName(String)") in triples
    assert (f"{ACCOUNT}.client.StatisticsServiceClientFallback", "IMPLEMENTS",
            f"{ACCOUNT}.client.StatisticsServiceClient") in triples
    # repository.save comes from Spring Data's CrudRepository: a call of the repository's inherited method (issue 22)
    assert (f"{ACCOUNT}.service.AccountServiceImpl#saveChanges(String,Account)", "CALLS",
            f"{ACCOUNT}.repository.AccountRepository#save(S)") in triples
    assert not [s for s in by_fqn[f"{ACCOUNT}.service.AccountServiceImpl#saveChanges(String,Account)"].props[
        "unresolved_calls"] if s["name"] == "save"]
    test = by_fqn[f"{ACCOUNT}.controller.AccountControllerTest"].props
    assert test["role"] == "TEST"


def test_django_facts(django_graph):
    _, by_fqn, triples = index(django_graph)
    model = "django.db.models.base.Model"
    assert by_fqn[model].props["symbol_kind"] == "class"
    # `from django.db import models` + `class Permission(models.Model)`: through the package re-export
    assert ("django.contrib.auth.models.Permission", "EXTENDS", model) in triples
    assert by_fqn["django.contrib.auth.models.Permission"].props["role"] == "ENTITY"
    assert ("django.contrib.auth.base_user.AbstractBaseUser.save", "OVERRIDES", f"{model}.save") in triples
    assert by_fqn["django.views.generic.base.TemplateView"].props["role"] == "CONTROLLER"
    assert ("django.views.generic.base.TemplateView", "EXTENDS", "django.views.generic.base.View") in triples
    assert ("django.db.models.query.QuerySet.filter", "CALLS", "django.db.models.query.QuerySet._filter_or_exclude") \
        in triples
    assert by_fqn["django.db.models"].props["symbol_kind"] == "package"
    assert ("django.db.models", "DECLARES", "django.db.models.base") in triples


# -- the same through the tools and the store ------------------------------------------------------------


@pytest.fixture(scope="module")
def django_tools(tmp_path_factory, embedder):
    """(runtime, root): django's source indexed through the index tool (structure only)."""
    spec = importlib.util.find_spec("django")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("needs django installed from PyPI (python -m pip install django)")
    from graphlore.runtime import Runtime

    root = Path(next(iter(spec.submodule_search_locations)))
    runtime = Runtime(backend.settings_for(tmp_path_factory.mktemp("django") / "home"), embedder=embedder, watch_files=True)
    run(runtime, "index", project_path=str(root), embed=False)
    yield runtime, root
    runtime.close()


def run(runtime, tool, **fields):
    from graphlore.contract import parse_request
    from graphlore.toolsets.code.query import models, tools

    return getattr(tools, tool)(runtime, parse_request(getattr(models, f"{tool.capitalize()}Request"), fields))


def test_django_through_the_tools(django_tools):
    runtime, root = django_tools
    p = str(root)
    model = run(runtime, "resolve", project_path=p, identifier="django.db.models.base.Model")
    assert (model.status, model.reason) == ("one", "exact_fqn")
    save = run(runtime, "resolve", project_path=p, identifier="Model.save")
    assert save.status == "one" and save.node.label == "django.db.models.base.Model.save"
    overriders = run(runtime, "neighbors", project_path=p, id=save.node.id, edge_types=["OVERRIDDEN_BY"], limit=500)
    assert "django.contrib.auth.base_user.AbstractBaseUser.save" in {n.node.label for n in overriders.neighbors}
    subclasses = run(runtime, "neighbors", project_path=p, id=model.node.id, edge_types=["EXTENDED_BY"], limit=500)
    assert "django.contrib.auth.models.Permission" in {n.node.label for n in subclasses.neighbors}
    views = run(runtime, "find", project_path=p, kind="symbol",
                filter={"role": "CONTROLLER", "symbol_kind": "class", "fqn_prefix": "django.views.generic"}, limit=500)
    assert "django.views.generic.base.TemplateView" in {r.label for r in views.results}
    described = run(runtime, "describe", project_path=p, fqn="django.db.models.query.QuerySet")
    assert described.members > 50 and described.edge_summary["CALLS out (via members)"] > 100
    many = run(runtime, "resolve", project_path=p, identifier="save")
    assert many.status == "many" and many.total_candidates > 10 and len(many.candidates) == 10
    words = run(runtime, "search", project_path=p, query="QuerySet filter", kind="symbol",
                filter={"symbol_kind": "method"})
    assert words.ranking == "bm25" and "django.db.models.query.QuerySet.filter" in [h.node.label for h in words.results]


# -- incremental == full on real code ---------------------------------------------------------------------


def test_incremental_equals_full_on_piggymetrics(shared_data, tmp_path):
    source = shared_data / "code" / "piggymetrics"
    root = tmp_path / "piggymetrics"
    shutil.copytree(source, root)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    graph = CodeGraph.build(root)
    base = "account-service/src/main/java/com/piggymetrics/account"
    edit(root, f"{base}/service/AccountService.java", "Account findByName(String accountName);",
         "Account findByName(String accountName);\n\n\tAccount findByEmail(String email);")
    (root / f"{base}/domain/Saving.java").unlink()
    (root / f"{base}/client/AuthServiceClient.java").rename(root / f"{base}/client/AuthClient.java")
    edit(root, "statistics-service/src/main/resources/bootstrap.yml", "name: statistics-service", "name: stats")
    graph.update()
    assert render(graph) == render(CodeGraph.build(root))
