"""Locust: ``--host``/``LOCUST_HOST`` given by the deployment overrides a class's ``host``; ``url=`` is the URL
keyword; a call whose URL is not readable is an unresolved client saying why, never dropped."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.code_graph import FIXTURES

from graphlore.toolsets.code.index.graph import CodeGraph

SMOKE = '''from locust import HttpUser, task


class Smoke(HttpUser):
    host = "http://shop:8080"

    @task
    def home(self):
        self.client.get("/")

    @task
    def by_keyword(self):
        self.client.post(url="/cart", json={})

    @task
    def unreadable(self):
        self.client.get(**self.options)
'''


def _smoke_clients(root: Path) -> dict[str, dict]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["declaring_fqn"].rsplit(".", 1)[-1]: n.props for n in nodes.values()
            if n.kind == "client" and n.props["microservice"] == "smoke"}


def test_the_deployments_locust_host_overrides_the_class_host(tmp_path: Path):
    root = tmp_path / "load-tests"
    shutil.copytree(FIXTURES / "load-tests", root)
    (root / "smoke/locustfile.py").write_text(SMOKE)
    clients = _smoke_clients(root)
    assert (clients["home"]["target_url"], clients["home"]["match"]) == ("http://shop:8080/", "cross_service")
    assert (clients["by_keyword"]["http_method"], clients["by_keyword"]["target_path"]) == ("POST", '"/cart"')
    assert clients["by_keyword"]["match"] == "cross_service"
    unreadable = clients["unreadable"]
    assert unreadable["match"] == "unresolved"
    assert "the call's URL is not readable (**self.options)" in unreadable["unresolved_reason"]

    (root / "smoke/Dockerfile").write_text('FROM python:3.12\nENTRYPOINT locust --host="http://elsewhere:9000"\n')
    clients = _smoke_clients(root)
    assert clients["home"]["target_url"] == "http://elsewhere:9000/"
    assert clients["home"]["target_service"] != "shop" and clients["home"]["match"] != "cross_service"
