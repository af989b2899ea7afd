"""Serving MCP over streamable HTTP, safely: who may bind where, who may call, and a clean start.

- **Loopback by default.** A non-loopback bind address (``0.0.0.0``, a LAN address) is refused unless
  ``GRAPHLORE_AUTH_TOKEN`` is set: such a server is reachable by other machines.
- **Bearer token.** With ``GRAPHLORE_AUTH_TOKEN`` set, every HTTP request needs
  ``Authorization: Bearer <token>`` (compared in constant time); anything else gets 401 before
  the MCP app, so before any tool, sees the request. The rule holds on every address the server
  answers, loopback included.
- **DNS rebinding.** On a loopback address the ``Host`` header must name a loopback host and an
  ``Origin``, when sent, a loopback origin (the SDK's transport security), so a web page whose
  domain was rebound to 127.0.0.1 cannot drive the server from a browser.
- **Files and folders.** Over HTTP every path a tool reads (items' and code's ``project_path``, skills'
  ``import_skills`` file) must lie under ``GRAPHLORE_ALLOWED_ROOTS`` (default: the server's working
  directory; see :mod:`graphlore.roots`).
- **Health.** ``GET /healthz`` answers before the token check and the MCP app (a load balancer has no
  token): 200 with the version and the backend's reachability, or 503 with the reason in a few fixed
  words (:func:`graphlore.store.factory.health`), as JSON; nothing else is revealed.
- **Start and failure.** The URL, the toolsets and the store go to stderr when the server listens;
  a port in use or an address that cannot be bound is one error line, not a traceback.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
import sys
from dataclasses import replace
from typing import Any

from graphlore import __version__
from graphlore.config import Settings
from graphlore.errors import ConfigError

#: Host header values (any port) a loopback server answers to.
LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str) -> None:
    """Refuse a non-loopback address without a token, before anything listens."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to serve on {host}: it is not a loopback address, so other machines could call every tool "
            "without credentials. Set GRAPHLORE_AUTH_TOKEN (every request must then send 'Authorization: Bearer "
            "<token>'), or serve on 127.0.0.1 (the default)"
        )


class BearerAuth:
    """ASGI middleware: 401 unless ``Authorization: Bearer <token>`` matches (constant-time compare)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                given = value
                break
        if hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        reason = "missing" if not given else "wrong"
        body = json.dumps({"error": "unauthorized", "message": (
            f"{reason} bearer token: send 'Authorization: Bearer <token>' with the server's GRAPHLORE_AUTH_TOKEN")}).encode()
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b'Bearer realm="graphlore"')]})
        await send({"type": "http.response.body", "body": body})


#: The health endpoint's path.
HEALTH_PATH = "/healthz"


async def _respond(send: Any, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]] = (),
                   with_body: bool = True) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
        (b"cache-control", b"no-store"), *headers]})
    await send({"type": "http.response.body", "body": data if with_body else b""})


class HealthCheck:
    """ASGI middleware: ``GET /healthz`` (and ``HEAD``) answered here, before authentication: 200 when the
    backend can be used, 503 with the reason when not; every other request goes on to ``app``."""

    def __init__(self, app: Any, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != HEALTH_PATH:
            await self.app(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _respond(send, 405, {"error": "method_not_allowed", "message": f"{HEALTH_PATH} answers GET"},
                           [(b"allow", b"GET, HEAD")])
            return
        import anyio

        from graphlore.store import factory

        health = await anyio.to_thread.run_sync(factory.health, self.settings)
        body: dict[str, Any] = {"status": "ok" if health.ok else "unavailable", "version": __version__,
                                "backend": health.backend, "reachable": health.ok}
        if not health.ok:
            body["reason"] = health.reason
        await _respond(send, 200 if health.ok else 503, body, with_body=scope["method"] == "GET")


def listen(host: str, port: int) -> socket.socket:
    """A listening socket, or a :class:`ConfigError` that says why not (in use, unknown address)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; check --host") from exc
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        hint = "another process is listening there; choose another --port" if exc.errno == 98 else "check --host"
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; {hint}") from exc
    sock.set_inheritable(True)
    return sock


def http_settings(settings: Settings) -> Settings:
    """Over HTTP folders are always confined: the working directory when no roots are configured."""
    if settings.allowed_roots:
        return settings
    from pathlib import Path

    return replace(settings, allowed_roots=str(Path.cwd()))


def start_line(toolsets: str, host: str, port: int, settings: Settings, token: bool) -> str:
    """What the server prints once it listens: where, which toolsets and store, auth, allowed roots."""
    from graphlore.store import factory

    shown = f"[{host}]" if ":" in host else host
    return (f"graphlore serve {toolsets}: http://{shown}:{port}/mcp | store: {factory.describe(settings)} | "
            f"auth: {'bearer token' if token else 'none (loopback only)'} | allowed roots: {settings.allowed_roots}")


def app_for(server: Any, host: str, token: str, settings: Settings) -> Any:
    """The streamable HTTP app of ``server`` with the checks above, and ``/healthz`` before them."""
    from mcp.server.transport_security import TransportSecuritySettings

    security = (TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=LOOPBACK_HOSTS,
                                          allowed_origins=LOOPBACK_ORIGINS)
                if is_loopback(host) else TransportSecuritySettings(enable_dns_rebinding_protection=False))
    app = server.streamable_http_app(host=host, transport_security=security)
    return HealthCheck(BearerAuth(app, token) if token else app, settings)


def run(server: Any, toolsets: str, settings: Settings, host: str, port: int, token: str) -> None:
    """Listen (or fail in one line), announce, serve until stopped. Everything slow (the app, the start
    line's imports) comes before the socket listens, so a client that can connect finds the line printed."""
    import anyio
    import uvicorn

    check_bind(host, token)
    app = app_for(server, host, token, settings)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    sock = listen(host, port)
    print(start_line(toolsets, host, sock.getsockname()[1], settings, bool(token)), file=sys.stderr, flush=True)
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
