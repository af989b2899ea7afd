"""The HTTP transport's access control, through real ``graphlore serve <toolset> --transport http``
processes and a real MCP client: who may bind where, the bearer token (401 before any tool runs),
DNS-rebinding checks on loopback, the folders a server may read, and one-line start failures.
Every request goes to 127.0.0.1 (a server bound to 0.0.0.0 is reached there too)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys

import httpx
import pytest
from anyio.from_thread import start_blocking_portal
from helpers import paths as PATHS
from helpers.backend import env_for
from helpers.mcp import connect, free_port, http_server

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
