"""Requests through a Dapr sidecar's service-invocation API. An app asks its sidecar (``http://localhost:3500``,
the port from ``DAPR_HTTP_PORT``, or wherever a gateway reaches it) for
``/v1.0/invoke/<app-id>/method/<path>``; the sidecar calls ``<path>`` on the app of that app-id (Dapr's
docs: "Service invocation API"). So such a URL is, for linking, ``http://<app-id>/<path>``, whatever host the
sidecar was reached at. An app-id written ``<app-id>.<namespace>`` names the app in that namespace (an app-id
holds no dot). An app-id that is not known leaves the request's service not known, saying so.

Publishing through the sidecar's pub/sub API is a POST of ``/v1.0/publish/<pubsub>/<topic>`` (bulk:
``/v1.0-alpha1/publish/bulk/<pubsub>/<topic>``): the request is a message on that topic of that component, not a call
of any app (`frameworks.dapr` makes such a client a producer).
"""

from __future__ import annotations

import re

from ..languages.folding import Folded, known_text

#: the invoke API's path; group 1 the app-id segment, the rest of the text after the match is the app's path
_INVOKE = re.compile(r"/v1\.0/invoke/([^/]*)/method(?=/|$|\?|#)")
WHY_UNKNOWN_APP = "the Dapr app-id of the sidecar URL /v1.0/invoke/<app-id>/method/ is not known"


def _app(segment: str) -> str:
    """The app-id of the URL's segment (``orders.production`` -> ``orders``)."""
    return segment.split(".", 1)[0] if re.fullmatch(r"[\w.\-]+", segment) else segment


def sidecar_path(path: str) -> tuple[str, str] | None:
    """(app-id, the app's path) when ``path`` (a path, or a path prefix a gateway rewrites to) is one of the
    invoke API, else None. The app-id may hold unknown parts (then it is no service)."""
    found = _INVOKE.match(path)
    if found is None:
        return None
    rest = path[found.end():]
    return _app(found.group(1)), rest if rest.startswith("/") else "/" + rest


def sidecar_url(value: Folded) -> Folded | None:
    """``http://<app-id><path>`` for a URL of the invoke API (any host: the sidecar's address, a settled or
    unsettled ``DAPR_HTTP_PORT``), else None. Its ``known`` says whether the app-id and the path are known."""
    at = _INVOKE.search(value.text)
    found = sidecar_path(value.text[at.start():]) if at is not None else None
    if found is None:
        return None
    app, path = found
    text = f"http://{app}{path}"
    why = value.why if known_text(app) else value.why + (WHY_UNKNOWN_APP,)
    return Folded(text, known_text(text), why)


#: one path segment: text, or a folded unknown part (``{?:name}``)
_SEGMENT = r"((?:\{\?[^{}]*\}|[^/?#{])+)"
_PUBLISH = re.compile(rf"/v1\.0(?:-alpha1)?/publish/(?:bulk/)?{_SEGMENT}/{_SEGMENT}/?(?:$|\?|#)")


def sidecar_topic(url: str) -> str | None:
    """``<pubsub>/<topic>`` (as folded: either may hold unknown parts) when ``url`` (a URL or a path) is one of the
    sidecar's publish API, else None."""
    found = _PUBLISH.search(url)
    return f"{found.group(1)}/{found.group(2)}" if found else None
