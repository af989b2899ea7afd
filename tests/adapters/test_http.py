"""The HTTP transport's access control, through real ``graphlore serve --transport http`` processes and a
real MCP client: who may bind where, the bearer token (401 before any tool runs), DNS-rebinding checks on
loopback, the files and folders a server may read (every path-taking field of every tool), errors that
never quote a file, structured errors, ``/healthz``, and one-line start failures.
Every request goes to 127.0.0.1 (a server bound to 0.0.0.0 is reached there too)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from anyio.from_thread import start_blocking_portal
from helpers import paths as PATHS
from helpers.backend import BACKEND, env_for
from helpers.mcp import ALL, connect, free_port, http_server

from graphlore.config import Settings
from graphlore.contract import path_fields
from graphlore.runtime import Runtime
from graphlore.toolsets import TOOLSETS, load_toolset

TOKEN = "s3cret-token-for-tests"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def serve(args: list[str], home, env: dict[str, str] | None = None, timeout: float = 60):
    """A serve process expected to exit by itself (a refusal)."""
    return subprocess.run([sys.executable, "-m", "graphlore", "serve", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **env_for(home), **(env or {})})


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    """An allowed root holding a project and a symlink that leads out of it, and a project outside."""
    base = tmp_path_factory.mktemp("roots")
    allowed, outside = base / "allowed", base / "outside"
    shutil.copytree(PATHS.EXAMPLE_TREE, allowed / "fm")
    shutil.copytree(PATHS.EXAMPLE_TREE, outside / "fm")
    (allowed / "escape").symlink_to(outside)
    return allowed, outside


@pytest.fixture(scope="module")
def secured(tmp_path_factory, roots):
    """items over HTTP on 0.0.0.0 with a token, confined to the allowed root."""
    home = tmp_path_factory.mktemp("secured") / "home"
    log = home.parent / "server.log"
    env = {"GRAPHLORE_AUTH_TOKEN": TOKEN, "GRAPHLORE_ALLOWED_ROOTS": str(roots[0])}
    with http_server("items", home, log, env=env, args=("--host", "0.0.0.0")) as (url, _):
        yield url, log


def post(url: str, headers: dict[str, str], body=INIT) -> httpx.Response:
    return httpx.post(url, json=body, headers={**MCP_HEADERS, **headers}, timeout=30)


# -- binding ----------------------------------------------------------------------------------------


def test_a_non_loopback_address_without_a_token_is_refused(tmp_path):
    port = free_port()
    proc = serve(["items", "--transport", "http", "--host", "0.0.0.0", "--port", str(port)], tmp_path / "home")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: [config_error] refusing to serve on 0.0.0.0")
    assert "GRAPHLORE_AUTH_TOKEN" in proc.stderr and proc.stderr.count("\n") == 1


def test_a_port_in_use_is_one_error_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = serve(["facts", "--transport", "http", "--port", str(port)], tmp_path / "home")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: [config_error] cannot listen on 127.0.0.1:{port}: Address already in use")
    assert proc.stderr.count("\n") == 1


@pytest.mark.slow  # over a second: the everyday run keeps its 2 minutes
def test_an_allowed_root_that_is_not_a_folder_is_refused_at_start(tmp_path):
    proc = serve(["--transport", "http", "--port", str(free_port())], tmp_path / "home",
                 env={"GRAPHLORE_ALLOWED_ROOTS": str(tmp_path / "missing")})
    assert proc.returncode == 2 and proc.stderr == (f"error: [config_error] GRAPHLORE_ALLOWED_ROOTS names "
                                                    f"{str(tmp_path / 'missing')!r}, which is not a folder\n")


@pytest.mark.slow
def test_the_start_line_names_the_url_the_toolset_and_the_store(secured):
    url, log = secured
    port = url.rsplit(":", 1)[1].split("/")[0]
    line = log.read_text().splitlines()[0]
    assert line.startswith(f"graphlore serve items: http://0.0.0.0:{port}/mcp | store: ")
    assert "auth: bearer token" in line and "allowed roots: " in line and TOKEN not in line


# -- the token --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_with_the_token_a_real_client_searches(secured, roots):
    url, _ = secured
    with start_blocking_portal() as portal, connect(portal, url, "items", token=TOKEN) as session:
        assert "search" in session.list_tools()
        response, _ = session.ok("search", {"query": "offline sync", "project_path": str(roots[0] / "fm")})
        assert response.total_results > 0


@pytest.mark.slow
@pytest.mark.parametrize("headers", [
    {}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": f"Basic {TOKEN}"},
    {"Authorization": TOKEN}, {"Authorization": f"bearer  {TOKEN}"},
], ids=["missing", "wrong", "longer", "basic", "bare", "spaced"])
def test_a_missing_or_wrong_token_gets_401(secured, headers):
    response = post(secured[0], headers)
    assert response.status_code == 401 and response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"] == "unauthorized"


@pytest.mark.slow
def test_401_comes_before_any_tool_runs(secured, roots, tmp_path):
    url, _ = secured
    project = roots[0] / "fresh"
    shutil.copytree(PATHS.EXAMPLE_TREE, project)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "index", "arguments": {"project_path": str(project)}}}
    assert post(url, {"Authorization": "Bearer nope"}, call).status_code == 401
    with start_blocking_portal() as portal, connect(portal, url, "items", token=TOKEN) as session:
        status, _ = session.ok("get_index_status", {"project_path": str(project)})
    assert status.exists is False  # the refused call indexed nothing


@pytest.mark.slow
def test_a_client_without_the_token_cannot_connect(secured):
    with start_blocking_portal() as portal, pytest.raises(Exception):  # noqa: B017 - the SDK's own error type
        with connect(portal, secured[0], "items"):
            pass


# -- folders ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_folders_outside_the_allowed_roots_are_refused(secured, roots):
    allowed, outside = roots
    attempts = [str(outside / "fm"), f"{allowed}/../outside/fm", str(allowed / "escape" / "fm"), "/etc", "~",
                str(allowed / ".." / "outside" / "missing")]
    with start_blocking_portal() as portal, connect(portal, secured[0], "items", token=TOKEN) as session:
        for path in attempts:
            text = session.error("search", {"query": "sync", "project_path": path})
            assert "[invalid_input] project_path" in text and "outside the folders this server may read" in text, text
            assert str(allowed) in text
        status, _ = session.ok("get_index_status", {"project_path": str(allowed / "fm")})
    assert not (outside / "fm" / ".graphlore").exists()


# -- loopback: DNS rebinding, default roots ---------------------------------------------------------


@pytest.fixture(scope="module")
def loopback(tmp_path_factory):
    """items over HTTP on 127.0.0.1, no token, started in a working directory with a project in it."""
    base = tmp_path_factory.mktemp("loopback")
    shutil.copytree(PATHS.EXAMPLE_TREE, base / "cwd" / "fm")
    shutil.copytree(PATHS.EXAMPLE_TREE, base / "elsewhere" / "fm")
    with http_server("items", base / "home", base / "server.log", cwd=base / "cwd") as (url, _):
        yield url, base


@pytest.mark.slow
def test_a_rebound_host_or_a_foreign_origin_is_refused_on_loopback(loopback):
    url, _ = loopback
    port = url.rsplit(":", 1)[1].split("/")[0]
    assert post(url, {"Host": f"evil.example:{port}"}).status_code == 421
    assert post(url, {"Origin": "http://evil.example"}).status_code == 403
    assert post(url, {"Origin": f"http://localhost:{port}"}).status_code == 200
    assert post(url, {}).status_code == 200


@pytest.mark.slow
def test_over_http_the_working_directory_is_the_default_root(loopback):
    url, base = loopback
    with start_blocking_portal() as portal, connect(portal, url, "items") as session:
        session.ok("get_index_status", {"project_path": str(base / "cwd" / "fm")})
        text = session.error("get_index_status", {"project_path": str(base / "elsewhere" / "fm")})
    assert "outside the folders this server may read" in text and str(base / "cwd") in text


# -- every path a tool reads, in one server of every toolset -------------------------------------------------

#: Request fields whose names sound like paths but name nothing on disk, and why.
NOT_PATHS = {("facts", "add_document", "source"): "a label: where the document came from, never opened",
             ("facts", "extract_document", "source"): "a label: where the document came from, never opened"}
PATHLIKE = re.compile(r"(^|_)(path|paths|file|files|folder|folders|dir|dirs|directory|root)($|_)")


def path_fields_by_tool(surface: str = "mcp") -> dict[tuple[str, str], dict[str, str]]:
    return {(name, spec.name): path_fields(spec.request) for name in TOOLSETS
            for spec in load_toolset(name).on(surface) if path_fields(spec.request)}


def test_every_field_that_names_a_file_or_folder_is_declared_a_local_path():
    """A field named like a path is confined (``LocalPath``) or listed in NOT_PATHS with the reason, so a new
    path-taking field cannot slip past the confinement (nor past the HTTP test below)."""
    undeclared = []
    for name in TOOLSETS:
        for spec in load_toolset(name).tools:
            marked = set(path_fields(spec.request).values())
            for field_name, field in spec.request.model_fields.items():
                wire = field.alias or field_name
                if PATHLIKE.search(wire) and wire not in marked and (name, spec.name, wire) not in NOT_PATHS:
                    undeclared.append(f"{name}.{spec.name}.{wire}")
    assert undeclared == []
    found = path_fields_by_tool()
    assert {tool for _, tool in found if _ == "items"} == {s.name for s in load_toolset("items").on("mcp")}
    assert {tool for _, tool in found if _ == "code"} == {s.name for s in load_toolset("code").on("mcp")}
    assert found[("skills", "import_skills")] == {"path": "path"}


@pytest.fixture(scope="module")
def everything(tmp_path_factory, embedder):
    """``graphlore serve`` (every toolset) over HTTP, confined to ``allowed``; a valid call of every tool
    that reads a path (the toolsets' examples, made inside ``allowed``), a copy of their files outside,
    and a symlink inside that leads there."""
    base = tmp_path_factory.mktemp("everything")
    allowed, outside = base / "allowed", base / "outside"
    calls: dict[tuple[str, str], dict] = {}
    for name in TOOLSETS:
        toolset = load_toolset(name)
        folder = allowed / name
        folder.mkdir(parents=True)
        setup = Runtime(Settings(home=base / "setup"), embedder=embedder)
        examples = toolset.examples(setup, folder) if toolset.examples else {}
        setup.close()
        for toolset_name, tool in path_fields_by_tool():
            if toolset_name == name:
                assert examples.get(tool), f"{name}.{tool} reads a path: give it a valid call in its examples hook"
                calls[(name, tool)] = examples[tool][0]
    shutil.copytree(allowed, outside)
    (allowed / "escape").symlink_to(outside)
    env = {"GRAPHLORE_ALLOWED_ROOTS": str(allowed), "GRAPHLORE_EMBED_THREADS": "1"}
    with http_server(ALL, base / "home", base / "server.log", env=env) as (url, _):
        yield url, allowed, outside, calls


def test_every_path_a_tool_reads_is_confined_over_http(everything):
    """Each tool that takes a file or folder, through the SDK client over HTTP: its own valid call outside the
    allowed root, through a symlink inside it, and with ``..`` is refused before anything is read; the same
    call inside passes the check."""
    url, allowed, outside, calls = everything
    refused = 0
    with start_blocking_portal() as portal, connect(portal, url, ALL) as session:
        for (name, tool), arguments in sorted(calls.items()):
            served = f"{name}_{tool}"
            for field in path_fields_by_tool()[(name, tool)].values():
                inside = Path(arguments[field])
                relative = inside.relative_to(allowed)
                for path in (outside / relative, allowed / "escape" / relative, f"{allowed}/../outside/{relative}"):
                    text = session.error(served, {**arguments, field: str(path)})
                    assert text.startswith(f"[invalid_input] {field} {str(path)!r} is outside the folders this "
                                           f"server may read ({allowed})"), (served, text)
                    refused += 1
                result = session.call(served, arguments)
                assert "outside the folders" not in " ".join(b.text for b in result.content), served
    assert refused == 3 * sum(len(f) for f in path_fields_by_tool().values())
    assert not list(outside.rglob(".graphlore*"))  # nothing was written beside the refused projects


def test_a_file_of_another_kind_given_to_import_is_never_quoted(everything):
    url, allowed, _, _ = everything
    secret = allowed / "users.csv"
    secret.write_text("user,password\nalice,hunter2\n")
    broken = allowed / "guidelines.json"
    broken.write_text('{"user": "alice", "password": "hunter2"')
    (allowed / "kb.json").write_text('{"alice": ["hunter2"]}')
    (allowed / "ontology.json").write_text('{"hunter2": 1}')
    with start_blocking_portal() as portal, connect(portal, url, ALL) as session:
        texts = [session.error("skills_import_skills", {"format": "intents", "path": str(secret)}),
                 session.error("skills_import_skills", {"format": "abcd", "path": str(broken)})]
        broken.write_text('{"user": {"password": "hunter2"}}')
        texts.append(session.error("skills_import_skills", {"format": "abcd", "path": str(broken)}))
    assert texts[0] == ("[invalid_input] a CSV of intents needs the columns text and intent / category / label: "
                        "its first row names them, and this one's first row has 2 other column(s); name them with "
                        "text_column / intent_column (CLI: --text-column / --intent-column)")
    assert texts[1].startswith("[invalid_input] guidelines.json is not JSON (Expecting ',' delimiter at line 1")
    for text in texts:
        assert "user" not in text.replace("users.csv", "") and "password" not in text and "alice" not in text \
            and "hunter2" not in text, text


def test_a_cli_only_file_is_confined_on_the_command_line_too(tmp_path):
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    outside = tmp_path / "records.jsonl"
    outside.write_text("{}\n")
    assert path_fields_by_tool("cli")[("facts", "ingest")] == {"file": "file"}
    proc = subprocess.run([sys.executable, "-m", "graphlore", "facts", "ingest", str(outside)], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **env_for(tmp_path / "home"),
                                                      "GRAPHLORE_ALLOWED_ROOTS": str(allowed)})
    assert proc.returncode == 2
    assert proc.stderr == (f"error: [invalid_input] file {str(outside)!r} is outside the folders this server may "
                           f"read ({allowed}); the server's GRAPHLORE_ALLOWED_ROOTS sets them\n")


# -- structured errors and health ------------------------------------------------------------------------


def test_errors_over_http_carry_a_structured_error_a_real_client_accepts(everything):
    url, allowed, _, _ = everything
    with start_blocking_portal() as portal, connect(portal, url, ALL) as session:
        for name, arguments in [("facts_search", {"entity": ["Nobody"], "bogus": 1}), ("code_find", {}),
                                ("nothing_here", {}), ("items_get_index_status", {"project_path": "/etc"}),
                                ("skills_get_skill", {"skill_id": "missing"})]:
            result = session.call(name, arguments)  # the SDK client validated it (and would raise if it could not)
            assert result.is_error and set(result.structured_content) == {"error"}, name
            error = result.structured_content["error"]
            assert result.content[0].text == f"[{error['code']}] {error['message']}"
            assert error["code"] in ("invalid_input", "not_found")


def health(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.request(method, url.removesuffix("/mcp") + "/healthz", headers=headers or {}, timeout=30)


@pytest.mark.slow
def test_healthz_answers_without_the_token_and_tells_only_version_and_backend(secured):
    from graphlore import __version__

    response = health(secured[0])
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    backend = {"sqlite": "sqlite", "postgres": "postgresql"}[BACKEND]
    assert response.json() == {"status": "ok", "version": __version__, "backend": backend, "reachable": True}
    assert health(secured[0], headers={"Authorization": "Bearer wrong"}).status_code == 200
    head = health(secured[0], "HEAD")
    assert head.status_code == 200 and head.content == b""
    assert health(secured[0], "POST").status_code == 405
    assert post(secured[0], {}).status_code == 401  # everything else still needs the token


@pytest.mark.slow  # ~2.5 s: servers that wait for a backend that never answers
def test_healthz_says_503_and_why_when_the_backend_cannot_be_used(tmp_path):
    not_a_folder = tmp_path / "home"
    not_a_folder.write_text("a file where the data folder should be")
    with http_server(ALL, not_a_folder, tmp_path / "a.log", env={"GRAPHLORE_DATABASE_URL": ""}) as (url, _):
        response = health(url)
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "version": response.json()["version"], "backend": "sqlite",
                               "reachable": False, "reason": "the data folder is not a folder"}
    database = "postgresql://graphlore:pw@127.0.0.1:1/none"
    with http_server(ALL, tmp_path / "b", tmp_path / "b.log", env={"GRAPHLORE_DATABASE_URL": database}) as (url, _):
        response = health(url)
    assert response.status_code == 503 and response.json()["backend"] == "postgresql"
    assert response.json()["reason"] == "connection refused" and "127.0.0.1" not in response.text
