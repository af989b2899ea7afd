"""The few steps that need a language model, behind one small protocol.

``OpenAICompatibleLLM`` calls any ``POST {base_url}/chat/completions`` endpoint
(OpenAI, Gemini's OpenAI layer, Ollama, vLLM, llama.cpp...). ``SamplingLLM``
asks the MCP client's own model. On a connection that carries server requests
(MCP up to 2025-11-25) it asks directly; on MCP 2026-07-28, where a server may
not send requests, every question past the answers recorded so far raises
:class:`SamplingRequired`: the adapter hands the question to the client as an
input request, and the tool runs again from the start with one more recorded
answer. A tool that uses an LLM must therefore ask its questions before it
writes anything, and ask the same questions given the same answers.

No LLM configured and no sampling client: tools that need one fail with a
:class:`~graphlore.errors.ConfigError` that names the structured-input path.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from graphlore.config import ENV_PREFIX, Settings
from graphlore.endpoint import JsonEndpoint
from graphlore.errors import ConfigError, ProviderError

log = logging.getLogger("graphlore.llm")


@dataclass(frozen=True)
class LLMRequest:
    system: str
    prompt: str
    max_tokens: int = 4096

    def key(self) -> str:
        """Identifies the question, so a recorded answer is only ever replayed for the same question."""
        raw = json.dumps([self.system, self.prompt, self.max_tokens]).encode()
        return hashlib.sha256(raw).hexdigest()[:24]


@runtime_checkable
class LLM(Protocol):
    name: str

    def complete(self, request: LLMRequest) -> str:
        """The model's text answer (temperature 0 where the provider allows it)."""
        ...


class OpenAICompatibleLLM:
    """Any ``/v1/chat/completions`` endpoint."""

    def __init__(self, base_url: str, model: str, api_key: str = "", timeout: float = 120.0,
                 retry_delay: float | None = None) -> None:
        # One more try after a failure that may pass (a timeout, a 5xx): an outage of a second is not an error.
        self.endpoint = JsonEndpoint(base_url, api_key, timeout, "LLM endpoint", retries=1, retry_delay=retry_delay)
        self.model = model
        self.name = f"openai:{model}"

    def complete(self, request: LLMRequest) -> str:
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": request.system}, {"role": "user", "content": request.prompt}],
            "temperature": 0,
            "max_tokens": request.max_tokens,
        }
        answer = self.endpoint.post("chat/completions", body)
        url = self.endpoint.url("chat/completions")
        try:
            content = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderError(f"LLM endpoint {url} returned an unexpected body: {exc}") from exc
        if not isinstance(content, str):
            raise ProviderError(f"LLM endpoint {url} returned no text content")
        return content


class SamplingRequired(Exception):  # noqa: N818 - a control-flow signal for the adapter, not an error
    """The client's model must answer ``request`` before the tool can go on (MCP 2026-07-28)."""

    def __init__(self, request: LLMRequest, answered: list[tuple[str, str]]) -> None:
        super().__init__(request.key())
        self.request = request
        #: (question key, answer) of every question already answered in this call
        self.answered = answered


class SamplingLLM:
    """The MCP client's model: asked directly through ``send``, or one question per round trip."""

    name = "mcp-sampling"

    def __init__(self, send: Callable[[LLMRequest], str] | None, answered: Sequence[tuple[str, str]] = ()) -> None:
        self._send = send
        self._answered = list(answered)
        self._next = 0

    def complete(self, request: LLMRequest) -> str:
        if self._next < len(self._answered):
            key, answer = self._answered[self._next]
            if key != request.key():
                raise ProviderError(
                    "the questions for the client's model changed between rounds (the graph changed meanwhile); "
                    "call the tool again"
                )
            self._next += 1
            return answer
        if self._send is None:
            raise SamplingRequired(request, list(self._answered))
        answer = self._send(request)
        self._answered.append((request.key(), answer))
        self._next += 1
        return answer


def build_llm(settings: Settings, role: str = "extraction") -> LLM | None:
    """The configured endpoint for ``role`` (``extraction``: ``llm_*``; ``judge``: ``judge_llm_*``, each empty
    one taking ``llm_*``'s value), or None when no LLM is configured for it."""
    url, model, key, timeout = settings.llm_url, settings.llm_model, settings.llm_api_key, settings.llm_timeout
    prefix = "LLM_"
    if role == "judge":
        url, model = settings.judge_llm_url or url, settings.judge_llm_model or model
        key, timeout = settings.judge_llm_api_key or key, settings.judge_llm_timeout
        prefix = "JUDGE_LLM_" if settings.judge_llm_url or settings.judge_llm_model else prefix
    if not url and not model:
        return None
    if not (url and model):
        raise ConfigError(
            f"an LLM needs both {ENV_PREFIX}{prefix}URL (e.g. http://127.0.0.1:11434/v1) and {ENV_PREFIX}{prefix}MODEL"
        )
    return OpenAICompatibleLLM(url, model, key, timeout)


def required(llm: LLM | None, purpose: str, tool: str, without: str) -> LLM:
    """``llm``, or the ``config_error`` a call that needs one answers: how to configure an endpoint (or use MCP
    sampling, through ``tool``) to ``purpose``, and what ``without`` one to do instead."""
    if llm is None:
        raise ConfigError(
            f"no LLM to {purpose} with: set GRAPHLORE_LLM_URL and GRAPHLORE_LLM_MODEL (any OpenAI-compatible "
            f"/v1/chat/completions endpoint), or call {tool} from an MCP client that offers sampling. {without}"
        )
    return llm


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json_reply(text: str, source: str) -> Any:
    """The JSON object in a model's reply (bare, fenced, or surrounded by prose)."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        start, end = candidate.find("{"), candidate.rfind("}")
        if start == -1 or end <= start:
            continue
        try:
            return json.loads(candidate[start : end + 1])
        except json.JSONDecodeError:
            continue
    raise ProviderError(f"{source} did not answer with a JSON object; it answered: {text[:300]!r}")


@dataclass(frozen=True)
class Choice:
    """One candidate an LLM judge may pick: its id and everything the model should read about it."""

    id: str
    description: str


@dataclass(frozen=True)
class Verdict:
    #: the picked candidate's id, or None when the model picked none (or could not decide: see ``decided``)
    choice: str | None
    #: False when the model's answers were unusable twice; the caller's own rule must decide then
    decided: bool
    #: the model's reason, or what was wrong with its answers
    reason: str


JUDGE_SYSTEM = (
    "You pick at most one candidate that answers a request, or none. Answer with one JSON object and "
    'nothing else: {"id": "<the id of the one candidate that fits>", "reason": "<one sentence>"} or '
    '{"id": null, "reason": "<one sentence>"} when no candidate fits. Never pick one that only partly fits.'
)

#: What a judge's answer holds; other keys are dropped with a warning.
JUDGE_KEYS = frozenset({"id", "reason"})


def judge(llm: LLM, request: str, choices: Sequence[Choice], *, task: str = "", max_tokens: int = 200) -> Verdict:
    """Ask ``llm`` which of ``choices`` answers ``request``, or none.

    An answer that is not JSON, or names an id that is not a candidate, is asked
    again once with the problem stated; a second bad answer gives
    ``decided=False`` so the caller falls back to its own rule (and says so).
    Endpoint failures raise :class:`~graphlore.errors.ProviderError`.
    """
    ids = [c.id for c in choices]
    listing = "\n\n".join(f"[{c.id}]\n{c.description}" for c in choices)
    prompt = f"{task}\n\nRequest:\n{request}\n\nCandidates:\n{listing}".strip()
    problem = ""
    for _ in range(2):
        text = llm.complete(LLMRequest(JUDGE_SYSTEM, prompt + (f"\n\nYour last answer was unusable: {problem}. "
                                                               "Answer again." if problem else ""), max_tokens))
        try:
            reply = parse_json_reply(text, f"the LLM ({llm.name})")
        except ProviderError:
            problem = "it was not a JSON object"
            continue
        if isinstance(reply, dict) and (extra := sorted(set(reply) - JUDGE_KEYS)):
            # a model adds ``confidence`` or ``changes`` unasked: never a reason to refuse its choice
            log.warning("the LLM (%s) answered keys a judgement does not have, ignored: %s", llm.name, ", ".join(extra))
        picked = reply.get("id") if isinstance(reply, dict) else None
        reason = str(reply.get("reason", "")) if isinstance(reply, dict) else ""
        if picked is None:
            return Verdict(None, True, reason)
        if isinstance(picked, str) and picked in ids:
            return Verdict(picked, True, reason)
        problem = f"{picked!r} is not one of the candidate ids {ids}"
    return Verdict(None, False, f"the LLM's answers were unusable twice ({problem})")
