"""Scale-out: two ``graphlore serve facts --transport http`` processes on one PostgreSQL database, four MCP
sessions (two per server) writing at once. No write is lost, none is duplicated: every document is
there once, an entity every document mentions is one node, and a document all four sessions send is
created once and "unchanged" for the other three."""

from __future__ import annotations

import threading

import pytest
from anyio.from_thread import start_blocking_portal
from helpers import backend
from helpers.mcp import connect, http_server

TOKEN = "shared-secret"
SHARED = [
    {"name": "Apple Inc", "type": "Company", "definition": "American technology company that makes the iPhone"},
    {"name": "Federal Reserve", "type": "Organization", "definition": "the central bank of the United States"},
]


def document(name: str, own: str) -> dict:
    entity = {"name": own, "type": "Company", "definition": f"investment company called {own}"}
    return {"name": name, "date": "2024-03-15", "chunks": [f"{name}: {own} invested in Apple."],
            "entities": [*SHARED, entity],
            "facts": [{"subject": own, "relationship": "invested in", "object": "Apple Inc",
                       "sentence": f"{own} invested in Apple.", "chunk": 0},
                      {"subject": "Federal Reserve", "relationship": "regulates", "object": own,
                       "sentence": f"The Federal Reserve regulates {own}.", "chunk": 0}]}


def test_two_servers_on_one_database_lose_and_duplicate_nothing(tmp_path):
    try:
        url = backend.database_for(tmp_path / "shared")
    except backend.Unavailable as exc:
        pytest.skip(str(exc))
    env = {"GRAPHLORE_DATABASE_URL": url, "GRAPHLORE_AUTH_TOKEN": TOKEN}
    common = document("Common report", "Shared Holdings")
    with http_server("facts", tmp_path / "a", tmp_path / "a.log", env=env) as (first, _), \
            http_server("facts", tmp_path / "b", tmp_path / "b.log", env=env, args=("--host", "0.0.0.0")) as (second, _):
        results: dict[int, list] = {}
        errors: list[BaseException] = []

        def session(k: int, url: str) -> None:
            try:
                with start_blocking_portal() as portal, connect(portal, url, "facts", token=TOKEN) as s:
                    out = []
                    for i in range(3):
                        out.append(s.ok("add_document", document(f"Report {k}-{i}", f"Holdings {k}{i}"))[0])
                        if i == 1:
                            out.append(s.ok("add_document", common)[0])
                    results[k] = out
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=session, args=(k, (first, second)[k % 2])) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(600)
        assert errors == [] and len(results) == 4
        statuses = sorted(r.status for out in results.values() for r in out if r.document.name == "Common report")
        assert statuses == ["created", "unchanged", "unchanged", "unchanged"]
        assert all(r.status == "created" for out in results.values() for r in out if r.document.name != "Common report")

        with start_blocking_portal() as portal, connect(portal, first, "facts", token=TOKEN) as s:
            stats, _ = s.ok("stats", {})
            found, _ = s.ok("find", {"entity": [{"name": e["name"], "definition": e["definition"]} for e in SHARED]})
    assert stats.documents == 4 * 3 + 1 and stats.facts == (4 * 3 + 1) * 2
    assert stats.entities == 2 + 4 * 3 + 1  # Apple Inc and the Federal Reserve once each
    for entity, wanted in zip(found.entities, ("E:apple-inc", "E:federal-reserve"), strict=True):
        assert entity.candidates[0].id == wanted
        assert [c.name for c in entity.candidates].count(entity.candidates[0].name) == 1
