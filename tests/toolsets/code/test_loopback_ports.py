"""A loopback host (``localhost:PORT``) names the service the host machine publishes at that port, never one
whose container merely listens on it (unreachable from the host)."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.code_graph import FIXTURES, edit

from graphlore.toolsets.code.index.graph import CodeGraph


def _payments_client(root: Path) -> dict:
    nodes, _ = CodeGraph.build(root).snapshot()
    [client] = [n.props for n in nodes.values() if n.kind == "client"
                and n.props["declaring_fqn"] == "com.acme.orders.PaymentsClient#charge(Order)"]
    return client


def test_a_loopback_port_counts_only_ports_the_host_publishes(tmp_path: Path):
    root = tmp_path / "cloud"
    shutil.copytree(FIXTURES / "cloud-system", root)
    assert _payments_client(root)["target_service_matched_by"] == "URL host: the only service published at port 8083"
    # the container listens on 8083, the host publishes it at a random port: localhost:8083 is not payments
    edit(root, "docker-compose.yml", '"8083:8080"', '"8083"')
    client = _payments_client(root)
    assert client["target_service_matched_by"] != "URL host: the only service published at port 8083"
    # the URL's other value (the docker profile's http://payments:8080) still links: the client says what it links
    # and why its localhost value does not (one truth for the client and its edges)
    assert client["match"] == "cross_service"
    assert client["match_detail"] == ("1 of the 2 values of its URL link; the others do not; "
                                      "'localhost' is this machine; no service of the project is published at port 8083")
    # the long form publishes on the host too
    edit(root, "docker-compose.yml", '"8083"', '{target: 8080, published: 8083}')
    assert _payments_client(root)["target_service_matched_by"] == "URL host: the only service published at port 8083"
