"""One JSON POST to an OpenAI-compatible HTTP endpoint, shared by the embedder and the LLM client.

Transport failures, error statuses and bodies that are not JSON become a
:class:`ProviderError` that names the endpoint; callers check the body's shape.
A failure that may pass (a timeout, a lost connection, 429 or a 5xx status:
:class:`EndpointUnavailable`) is tried again ``retries`` times, after
``retry_delay`` seconds, doubled at each try.
"""

from __future__ import annotations

import time
from typing import Any

from graphlore.errors import ProviderError

#: Seconds before the first try again (doubled at each further try), unless an endpoint is given its own.
RETRY_DELAY_S = 0.5

#: Statuses worth asking again: rate limited, or the server failed.
TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


class EndpointUnavailable(ProviderError):
    """A failure that may pass: a timeout, a lost connection, or a status in :data:`TRANSIENT_STATUSES`."""


class JsonEndpoint:
    def __init__(self, base_url: str, api_key: str, timeout: float, label: str, retries: int = 0,
                 retry_delay: float | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        #: what the endpoint is, for messages ("embedding endpoint", "LLM endpoint")
        self.label = label
        self.retries = retries
        self.retry_delay = retry_delay
        self._client = None

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path}"

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """The JSON answer to ``body``; a failure that may pass is tried again (see the module docstring)."""
        for attempt in range(self.retries + 1):
            try:
                return self._post_once(path, body)
            except EndpointUnavailable:
                if attempt == self.retries:
                    raise
                delay = RETRY_DELAY_S if self.retry_delay is None else self.retry_delay
                time.sleep(delay * 2**attempt)
        raise AssertionError("unreachable")

    def _post_once(self, path: str, body: dict[str, Any]) -> Any:
        import httpx  # only users of a remote endpoint pay for the import

        if self._client is None:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            self._client = httpx.Client(timeout=self.timeout, headers=headers)
        url = self.url(path)
        try:
            response = self._client.post(url, json=body)
            response.raise_for_status()
            return response.json()
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            error = EndpointUnavailable if status in TRANSIENT_STATUSES else ProviderError
            raise error(f"{self.label} {url} answered {status}: {exc.response.text[:200]}") from exc
        except (httpx.TimeoutException, httpx.TransportError) as exc:
            raise EndpointUnavailable(f"{self.label} {url} failed: {exc or type(exc).__name__}") from exc
        except httpx.HTTPError as exc:
            raise ProviderError(f"{self.label} {url} failed: {exc}") from exc
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise ProviderError(f"{self.label} {url} returned an unexpected body: {exc}") from exc
