"""One JSON POST to an OpenAI-compatible HTTP endpoint, shared by the embedder and the LLM client.

Transport failures, error statuses and bodies that are not JSON become a
:class:`ProviderError` that names the endpoint; callers check the body's shape.
"""

from __future__ import annotations

from typing import Any

from graphlore.errors import ProviderError


class JsonEndpoint:
    def __init__(self, base_url: str, api_key: str, timeout: float, label: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        #: what the endpoint is, for messages ("embedding endpoint", "LLM endpoint")
        self.label = label
        self._client = None

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path}"

    def post(self, path: str, body: dict[str, Any]) -> Any:
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
            raise ProviderError(
                f"{self.label} {url} answered {exc.response.status_code}: {exc.response.text[:200]}"
            ) from exc
        except httpx.HTTPError as exc:
            raise ProviderError(f"{self.label} {url} failed: {exc}") from exc
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise ProviderError(f"{self.label} {url} returned an unexpected body: {exc}") from exc
