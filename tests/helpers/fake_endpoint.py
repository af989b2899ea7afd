"""A fake OpenAI-compatible HTTP endpoint on 127.0.0.1, for the one thing tests may fake: a hosted model.

``json_endpoint(answer)`` serves POST requests with ``answer(path, body) -> (status, JSON body or bytes)``
and records every request (path, Authorization header, body). ``chat_endpoint(reply)`` is a
``/chat/completions`` model whose text answer is ``reply(prompt)``; a request for the model ``broken``
answers 503.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[str, dict], tuple[int, Any]]


@contextmanager
def json_endpoint(answer: Answer) -> Iterator[tuple[str, list[dict]]]:
    """Yields (base URL ending in /v1, the requests seen so far)."""
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
            status, payload = answer(self.path, body)
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits for the serving loop's next poll: 0.5 s by default, for every test that uses an endpoint
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chat_endpoint(reply: Callable[[str], str]) -> Iterator[tuple[str, list[dict]]]:
    def answer(path: str, body: dict) -> tuple[int, Any]:
        if body.get("model") == "broken":
            return 503, b"overloaded"
        text = reply(body["messages"][-1]["content"])
        return 200, {"choices": [{"message": {"role": "assistant", "content": text}}]}

    with json_endpoint(answer) as found:
        yield found
